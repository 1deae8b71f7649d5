//! Analysis: the Kubernetes semantics rules rest on — the API server's validation helpers and
//! message rendering, YAML 1.1 resolution as kubectl sees it.

pub mod admission;
pub mod evidence;
mod inventory;
pub mod kueue;
pub mod matching;
mod near_miss;
pub mod pod_affinity;
mod scaling;
mod schedule;
mod selector_slot;
mod sources;
pub mod spread;
pub mod validation;
mod well_known;
mod workload;

pub use inventory::*;
pub use near_miss::{Block, NearMiss, describe as describe_near_miss, near_miss, toleration_yaml};
pub use scaling::Scaling;
pub use schedule::*;
pub use selector_slot::{Eol, SelectorSlot, selector_slot};
pub use sources::{HclError, inventory_pools, node_decls, parse_taint_spec, terraform_decls};
pub use well_known::*;
pub use workload::*;
