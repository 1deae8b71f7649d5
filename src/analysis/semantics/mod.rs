//! Kubernetes semantics as pure functions over strings and YAML: well-known keys, the API
//! server's validation, toleration matching, where a fix can add a node selector.

pub mod matching;
pub mod selector_slot;
pub mod validation;
pub mod well_known;

use crate::load::yaml::Node;

/// A scalar's text; empty for a missing or null node.
pub(in crate::analysis) fn text(n: Option<&Node>) -> String {
    match n {
        Some(n) if !n.is_null() => n.text().unwrap_or("").to_string(),
        _ => String::new(),
    }
}
