//! Analysis: the Kubernetes semantics rules rest on — the API server's validation helpers and
//! message rendering, YAML 1.1 resolution as kubectl sees it.

pub mod crossref;
pub mod inventory;
pub mod matching;
pub mod validation;
