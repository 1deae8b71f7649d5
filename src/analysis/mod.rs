//! Analysis: the Kubernetes semantics rules rest on — the API server's validation helpers and
//! message rendering, YAML 1.1 resolution as kubectl sees it.

pub mod judgements;
pub mod semantics;
pub mod sources;
pub mod types;

pub use judgements::near_miss::{
    Block, NearMiss, describe as describe_near_miss, near_miss, toleration_yaml,
};
pub use judgements::schedule::*;
pub use judgements::{admission, evidence, kueue, spread};
pub use semantics::selector_slot::{Eol, SelectorSlot, selector_slot};
pub use semantics::well_known::*;
pub use semantics::{matching, validation};
pub use sources::inventory::*;
pub use sources::{HclError, inventory_pools, node_decls, parse_taint_spec, terraform_decls};
pub use types::Scaling;
pub use types::pod_affinity;
pub use types::workload::*;
pub use types::{
    LabelValues, Labels, NodeDecl, POOL_NAME_LABELS, Place, Pool, PoolTaint, TaintSpec,
    UnknownTaints, self_labels,
};
