//! Workloads as the cross-reference sees them: the scheduling signature of every pod spec
//! (tolerations, node selector, required affinity, nodeName), extracted per file into owned,
//! shared values.

use std::sync::Arc;

use crate::diagnostic::ObjectId;
use crate::load::yaml::Node;
use crate::load::{SourceFile, Span};
use crate::model::scheduling::is_patch_directive;
use crate::model::{Object, PodCount, PodSpec, Schema, SelectorShape};
use crate::util::intern;

use crate::analysis::semantics::selector_slot::{SelectorSlot, selector_slot};
use crate::analysis::semantics::text;
use crate::analysis::semantics::well_known::is_well_known_label;

use super::toleration::{Scalars, WorkloadToleration};

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Requirement {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Term {
    pub expressions: Vec<Requirement>,
    pub fields: Vec<Requirement>,
}

/// The scheduling signature of one pod spec.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Workload {
    pub object: Arc<ObjectId>,
    pub kind: Arc<str>,
    /// One pod per node it may run on: a DaemonSet, or an operator's node agent (the DaemonSet
    /// controller's tolerations, `daemonset-misses-pools`).
    pub daemonset: bool,
    /// The operator's pod role (`broker`, `nodeSet masters`), when the object has roles.
    #[serde(default)]
    pub role: Option<Arc<str>>,
    /// What its operator adds or sets that the file does not write, one line each with the
    /// operator's source (for `explain`).
    #[serde(default)]
    pub operator_notes: Box<[Arc<str>]>,
    #[serde(with = "crate::load::codec::source")]
    pub source: Arc<SourceFile>,
    /// Where to point when the whole workload is meant (its `kind`, or the tolerations).
    pub anchor: Span,
    /// The whole object, for `explain --at FILE:LINE`.
    pub object_span: Span,
    pub selector_span: Option<Span>,
    pub spec_path: Arc<str>,
    pub tolerations: Vec<WorkloadToleration>,
    pub node_selector: Vec<(Arc<str>, Arc<str>)>,
    /// Required node affinity terms; `None` when absent (shared, see `util::intern_terms`).
    pub terms: Option<Arc<[Term]>>,
    pub node_name: Option<(String, Span)>,
    pub host_network: bool,
    /// Label keys its preferred node affinity draws it to (soft placement).
    #[serde(default)]
    pub preferred: Box<[Arc<str>]>,
    /// Label keys its preferred node affinity steers it away from (`NotIn`, `DoesNotExist`).
    #[serde(default)]
    pub avoided: Box<[Arc<str>]>,
    /// Extended resources its containers request (`nvidia.com/gpu`), and `resourceClaims`
    /// when it makes DRA resource claims: they pin the pod to nodes that have them as surely
    /// as a selector (see `PodSpec::requests_devices`).
    #[serde(default)]
    pub resources: Box<[Arc<str>]>,
    /// The custom topology keys of its hard topology spread constraints, also in `terms` as
    /// `Exists` requirements (see `with_spread_keys`).
    #[serde(default)]
    pub spread_keys: Box<[Arc<str>]>,
    /// The topology keys of every hard (`whenUnsatisfiable: DoNotSchedule`) topology spread
    /// constraint, well-known ones included: a node without one is filtered out ("missing
    /// required label"), which only a closed inventory can tell for the zone and region.
    #[serde(default)]
    pub hard_spread_keys: Box<[Arc<str>]>,
    /// The pod-to-pod half of its scheduling, when it has any (see `pod_affinity::PodToPod`):
    /// boxed, as most workloads have none.
    #[serde(default)]
    pub pod_to_pod: Option<Box<super::pod_affinity::PodToPod>>,
    /// The labels its pods get, hashed (see `pod_affinity::PodLabels`).
    #[serde(default)]
    pub pod_labels: super::pod_affinity::PodLabels,
    /// Its submission to a Kueue LocalQueue (see `kueue::submission`).
    #[serde(default)]
    pub kueue: Option<Box<super::kueue::Submission>>,
    /// Where a fix can add a `nodeSelector` (before `tolerations:`); `None` when it cannot
    /// (see [`crate::analysis::semantics::selector_slot`]).
    #[serde(default)]
    pub selector_slot: Option<SelectorSlot>,
    /// `runtimeClassName` (the RuntimeClass admission plugin adds its class's scheduling).
    #[serde(default)]
    pub runtime_class: Option<Arc<str>>,
    /// The pod's QoS class is BestEffort: no container, init container or pod-level
    /// `resources` names cpu or memory (`GetPodQOS` in pkg/apis/core/helper/qos/qos.go).
    #[serde(default)]
    pub best_effort: bool,
    /// What admission did to its pods (see `analysis::judgements::admission`); `None`: nothing.
    #[serde(default)]
    pub admission: Option<Box<super::admitted::Admitted>>,
}

impl Workload {
    /// How messages name it: `Deployment/ns/web`, `Kafka/ns/my-cluster kafka pods`.
    pub fn title(&self) -> String {
        self.title_with('/')
    }

    /// Its name with `sep` after the kind (`explain` writes `Deployment/ns/web`, as `--workload`
    /// takes it).
    pub fn title_with(&self, sep: char) -> String {
        let id = &self.object;
        let mut s = format!("{}{sep}", crate::util::text::escape(&id.kind));
        if let Some(ns) = &id.namespace {
            s.push_str(&crate::util::text::escape(ns));
            s.push('/');
        }
        s.push_str(&crate::util::text::escape(
            id.name.as_deref().unwrap_or("<unnamed>"),
        ));
        if let Some(role) = self.role.as_deref().filter(|r| !r.is_empty()) {
            s.push(' ');
            s.push_str(&crate::util::text::escape(role));
            s.push_str(" pods");
        }
        s
    }

    /// At most one of its pods per node (see `pod_affinity::self_anti_affinity`).
    pub fn self_anti_affinity(&self) -> Option<&super::pod_affinity::SelfAntiAffinity> {
        self.pod_to_pod.as_ref()?.self_anti_affinity.as_ref()
    }

    /// Its required `podAffinity` terms (see `pod_affinity::required_pod_affinity`).
    pub fn pod_affinity(&self) -> &[super::pod_affinity::AffinityTerm] {
        self.pod_to_pod.as_ref().map_or(&[], |p| &p.pod_affinity)
    }

    /// Its hard spread constraints over its own pods (see `pod_affinity::own_spreads`).
    pub fn spreads(&self) -> &[super::pod_affinity::Spread] {
        self.pod_to_pod.as_ref().map_or(&[], |p| &p.spreads)
    }

    /// How many pods it asks for, when certain and it has pod-to-pod constraints (see
    /// `pod_affinity::replicas`).
    pub fn replicas(&self) -> Option<u32> {
        self.pod_to_pod.as_ref()?.replicas
    }

    /// Does the pod select nodes only through the keys of its hard topology spread
    /// constraints (no nodeSelector, no required node affinity of its own)? Then a pool that
    /// fails its "selector" lacks a topology label, and messages say so.
    pub fn selects_by_spread_only(&self) -> bool {
        !self.spread_keys.is_empty()
            && self.node_selector.is_empty()
            && self.terms.as_deref().is_some_and(|terms| {
                matches!(terms, [t] if t.fields.is_empty() && t.expressions.len() == self.spread_keys.len())
            })
    }

    /// The places in its file that findings and fixes about it point at: a lite copy of the
    /// source records their positions (see `SourceFile::lite`).
    pub fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        [
            Some(self.anchor),
            Some(self.object_span),
            self.selector_span,
        ]
        .into_iter()
        .chain([self.node_name.as_ref().map(|(_, s)| *s)])
        .chain([self.selector_slot.map(|s| Span::empty(s.at))])
        .chain([self.kueue.as_ref().map(|k| k.span)])
        .flatten()
        .chain(
            self.pod_to_pod
                .as_deref()
                .into_iter()
                .flat_map(super::pod_affinity::PodToPod::spans),
        )
        .chain(self.tolerations.iter().flat_map(|t| {
            [
                Some(t.span),
                t.scalars.key,
                t.scalars.value,
                t.scalars.effect,
            ]
            .into_iter()
            .flatten()
        }))
    }
}

fn requirements(list: Option<&Node>) -> Vec<Requirement> {
    list.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(|r| Requirement {
            key: text(r.get("key")),
            operator: text(r.get("operator")),
            values: r
                .get("values")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .map(|v| text(Some(v)))
                .collect(),
        })
        .collect()
}

/// The scheduling signature of each pod spec of a workload object, one after another (the
/// caller keeps them: no vector of its own per object).
pub fn workloads<'o>(
    object: &'o Object<'_>,
    source: &'o Arc<SourceFile>,
) -> impl Iterator<Item = Workload> + 'o {
    // Only specs the scheduler will see: built-in workloads and pod-creating custom resources,
    // not tolerations lent to other pods (a RuntimeClass's, a Kueue ResourceFlavor's).
    let lent = object.kind == "RuntimeClass" || object.lends_tolerations();
    let specs: &[PodSpec<'_>] = if lent { &[] } else { &object.pod_specs };
    // A patch fragment (no `containers`) is merged onto a base kept elsewhere: what it says
    // about scheduling is not the pod's whole story.
    specs
        .iter()
        .filter(|spec| !spec.is_fragment())
        .map(move |spec| workload(object, spec, source))
}

fn workload(object: &Object<'_>, spec: &PodSpec<'_>, source: &Arc<SourceFile>) -> Workload {
    let synth = spec.synth.as_deref();
    let kind_span = object
        .node
        .entry("kind")
        .map_or(object.node.span, |(_, v)| v.span);
    let mut tolerations: Vec<WorkloadToleration> = spec
        .tolerations
        .iter()
        .map(|t| WorkloadToleration {
            scalars: Scalars {
                key: t
                    .key
                    .filter(|f| f.value.as_scalar().is_some())
                    .map(|f| f.value.span),
                value: t
                    .value
                    .filter(|f| f.value.as_scalar().is_some())
                    .map(|f| f.value.span),
                effect: t
                    .effect
                    .filter(|f| f.value.as_scalar().is_some())
                    .map(|f| f.value.span),
            },
            ..WorkloadToleration::of(t, intern(&t.path))
        })
        .collect();
    // An operator's: in the pod, written nowhere (no path).
    let synth_span = synth.and_then(|s| s.span).unwrap_or(kind_span);
    for t in synth.iter().flat_map(|s| &s.tolerations) {
        tolerations.push(WorkloadToleration {
            key: intern(&t.key),
            operator: intern(&t.operator),
            value: intern(&t.value),
            effect: intern(&t.effect),
            seconds: t.seconds,
            span: synth_span,
            path: intern(""),
            scalars: Scalars::default(),
        });
    }
    let (node_selector, expressions) = node_selection(spec);
    let terms = spec.required_affinity().map(|req| {
        req.get("nodeSelectorTerms")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .map(|t| Term {
                expressions: requirements(t.get("matchExpressions")),
                fields: requirements(t.get("matchFields")),
            })
            .collect::<Vec<_>>()
    });
    let mut spread = spread_keys(spec);
    for key in synth.iter().flat_map(|s| &s.spread_keys) {
        if !is_well_known_label(key) && !spread.iter().any(|r| r.key == *key) {
            spread.push(Requirement {
                key: key.clone(),
                operator: "Exists".to_string(),
                values: Vec::new(),
            });
        }
    }
    let mut added = expressions;
    added.extend(
        synth
            .iter()
            .flat_map(|s| &s.requirements)
            .map(|n| Requirement {
                key: n.key.clone(),
                operator: n.operator.clone(),
                values: n.values.clone(),
            }),
    );
    let terms = with_spread_keys(with_spread_keys(terms, &added), &spread).map(intern_terms);
    // Where to point when the whole workload is meant: its tolerations, or its kind — an
    // operator's role too (the message names the role), as for a built-in workload, so a
    // finding stays where earlier builds and their users' baselines and suppressions put it.
    let anchor = spec
        .tolerations_list
        .map(|f| f.key.span)
        .unwrap_or(kind_span);
    let selector_span = spec
        .node_selectors
        .first()
        .map(|s| s.part.key.span)
        .or_else(|| spec.affinity.as_ref().map(|f| f.key.span))
        .or_else(|| spec.node_affinity.as_ref().map(|f| f.key.span));
    let per_node = spec.per_node();
    let role_pods = spec.role.as_ref().map(|r| &r.pods);
    let mut pod_to_pod = super::pod_affinity::pod_to_pod(object, spec);
    if let Some(PodCount::Replicas(n, at)) = role_pods
        && synth.is_some_and(|s| s.one_per_node)
    {
        let own = super::pod_affinity::SelfAntiAffinity {
            replicas: *n,
            span: synth_span,
            replicas_span: at.unwrap_or(synth_span),
        };
        let p = pod_to_pod.get_or_insert_with(|| {
            Box::new(super::pod_affinity::PodToPod {
                self_anti_affinity: None,
                pod_affinity: Box::default(),
                spreads: Box::default(),
                replicas: Some(*n),
            })
        });
        p.self_anti_affinity.get_or_insert(own);
        p.replicas = Some(*n);
    }
    // An operator's pods get labels of its making: the template's, where it has one, are only
    // some of them.
    let labels = if spec.role.is_some() && !spec.path.ends_with(".spec") {
        super::pod_affinity::PodLabels::unknown()
    } else {
        super::pod_affinity::PodLabels::of(&super::pod_affinity::spec_labels(object, spec))
    };
    Workload {
        object: Arc::clone(&object.id),
        kind: intern(object.kind),
        daemonset: per_node
            || (object.kind == "DaemonSet" && matches!(object.schema, Schema::Builtin { .. })),
        role: spec.role.as_ref().map(|r| intern(&r.name)),
        operator_notes: synth
            .iter()
            .flat_map(|s| &s.notes)
            .map(|n| intern(n))
            .collect(),
        source: Arc::clone(source),
        anchor,
        object_span: object.node.span,
        selector_span,
        spec_path: intern(&spec.path),
        tolerations,
        node_selector,
        terms,
        node_name: spec
            .node_name
            .and_then(|f| Some((f.str()?.to_string(), f.span())))
            .filter(|(n, _)| !n.is_empty()),
        host_network: spec.host_network,
        preferred: spec.preferred_keys().into_iter().map(intern).collect(),
        avoided: spec.avoided_keys().into_iter().map(intern).collect(),
        resources: spec
            .extended_resources()
            .iter()
            .map(String::as_str)
            .chain(spec.has_resource_claims().then_some("resourceClaims"))
            .map(intern)
            .collect(),
        spread_keys: spread.iter().map(|r| intern(&r.key)).collect(),
        hard_spread_keys: hard_spread_keys(spec).into_iter().map(intern).collect(),
        pod_to_pod,
        pod_labels: labels,
        kueue: super::kueue::submission(object, spec),
        selector_slot: spec
            .tolerations_list
            .filter(|_| spec.selector_here)
            .and_then(|list| selector_slot(source, spec.node, list.key)),
        runtime_class: spec
            .runtime_class
            .as_ref()
            .and_then(|p| p.value.text())
            .filter(|n| !n.is_empty())
            .map(intern),
        best_effort: best_effort(spec),
        admission: None,
    }
}

/// A `nodeSelector` as pairs.
type Labels = Vec<(Arc<str>, Arc<str>)>;

/// The pod's `nodeSelector` (its map-shaped selectors merged, a later key winning; the
/// `matchLabels` of label-selector-shaped ones, and the single-valued `In` expressions of
/// those an operator turns into a map; what its operator adds), and the requirements of
/// the other expressions of label-selector-shaped ones (required node affinity every node
/// must meet: the operator ANDs them into every term).
fn node_selection(spec: &PodSpec<'_>) -> (Labels, Vec<Requirement>) {
    let mut pairs: Labels = Vec::new();
    // Where each key is in `pairs`: a selector of 100,000 keys is not searched per key.
    let mut at: std::collections::HashMap<Arc<str>, usize> = std::collections::HashMap::new();
    let mut put = |k: &str, v: &str| {
        let (k, v) = (intern(k), intern(v));
        match at.get(&k).and_then(|&i| pairs.get_mut(i)) {
            Some(p) => p.1 = v,
            None => {
                at.insert(Arc::clone(&k), pairs.len());
                pairs.push((k, v));
            }
        }
    };
    let mut expressions = Vec::new();
    for sel in &spec.node_selectors {
        let value = sel.part.value;
        let labels = match sel.shape {
            SelectorShape::Map => Some(value),
            _ => value.get("matchLabels"),
        };
        for (k, v) in labels.and_then(Node::as_map).unwrap_or_default() {
            if let Some(k) = k.text().filter(|k| !is_patch_directive(k)) {
                put(k, &text(Some(v)));
            }
        }
        if sel.shape == SelectorShape::Map {
            continue;
        }
        for r in requirements(value.get("matchExpressions")) {
            match (sel.shape, r.operator.as_str(), r.values.as_slice()) {
                (SelectorShape::LabelSelectorAsMap, "In", [one]) => put(&r.key, one),
                // The operator refuses any other expression (`invalid-node-selector` says
                // so): it adds nothing to the pods.
                (SelectorShape::LabelSelectorAsMap, _, _) => {}
                _ => expressions.push(r),
            }
        }
    }
    for (k, v) in spec.synth.iter().flat_map(|s| &s.node_selector) {
        put(k, v);
    }
    (pairs, expressions)
}

/// No cpu or memory in any container's, init container's or the pod's own `resources`
/// (`requests` or `limits`): the BestEffort QoS class.
fn best_effort(spec: &PodSpec<'_>) -> bool {
    !spec.all_resources().any(|r| {
        ["requests", "limits"].iter().any(|k| {
            r.get(k)
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .any(|(name, _)| matches!(name.text(), Some("cpu" | "memory")))
        })
    })
}

/// The required node-affinity terms with the topology keys of the hard topology spread
/// constraints added to each: the PodTopologySpread filter rejects a node without the key of a
/// `whenUnsatisfiable: DoNotSchedule` constraint ("node(s) didn't match pod topology spread
/// constraints (missing required label)"), so such a key pins the pod like an `Exists`
/// requirement. The well-known keys (`kubernetes.io/hostname`, the zone and region labels)
/// are on every node, and are left out.
fn with_spread_keys(terms: Option<Vec<Term>>, keys: &[Requirement]) -> Option<Vec<Term>> {
    if keys.is_empty() {
        return terms;
    }
    match terms {
        None => Some(vec![Term {
            expressions: keys.to_vec(),
            fields: Vec::new(),
        }]),
        Some(terms) => Some(
            terms
                .into_iter()
                .map(|mut t| {
                    // An empty term matches nothing, and still does.
                    if !t.expressions.is_empty() || !t.fields.is_empty() {
                        t.expressions.extend(keys.iter().cloned());
                    }
                    t
                })
                .collect(),
        ),
    }
}

/// The topology keys of the spec's hard topology spread constraints, each once.
fn hard_spread_keys<'a>(spec: &PodSpec<'a>) -> Vec<&'a str> {
    let mut keys: Vec<&str> = spec
        .spread_constraints()
        .iter()
        .filter(|c| c.get("whenUnsatisfiable").and_then(Node::text) == Some("DoNotSchedule"))
        .filter_map(|c| c.get("topologyKey").and_then(Node::text))
        .filter(|k| !k.is_empty())
        .collect();
    keys.dedup();
    keys
}

/// The `Exists` requirements of the custom topology keys of the spec's hard topology spread
/// constraints (see [`with_spread_keys`]).
fn spread_keys(spec: &PodSpec<'_>) -> Vec<Requirement> {
    spec.spread_constraints()
        .iter()
        .filter(|c| c.get("whenUnsatisfiable").and_then(Node::text) == Some("DoNotSchedule"))
        .filter_map(|c| c.get("topologyKey").and_then(Node::text))
        .filter(|k| !k.is_empty() && !is_well_known_label(k))
        .map(|k| Requirement {
            key: k.to_string(),
            operator: "Exists".to_string(),
            values: Vec::new(),
        })
        .collect()
}

thread_local! {
    static TERMS: std::cell::RefCell<std::collections::HashSet<Arc<[Term]>>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

/// One shared copy of these node-affinity terms per worker thread (see [`intern`]).
pub fn intern_terms(terms: Vec<Term>) -> std::sync::Arc<[Term]> {
    TERMS.with(|table| {
        let Ok(mut table) = table.try_borrow_mut() else {
            return std::sync::Arc::from(terms);
        };
        if let Some(shared) = table.get(terms.as_slice()) {
            return std::sync::Arc::clone(shared);
        }
        let shared: std::sync::Arc<[Term]> = std::sync::Arc::from(terms);
        if table.len() < crate::util::INTERN_MAX {
            table.insert(std::sync::Arc::clone(&shared));
        }
        shared
    })
}
