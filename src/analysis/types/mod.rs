//! What a pool is and what a workload asks for: plain data.

pub mod labels;
pub mod node_decl;
pub mod place;
pub mod pod_affinity;
pub mod pool;
pub mod taints;
pub mod workload;

pub use labels::{LabelValues, Labels};
pub use node_decl::{NodeDecl, Scaling};
pub use place::Place;
pub use pool::{POOL_NAME_LABELS, Pool, self_labels};
pub use taints::{PoolTaint, TaintSpec, UnknownTaints};
