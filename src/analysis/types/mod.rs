//! What a pool is and what a workload asks for: plain data, and a workload's scheduling
//! signature read off its pod spec.

pub mod admitted;
pub mod kueue;
pub mod labels;
pub mod node_decl;
pub mod place;
pub mod pod_affinity;
pub mod pool;
pub mod relevant;
pub mod taints;
pub mod terraform;
pub mod toleration;
pub mod workload;

pub use labels::{LabelValues, Labels};
pub use node_decl::{NodeDecl, Scaling};
pub use place::Place;
pub use pool::{LabelRef, POOL_NAME_LABELS, Pool, self_labels};
pub use relevant::Relevant;
pub use taints::{PoolTaint, TaintSpec, UnknownTaints};
pub use toleration::{Scalars, WorkloadToleration};
pub use workload::{Requirement, Term, Workload, intern_terms, workloads};
