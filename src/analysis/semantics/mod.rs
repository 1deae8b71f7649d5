//! Kubernetes semantics as pure functions over strings and YAML: well-known keys, the API
//! server's validation, toleration matching, where a fix can add a node selector.

pub mod matching;
pub mod selector_slot;
pub mod validation;
pub mod well_known;
