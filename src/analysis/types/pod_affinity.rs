//! The pod-to-pod half of scheduling, as far as one object shows it: the labels a spec's pods
//! get, whether a label selector selects them (`metav1.LabelSelectorAsSelector`: every
//! `matchLabels` entry and every expression must hold), and a workload's required
//! anti-affinity to its own pods on `kubernetes.io/hostname` (at most one of its pods per
//! node: the InterPodAffinity filter's "node(s) didn't match pod anti-affinity rules" for the
//! rest), with its replica count.

use std::sync::Arc;

use crate::load::Span;
use crate::load::yaml::Node;
use crate::model::{Object, PodSpec};
use crate::util::intern;

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
    let b = s.as_bytes();
    // `${` or `{{`: a `{` after a `$` or a `{` (one pass: asked of every label of every pod).
    memchr::memchr_iter(b'{', b).any(|i| i > 0 && matches!(b[i - 1], b'$' | b'{'))
        || (s.len() > 2 && s.starts_with('@') && s.ends_with('@'))
}

/// The labels the spec's pods get: the template's `metadata.labels` (a Pod's own), in order,
/// then those its operator adds.
pub fn spec_labels<'s>(object: &Object<'s>, spec: &'s PodSpec<'s>) -> Vec<(&'s str, &'s str)> {
    let mut labels = if spec.role.is_some() && !spec.path.ends_with(".spec") {
        Vec::new()
    } else {
        pod_labels(object, &spec.path)
    };
    for (k, v) in spec.synth.iter().flat_map(|s| &s.labels) {
        labels.push((k.as_str(), v.as_str()));
    }
    labels
}

/// The labels the spec's pods get: the template's `metadata.labels` (a Pod's own), in order.
pub fn pod_labels<'a>(object: &Object<'a>, spec_path: &str) -> Vec<(&'a str, &'a str)> {
    // `spec.template.spec` → `spec.template`; `spec` → the object.
    let mut segments = spec_path.split('.').filter(|p| !p.is_empty()).peekable();
    let mut template = Some(object.node);
    while let Some(segment) = segments.next() {
        if segments.peek().is_none() {
            break;
        }
        template = template.and_then(|n| n.get(segment));
    }
    let Some(labels) = template.and_then(|t| t.path(&["metadata", "labels"])) else {
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
    LabelSelector::read(sel).selects(labels)
}

/// One requirement of a label selector, in the order written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
enum Requirement {
    /// A `matchLabels` entry.
    Label(Arc<str>, Arc<str>),
    /// A `matchExpressions` entry: key, operator, values.
    Expression(Arc<str>, Arc<str>, Box<[Arc<str>]>),
    /// An entry whose key, value or operator is not text: nothing can be said.
    Unreadable,
    /// No selector at all (a null `labelSelector`): selects no pod.
    Nothing,
}

/// A `metav1.LabelSelector` read out of its file, so that selectors and the pods they may
/// select can be compared across files (`pod-affinity-matches-nothing`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct LabelSelector {
    requirements: Box<[Requirement]>,
}

impl LabelSelector {
    /// The selector of a term without one: it selects no pod.
    pub fn nothing() -> Self {
        LabelSelector {
            requirements: Box::new([Requirement::Nothing]),
        }
    }

    /// Is it the selector of a term without one?
    pub fn is_nothing(&self) -> bool {
        matches!(*self.requirements, [Requirement::Nothing])
    }

    pub fn read(sel: &Node) -> Self {
        let mut requirements = Vec::new();
        for (k, v) in sel
            .get("matchLabels")
            .and_then(Node::as_map)
            .unwrap_or_default()
        {
            requirements.push(
                match (k.text(), if v.is_null() { Some("") } else { v.text() }) {
                    (Some(key), Some(want)) => Requirement::Label(intern(key), intern(want)),
                    _ => Requirement::Unreadable,
                },
            );
        }
        for ex in sel
            .get("matchExpressions")
            .and_then(Node::as_seq)
            .unwrap_or_default()
        {
            requirements.push(
                match (
                    ex.get("key").and_then(Node::text),
                    ex.get("operator").and_then(Node::text),
                ) {
                    (Some(key), Some(op)) => Requirement::Expression(
                        intern(key),
                        intern(op),
                        ex.get("values")
                            .and_then(Node::as_seq)
                            .unwrap_or_default()
                            .iter()
                            .filter_map(Node::text)
                            .map(intern)
                            .collect(),
                    ),
                    _ => Requirement::Unreadable,
                },
            );
        }
        LabelSelector {
            requirements: requirements.into(),
        }
    }

    /// Does it select pods with `labels`? Every `matchLabels` entry and every expression must hold
    /// (`metav1.LabelSelectorAsSelector`,
    /// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go).
    pub fn selects<L: Labelled + ?Sized>(&self, labels: &L) -> Selects {
        if !labels.known() {
            return Selects::Unknown;
        }
        for r in &self.requirements {
            match r {
                Requirement::Unreadable => return Selects::Unknown,
                Requirement::Nothing => return Selects::No("no `labelSelector`".to_string()),
                Requirement::Label(key, want) => {
                    if templated(key) || templated(want) {
                        return Selects::Unknown;
                    }
                    if !labels.has(key, want) {
                        return Selects::No(format!("`{key}={want}`"));
                    }
                }
                Requirement::Expression(key, op, values) => {
                    if templated(key) || values.iter().any(|v| templated(v)) {
                        return Selects::Unknown;
                    }
                    let listed = || values.iter().any(|v| labels.has(key, v));
                    let holds = match &**op {
                        "In" => listed(),
                        // Absent, or a value not listed (a pod has one value per key).
                        "NotIn" => !listed(),
                        "Exists" => labels.has_key(key),
                        "DoesNotExist" => !labels.has_key(key),
                        // Rejected by the server (`invalid-pod-affinity`,
                        // `invalid-topology-spread`).
                        _ => return Selects::Unknown,
                    };
                    if !holds {
                        let list = if values.is_empty() {
                            String::new()
                        } else {
                            let v: Vec<&str> = values.iter().map(|v| &**v).collect();
                            format!(" [{}]", v.join(", "))
                        };
                        return Selects::No(format!("`{key} {op}{list}`"));
                    }
                }
            }
        }
        Selects::Yes
    }

    /// The selector in words, for messages: `` `app=web`, `tier In [a, b]` ``.
    pub fn display(&self) -> String {
        let parts: Vec<String> = self
            .requirements
            .iter()
            .map(|r| match r {
                Requirement::Label(k, v) => format!("`{k}={v}`"),
                Requirement::Expression(k, op, values) if values.is_empty() => {
                    format!("`{k} {op}`")
                }
                Requirement::Expression(k, op, values) => {
                    let v: Vec<&str> = values.iter().map(|v| &**v).collect();
                    format!("`{k} {op} [{}]`", v.join(", "))
                }
                Requirement::Unreadable => "…".to_string(),
                Requirement::Nothing => "no pod (no `labelSelector`)".to_string(),
            })
            .collect();
        if parts.is_empty() {
            "every pod".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// Which namespaces a pod affinity term looks in (`namespaces`, `namespaceSelector`; the
/// pod's own when neither is given: pkg/scheduler/framework/types.go, `newAffinityTerm`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Namespaces {
    /// The pod's own namespace.
    Own,
    /// These, named in `namespaces`.
    Listed(Box<[Arc<str>]>),
    /// A `namespaceSelector`: every namespace (`{}`), or ones whose labels the files may not
    /// show; either way any.
    Any,
}

/// A required pod affinity term, read out of its file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct AffinityTerm {
    pub selector: LabelSelector,
    pub namespaces: Namespaces,
    pub topology_key: Arc<str>,
    /// The term's `labelSelector` key (or the term).
    pub span: Span,
}

impl AffinityTerm {
    /// Could a pod in namespace `ns` be counted by this term of a pod in namespace `own`? An
    /// unwritten namespace (applied with `-n`) may be any.
    pub fn looks_in(&self, own: Option<&str>, ns: Option<&str>) -> bool {
        match &self.namespaces {
            Namespaces::Any => true,
            Namespaces::Own => own.is_none() || ns.is_none() || own == ns,
            Namespaces::Listed(list) => ns.is_none_or(|ns| list.iter().any(|n| **n == *ns)),
        }
    }
}

/// The spec's required `podAffinity` terms (not anti-affinity), each with a label selector;
/// empty when there are none or one cannot be read.
pub fn required_pod_affinity(spec: &PodSpec<'_>) -> Box<[AffinityTerm]> {
    let Some(terms) = spec
        .pod_affinity
        .as_ref()
        .and_then(|a| {
            a.value
                .get("requiredDuringSchedulingIgnoredDuringExecution")
        })
        .and_then(Node::as_seq)
    else {
        return Box::default();
    };
    let mut out = Vec::new();
    for t in terms {
        // "If it's null, this PodAffinityTerm matches with no Pods" (the API's field doc,
        // staging/src/k8s.io/api/core/v1/types.go); a selector that is not a mapping is a
        // template or the validation rules' business.
        let (span, selector) = match t.entry("labelSelector") {
            None => (t.span, LabelSelector::nothing()),
            Some((key, sel)) if sel.is_null() => (key.span, LabelSelector::nothing()),
            Some((key, sel)) if sel.as_map().is_some() => (key.span, LabelSelector::read(sel)),
            Some(_) => return Box::default(),
        };
        let namespaces = match (
            t.get("namespaceSelector").filter(|n| !n.is_null()),
            t.get("namespaces").and_then(Node::as_seq),
        ) {
            (Some(_), _) => Namespaces::Any,
            (None, Some(list)) if !list.is_empty() => {
                Namespaces::Listed(list.iter().filter_map(Node::text).map(intern).collect())
            }
            _ => Namespaces::Own,
        };
        out.push(AffinityTerm {
            selector,
            namespaces,
            topology_key: intern(t.get("topologyKey").and_then(Node::text).unwrap_or("")),
            span,
        });
    }
    out.into()
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
    // Those kinds, with a count the object says for certain.
    let (replicas, replicas_span) = replicas(object, spec)?;
    let terms = spec
        .pod_anti_affinity
        .as_ref()?
        .value
        .get("requiredDuringSchedulingIgnoredDuringExecution")?
        .as_seq()?;
    let labels = spec_labels(object, spec);
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
    Some(SelfAntiAffinity {
        replicas,
        span,
        replicas_span: replicas_span.unwrap_or(span),
    })
}

/// How many pods a built-in Deployment, StatefulSet, ReplicaSet or ReplicationController
/// asks for, when the object says it for certain: a literal `replicas` (with where it is
/// written), or 1 when absent (the API default); an operator's role, as its declaration
/// counts them. `None` for other kinds and templated counts.
pub fn replicas(object: &Object<'_>, spec: &PodSpec<'_>) -> Option<(u32, Option<Span>)> {
    if let Some(role) = &spec.role {
        return match role.pods {
            crate::model::PodCount::Replicas(n, at) => Some((n, at)),
            _ => None,
        };
    }
    if !spec.builtin
        || spec.path != "spec.template.spec"
        || !matches!(
            object.kind,
            "Deployment" | "StatefulSet" | "ReplicaSet" | "ReplicationController"
        )
    {
        return None;
    }
    match object.node.path(&["spec", "replicas"]) {
        None => Some((1, None)),
        Some(n) => Some((
            u32::try_from(crate::load::yaml11::resolve(n).as_i64()?).ok()?,
            Some(n.span),
        )),
    }
}

/// A hard topology spread constraint (`whenUnsatisfiable: DoNotSchedule`) that counts the
/// workload's own pods, read out of its file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Spread {
    pub topology_key: Arc<str>,
    pub max_skew: u32,
    /// `nodeAffinityPolicy: Honor` (the default): only nodes the pod's node selector and
    /// required node affinity admit are domains.
    pub honor_affinity: bool,
    /// `nodeTaintsPolicy: Honor` (not the default): only nodes whose taints the pod tolerates
    /// are domains.
    pub honor_taints: bool,
    /// `minDomains`, when written (at least 1).
    #[serde(default)]
    pub min_domains: Option<u32>,
    /// The `topologyKey` (or the constraint).
    pub span: Span,
}

/// The spec's hard spread constraints whose `labelSelector` selects the spec's own pods, with a
/// literal `maxSkew` (templated or invalid ones are left to other rules).
pub fn own_spreads(object: &Object<'_>, spec: &PodSpec<'_>) -> Box<[Spread]> {
    let list = spec.spread_constraints();
    if list.is_empty() {
        return Box::default();
    }
    let labels = spec_labels(object, spec);
    list.iter()
        .filter(|c| c.get("whenUnsatisfiable").and_then(Node::text) == Some("DoNotSchedule"))
        .filter(|c| {
            c.get("labelSelector")
                .filter(|s| s.as_map().is_some())
                .is_some_and(|s| selects(s, &labels) == Selects::Yes)
        })
        .filter_map(|c| {
            let (key_node, key) = c
                .entry("topologyKey")
                .and_then(|(_, v)| Some((v, v.text()?)))?;
            let skew = crate::load::yaml11::resolve(c.get("maxSkew")?).as_i64()?;
            Some(Spread {
                topology_key: intern(key),
                max_skew: u32::try_from(skew).ok().filter(|s| *s > 0)?,
                honor_affinity: c.get("nodeAffinityPolicy").and_then(Node::text) != Some("Ignore"),
                honor_taints: c.get("nodeTaintsPolicy").and_then(Node::text) == Some("Honor"),
                min_domains: c
                    .get("minDomains")
                    .and_then(|m| crate::load::yaml11::resolve(m).as_i64())
                    .and_then(|m| u32::try_from(m).ok())
                    .filter(|m| *m > 0),
                span: key_node.span,
            })
        })
        .collect()
}

/// The pod-to-pod half of a workload's scheduling, read out of its file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PodToPod {
    pub self_anti_affinity: Option<SelfAntiAffinity>,
    pub pod_affinity: Box<[AffinityTerm]>,
    pub spreads: Box<[Spread]>,
    pub replicas: Option<u32>,
}

impl PodToPod {
    /// Every place it points at (kept when the file's text is let go: `FileReport::make_lite`).
    pub fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.self_anti_affinity
            .iter()
            .flat_map(|a| [a.span, a.replicas_span])
            .chain(self.pod_affinity.iter().map(|t| t.span))
            .chain(self.spreads.iter().map(|s| s.span))
    }
}

/// The spec's [`PodToPod`]; `None` when it has none of it.
pub fn pod_to_pod(object: &Object<'_>, spec: &PodSpec<'_>) -> Option<Box<PodToPod>> {
    let self_anti_affinity = self_anti_affinity(object, spec);
    let pod_affinity = required_pod_affinity(spec);
    let spreads = own_spreads(object, spec);
    if self_anti_affinity.is_none() && pod_affinity.is_empty() && spreads.is_empty() {
        return None;
    }
    Some(Box::new(PodToPod {
        self_anti_affinity,
        pod_affinity,
        spreads,
        replicas: replicas(object, spec).map(|(n, _)| n),
    }))
}

/// A pod's labels as selectors test them, kept small: every workload of a run keeps them until
/// the cross-reference (`pod-affinity-matches-nothing` compares selectors with every pod). The
/// sorted hashes of each key and each `key=value`; `None` when a label is a placeholder
/// (nothing can be said). Hashes are only compared within one run; the whole-run view shares
/// them with the workload (`Arc`).
#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct PodLabels(Option<Arc<[u64]>>);

fn label_hash(key: &str, value: Option<&str>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    key.hash(&mut h);
    value.hash(&mut h);
    h.finish()
}

impl PodLabels {
    /// Labels nothing can be said of (an operator's pods).
    pub fn unknown() -> Self {
        PodLabels(None)
    }

    pub fn of(labels: &[(&str, &str)]) -> Self {
        if labels.iter().any(|(k, v)| templated(k) || templated(v)) {
            return PodLabels(None);
        }
        let mut hashes: Vec<u64> = labels
            .iter()
            .flat_map(|(k, v)| [label_hash(k, None), label_hash(k, Some(v))])
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        PodLabels(Some(hashes.into()))
    }

    fn holds(hashes: &[u64], key: &str, value: Option<&str>) -> bool {
        hashes.binary_search(&label_hash(key, value)).is_ok()
    }
}

/// What a selector needs of a pod's labels.
pub trait Labelled {
    /// `None`: a placeholder label, nothing can be said.
    fn known(&self) -> bool;
    fn has_key(&self, key: &str) -> bool;
    fn has(&self, key: &str, value: &str) -> bool;
}

impl Labelled for PodLabels {
    fn known(&self) -> bool {
        self.0.is_some()
    }
    fn has_key(&self, key: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|h| PodLabels::holds(h, key, None))
    }
    fn has(&self, key: &str, value: &str) -> bool {
        self.0
            .as_deref()
            .is_some_and(|h| PodLabels::holds(h, key, Some(value)))
    }
}

impl Labelled for [(&str, &str)] {
    fn known(&self) -> bool {
        !self.iter().any(|(k, v)| templated(k) || templated(v))
    }
    fn has_key(&self, key: &str) -> bool {
        self.iter().any(|(k, _)| *k == key)
    }
    fn has(&self, key: &str, value: &str) -> bool {
        self.iter().any(|(k, v)| *k == key && *v == value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selector(yaml: &str) -> LabelSelector {
        let stream = crate::load::yaml::parse(yaml, crate::load::yaml::Limits::default());
        LabelSelector::read(stream.documents[0].root.as_ref().expect("a document"))
    }

    #[test]
    fn hashed_labels_select_as_the_labels_do() {
        let labels: &[(&str, &str)] = &[("app", "web"), ("tier", "front"), ("empty", "")];
        let hashed = PodLabels::of(labels);
        for (yaml, want) in [
            ("matchLabels: {app: web}", true),
            ("matchLabels: {app: web, tier: back}", false),
            ("matchLabels: {empty: ''}", true),
            (
                "matchExpressions: [{key: app, operator: In, values: [api, web]}]",
                true,
            ),
            (
                "matchExpressions: [{key: app, operator: NotIn, values: [web]}]",
                false,
            ),
            (
                "matchExpressions: [{key: zone, operator: NotIn, values: [a]}]",
                true,
            ),
            ("matchExpressions: [{key: tier, operator: Exists}]", true),
            (
                "matchExpressions: [{key: tier, operator: DoesNotExist}]",
                false,
            ),
            ("matchExpressions: [{key: web, operator: Exists}]", false),
            ("{}", true),
        ] {
            let sel = selector(yaml);
            assert_eq!(sel.selects(labels) == Selects::Yes, want, "{yaml}");
            assert_eq!(sel.selects(&hashed), sel.selects(labels), "{yaml}");
        }
        let templated = PodLabels::of(&[("app", "${APP}")]);
        assert_eq!(
            selector("matchLabels: {app: web}").selects(&templated),
            Selects::Unknown
        );
        assert!(matches!(
            LabelSelector::nothing().selects(&hashed),
            Selects::No(_)
        ));
    }
}
