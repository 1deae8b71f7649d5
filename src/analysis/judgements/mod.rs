//! The scheduler's (and admission's, and Kueue's) verdicts on workloads against pools.

pub mod admission;
pub mod class_index;
pub mod evidence;
pub mod kueue;
pub mod near_miss;
pub mod schedule;
pub mod spread;
