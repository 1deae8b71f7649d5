//! What the integration tests share: `cli`, the one harness that runs the real binary, and
//! builders for the cross-reference's public types (`matching.rs`, `properties.rs`).

#![allow(dead_code)] // each test crate uses a part
#![allow(unreachable_pub)] // a test helper module, not an API

pub mod cli;

use std::sync::Arc;

use taintlint::analysis::types::{
    LabelValues, Place, Pool, PoolTaint, Requirement, TaintSpec, Term, Workload, WorkloadToleration,
};
use taintlint::diagnostic::ObjectId;
use taintlint::load::{Loc, SourceFile, Span};

pub fn source() -> Arc<SourceFile> {
    SourceFile::new("test.yaml", String::new())
}

pub fn taint(key: &str, value: &str, effect: &str) -> TaintSpec {
    TaintSpec::new(key, value, effect)
}

pub fn tol(key: &str, operator: &str, value: &str, effect: &str) -> WorkloadToleration {
    WorkloadToleration {
        key: key.into(),
        operator: operator.into(),
        value: value.into(),
        effect: effect.into(),
        seconds: None,
        span: Span::default(),
        path: "".into(),
        scalars: Default::default(),
    }
}

pub fn req(key: &str, operator: &str, values: &[&str]) -> Requirement {
    Requirement {
        key: key.to_string(),
        operator: operator.to_string(),
        values: values.iter().map(|v| (*v).to_string()).collect(),
    }
}

pub fn term(expressions: Vec<Requirement>, fields: Vec<Requirement>) -> Term {
    Term {
        expressions,
        fields,
    }
}

/// A pod (or, with `daemonset`, a DaemonSet) with these tolerations and nothing else.
pub fn workload(tolerations: Vec<WorkloadToleration>) -> Workload {
    Workload {
        object: std::sync::Arc::new(ObjectId {
            api_version: "v1".to_string(),
            kind: "Pod".to_string(),
            namespace: None,
            name: Some("p".to_string()),
        }),
        kind: "Pod".into(),
        daemonset: false,
        role: None,
        operator_notes: Box::default(),
        source: source(),
        anchor: Span::default(),
        object_span: Span::default(),
        selector_span: None,
        spec_path: "spec".into(),
        tolerations,
        node_selector: Vec::new(),
        terms: None,
        node_name: None,
        host_network: false,
        preferred: Box::default(),
        avoided: Box::default(),
        hard_spread_keys: Box::default(),
        resources: Box::default(),
        spread_keys: Box::default(),
        pod_to_pod: None,
        pod_labels: Default::default(),
        kueue: None,
        selector_slot: None,
        runtime_class: None,
        best_effort: true,
        admission: None,
    }
}

/// A pool of Node objects (`nodes` names; empty for a template) with fixed labels.
pub fn pool(name: &str, labels: &[(&str, &str)], taints: Vec<TaintSpec>, nodes: &[&str]) -> Pool {
    let loc = Loc {
        source: source(),
        span: Span::default(),
    };
    Pool {
        name: name.into(),
        origin: if nodes.is_empty() {
            "Inventory"
        } else {
            "Node"
        },
        max_nodes: None,
        labels: labels
            .iter()
            .map(|(k, v)| (*k, LabelValues::one(v)))
            .collect(),
        taints: taints
            .into_iter()
            .map(|taint| PoolTaint {
                taint: taint.shared(),
                loc: None,
                startup: false,
            })
            .collect(),
        unschedulable: false,
        mixed_labels: Box::default(),
        open_labels: false,
        any_label: false,
        extended_resource_toleration: false,
        unknown_taints: Default::default(),
        nodes: nodes.iter().map(|n| (*n).to_string()).collect(),
        loc: Place::Here(loc),
        declared: false,
        terraform: None,
    }
}

/// The twenty whole repositories of `../shared/realworld` beside the checkout, or the folder
/// `TAINTLINT_REALWORLD` names (a git worktree has no `../shared` of its own); `None` in a
/// bare clone, where the suites over them skip.
pub fn realworld_trees() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TAINTLINT_REALWORLD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld")
        });
    dir.join("SOURCES.md").is_file().then_some(dir)
}
