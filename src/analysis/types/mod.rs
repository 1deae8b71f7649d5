//! What a pool is and what a workload asks for: plain data.

pub mod pod_affinity;
pub mod workload;
