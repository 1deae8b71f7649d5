//! The pod-to-pod half of scheduling, as far as one object shows it: the labels a spec's pods
//! get, whether a label selector selects them (`metav1.LabelSelectorAsSelector`: every
//! `matchLabels` entry and every expression must hold), and a workload's required
//! anti-affinity to its own pods on `kubernetes.io/hostname` (at most one of its pods per
//! node: the InterPodAffinity filter's "node(s) didn't match pod anti-affinity rules" for the
//! rest), with its replica count.

use crate::load::Span;
use crate::load::yaml::Node;
use crate::model::{Object, PodSpec};

/// The label every node has, naming it.
pub const HOSTNAME_KEY: &str = "kubernetes.io/hostname";

/// What a label selector makes of a set of labels.
#[derive(Debug, PartialEq, Eq)]
pub enum Selects {
    /// Every requirement holds.
    Yes,
    /// This requirement fails (in words: `` `app=web` ``, `` `tier In [a, b]` ``).
    No(String),
    /// A placeholder or an operator the server rejects: nothing can be said.
    Unknown,
}

/// A placeholder the cluster never sees as written (`${VAR}`, `{{ .Values.x }}`, `@VAR@`).
pub fn templated(s: &str) -> bool {
    s.contains("${") || s.contains("{{") || (s.len() > 2 && s.starts_with('@') && s.ends_with('@'))
}

/// The labels the spec's pods get: the template's `metadata.labels` (a Pod's own), in order.
pub fn pod_labels<'a>(object: &Object<'a>, spec_path: &str) -> Vec<(&'a str, &'a str)> {
    let mut parts: Vec<&str> = spec_path.split('.').filter(|p| !p.is_empty()).collect();
    // `spec.template.spec` → `spec.template`; `spec` → the object.
    parts.pop();
    parts.extend(["metadata", "labels"]);
    let Some(labels) = object.node.path(&parts) else {
        return Vec::new();
    };
    labels
        .as_map()
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((k.text()?, if v.is_null() { "" } else { v.text()? })))
        .collect()
}

/// Does `sel` (a `LabelSelector` mapping) select pods with `labels`?
pub fn selects(sel: &Node, labels: &[(&str, &str)]) -> Selects {
    if labels.iter().any(|(k, v)| templated(k) || templated(v)) {
        return Selects::Unknown;
    }
    let get = |k: &str| labels.iter().find(|(lk, _)| *lk == k).map(|(_, v)| *v);
    for (k, v) in sel
        .get("matchLabels")
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        let (Some(key), Some(want)) = (k.text(), if v.is_null() { Some("") } else { v.text() })
        else {
            return Selects::Unknown;
        };
        if templated(key) || templated(want) {
            return Selects::Unknown;
        }
        if get(key) != Some(want) {
            return Selects::No(format!("`{key}={want}`"));
        }
    }
    for ex in sel
        .get("matchExpressions")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let (Some(key), Some(op)) = (
            ex.get("key").and_then(Node::text),
            ex.get("operator").and_then(Node::text),
        ) else {
            return Selects::Unknown;
        };
        let values: Vec<&str> = ex
            .get("values")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(Node::text)
            .collect();
        if templated(key) || values.iter().any(|v| templated(v)) {
            return Selects::Unknown;
        }
        let have = get(key);
        let holds = match op {
            "In" => have.is_some_and(|h| values.contains(&h)),
            "NotIn" => have.is_none_or(|h| !values.contains(&h)),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            // Rejected by the server (`invalid-pod-affinity`, `invalid-topology-spread`).
            _ => return Selects::Unknown,
        };
        if !holds {
            let list = if values.is_empty() {
                String::new()
            } else {
                format!(" [{}]", values.join(", "))
            };
            return Selects::No(format!("`{key} {op}{list}`"));
        }
    }
    Selects::Yes
}

/// A workload whose pods repel each other per node: a required `podAntiAffinity` term on
/// `kubernetes.io/hostname` that selects its own pods, and how many pods it asks for.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SelfAntiAffinity {
    pub replicas: u32,
    /// The term's `topologyKey`.
    pub span: Span,
    /// Where the replica count is written.
    pub replicas_span: Span,
}

/// The workload's [`SelfAntiAffinity`], when the object says it for certain: a built-in
/// Deployment, StatefulSet, ReplicaSet or ReplicationController with a literal `replicas`
/// (1 when absent, the API default), a required anti-affinity term on the hostname whose
/// selector selects the template's own labels in the pod's namespace (no `namespaces` naming
/// others, no `namespaceSelector`).
pub fn self_anti_affinity(object: &Object<'_>, spec: &PodSpec<'_>) -> Option<SelfAntiAffinity> {
    if !spec.builtin
        || spec.path != "spec.template.spec"
        || !matches!(
            object.kind,
            "Deployment" | "StatefulSet" | "ReplicaSet" | "ReplicationController"
        )
    {
        return None;
    }
    let terms = spec
        .affinity?
        .value
        .get("podAntiAffinity")?
        .get("requiredDuringSchedulingIgnoredDuringExecution")?
        .as_seq()?;
    let labels = pod_labels(object, &spec.path);
    let own_ns = object.id.namespace.as_deref();
    let term = terms.iter().find(|t| {
        t.get("topologyKey").and_then(Node::text) == Some(HOSTNAME_KEY)
            && t.get("namespaceSelector").is_none_or(Node::is_null)
            && t.get("namespaces")
                .and_then(Node::as_seq)
                .is_none_or(|ns| ns.is_empty() || ns.iter().any(|n| n.text() == own_ns))
            && t.get("labelSelector")
                .filter(|s| s.as_map().is_some())
                .is_some_and(|s| selects(s, &labels) == Selects::Yes)
    })?;
    let span = term.get("topologyKey").map_or(term.span, |k| k.span);
    let (replicas, replicas_span) = match object.node.path(&["spec", "replicas"]) {
        None => (1, span),
        Some(n) => (
            u32::try_from(crate::load::yaml11::resolve(n).as_i64()?).ok()?,
            n.span,
        ),
    };
    Some(SelfAntiAffinity {
        replicas,
        span,
        replicas_span,
    })
}
