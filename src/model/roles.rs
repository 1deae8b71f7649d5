//! Pod roles: where a kind whose pods an operator makes keeps each role's placement, read out
//! of an object as the operator reads it. One vocabulary serves the built-in catalogue
//! (`model::operators`) and the config's `workload-kinds:`, written the same way:
//!
//! ```yaml
//! kind: CephCluster
//! apiVersion: ceph.rook.io/*        # `group/*`: any version; omitted: any apiVersion
//! roles:
//!   - name: mon                     # messages say `CephCluster/rook-ceph/ceph mon pods`
//!     at: spec.placement.mon        # the role's place; `list[*]` for each item, `*` for each entry
//!     tolerations: {from: [/spec.placement.all.tolerations, tolerations], merge: append}
//!     nodeAffinity: [/spec.placement.all.nodeAffinity, nodeAffinity]
//!     replicas: /spec.mon.count
//!     defaultReplicas: 3
//! ```
//!
//! Paths are relative to the role's place, or to the object's root when they start with `/`.
//! A field's sources are layered, the first at the bottom: by default the last one written
//! wins (`merge: override`); `append` concatenates lists, `keys` merges maps key by key, and
//! `byIndex` merges lists item by item (Flink's pod template merge). An `affinity` written later
//! replaces an earlier one whole, unless `merge: keys` takes each of its blocks (`nodeAffinity`,
//! `podAffinity`, `podAntiAffinity`) on its own. `podSpec` names mappings
//! shaped like a pod's spec (`template.spec`; `.` for the role's place itself), each a source
//! of every field, below the field's own sources. `optional: true` makes the role exist only
//! where its place is written, `if: PATH` only where that path is.

use crate::load::Span;
use crate::load::yaml::Node;
use crate::settings::{Merge, Pods, RoleDecl, SelectorShape, Sources, WorkloadKind};

use super::join;
use super::scheduling::{
    Field, Part, PodCount, PodSpec, Role, Selector, Synth, Toleration, Typed, Written,
    tolerations_of,
};

/// What an operator adds to a role's pods, worked out from the object and the role's fields.
pub type SynthFn = fn(&Hook<'_, '_>) -> Synth;

/// What a [`SynthFn`] sees.
pub struct Hook<'s, 'a> {
    /// The object's root.
    pub object: &'a Node,
    /// The role's pod spec as gathered so far.
    pub spec: &'s PodSpec<'a>,
    /// The role's declared name (`mon`), without its instance.
    pub role: &'s str,
    /// The role's place, when written.
    pub at: Option<&'a Node>,
}

impl<'a> Hook<'_, 'a> {
    /// The node at a dotted path from the root.
    pub fn get(&self, path: &str) -> Option<&'a Node> {
        path_of(self.object, path)
    }

    /// The node at a dotted path from the role's place.
    pub fn here(&self, path: &str) -> Option<&'a Node> {
        self.at.and_then(|n| path_of(n, path))
    }
}

/// The node at a dotted path of mapping keys.
pub fn path_of<'a>(node: &'a Node, path: &str) -> Option<&'a Node> {
    if path.is_empty() {
        return Some(node);
    }
    path.split('.').try_fold(node, |n, key| n.get(key))
}

/// The key and value at a dotted path (`None` for the root itself).
fn entry_of<'a>(node: &'a Node, path: &str) -> Option<(&'a Node, &'a Node)> {
    let (parent, last) = match path.rsplit_once('.') {
        Some((p, l)) => (path_of(node, p)?, l),
        None => (node, path),
    };
    parent.entry(last)
}

/// One instance of a role: its place's path and node (when written), and its name.
struct Instance<'a> {
    path: String,
    node: Option<&'a Node>,
    /// The key of the place's entry, when it is one.
    key: Option<&'a Node>,
    name: String,
}

/// The instances of a role's place pattern (`spec.nodeSets[*]`, `spec.components.*`).
fn instances<'a>(root: &'a Node, decl: &RoleDecl) -> Vec<Instance<'a>> {
    let mut out = vec![Instance {
        path: String::new(),
        node: Some(root),
        key: None,
        name: String::new(),
    }];
    if decl.at.is_empty() {
        return out;
    }
    for seg in decl.at.split('.') {
        let mut next = Vec::new();
        for inst in out {
            if seg == "*" {
                for (k, v) in inst.node.and_then(Node::as_map).unwrap_or_default() {
                    let Some(key) = k.text() else { continue };
                    next.push(Instance {
                        path: join(&inst.path, key),
                        node: Some(v),
                        key: Some(k),
                        name: key.to_string(),
                    });
                }
            } else if let Some(list) = seg.strip_suffix("[*]") {
                let items = inst
                    .node
                    .and_then(|n| n.get(list))
                    .and_then(Node::as_seq)
                    .unwrap_or_default();
                for (i, item) in items.iter().enumerate() {
                    let named = decl
                        .named_by
                        .as_deref()
                        .and_then(|f| item.get(f))
                        .and_then(Node::text)
                        .filter(|n| !n.is_empty())
                        .map_or_else(|| i.to_string(), str::to_string);
                    next.push(Instance {
                        path: format!("{}[{i}]", join(&inst.path, list)),
                        node: Some(item),
                        key: None,
                        name: named,
                    });
                }
            } else {
                let entry = inst.node.and_then(|n| n.entry(seg));
                next.push(Instance {
                    path: join(&inst.path, seg),
                    node: entry.map(|(_, v)| v),
                    key: entry.map(|(k, _)| k),
                    name: inst.name,
                });
            }
        }
        out = next;
    }
    out
}

/// Where sources are looked up: the object's root and the role's place.
struct Places<'a> {
    root: &'a Node,
    at: Option<&'a Node>,
    at_path: String,
}

impl<'a> Places<'a> {
    /// The field at `path` (relative to the role's place, or absolute with `/`), written and
    /// not null.
    fn part(&self, path: &str) -> Option<Part<'a>> {
        if path == "." {
            let at = self.at?;
            return Some(Part {
                key: at,
                value: at,
                path: self.at_path.clone(),
            });
        }
        let (base, rel, prefix) = match path.strip_prefix('/') {
            Some(abs) => (Some(self.root), abs, String::new()),
            None => (self.at, path, self.at_path.clone()),
        };
        let (k, v) = entry_of(base?, rel)?;
        (!v.is_null()).then(|| Part {
            key: k,
            value: v,
            path: join(&prefix, rel),
        })
    }

    /// The field path of a source path.
    fn full(&self, path: &str) -> String {
        match path.strip_prefix('/') {
            Some(abs) => abs.to_string(),
            None if path == "." => self.at_path.clone(),
            None => join(&self.at_path, path),
        }
    }

    /// Each written source of a field: the pod specs' `field`, then the field's own paths.
    fn sources(&self, pod_specs: &[String], field: &str, own: &Sources) -> Vec<Part<'a>> {
        pod_specs
            .iter()
            .map(|p| sub(p, field))
            .chain(own.paths.iter().cloned())
            .filter_map(|p| self.part(&p))
            .collect()
    }
}

/// The path of a field of the mapping at `p` (`.`: the role's place).
fn sub(p: &str, field: &str) -> String {
    if p == "." {
        field.to_string()
    } else {
        join(p, field)
    }
}

/// Written: a non-empty list or map, or any other value.
fn written(p: &Part<'_>) -> bool {
    match (p.value.as_seq(), p.value.as_map()) {
        (Some(s), _) => !s.is_empty(),
        (_, Some(m)) => !m.is_empty(),
        _ => true,
    }
}

/// The last source written (`Override`).
fn last<'a>(parts: Vec<Part<'a>>) -> Option<Part<'a>> {
    parts.into_iter().rev().find(written)
}

/// Each pod role of `object` (its root node) of `kind`, as the operator makes its pods.
pub fn pod_specs<'a>(
    object: &'a Node,
    kind: &WorkloadKind,
    synth: Option<SynthFn>,
) -> Vec<PodSpec<'a>> {
    let mut out = Vec::new();
    for decl in &kind.roles {
        for inst in instances(object, decl) {
            if decl.optional && inst.node.is_none() {
                continue;
            }
            let places = Places {
                root: object,
                at: inst.node,
                at_path: inst.path.clone(),
            };
            if !decl.present.is_empty() && !decl.present.iter().any(|p| places.part(p).is_some()) {
                continue;
            }
            if decl
                .enabled
                .as_deref()
                .and_then(|p| places.part(p))
                .is_some_and(|p| crate::load::yaml11::resolve(p.value).as_bool() == Some(false))
            {
                continue;
            }
            let mut spec = role_spec(&places, decl, &inst);
            if let Some(f) = synth {
                let s = f(&Hook {
                    object,
                    spec: &spec,
                    role: &decl.name,
                    at: inst.node,
                });
                if s.none {
                    continue;
                }
                if !s.is_empty() {
                    spec.synth = Some(Box::new(s));
                }
            }
            out.push(spec);
        }
    }
    out
}

fn role_spec<'a>(places: &Places<'a>, decl: &RoleDecl, inst: &Instance<'a>) -> PodSpec<'a> {
    let mut spec = PodSpec::empty(inst.node.unwrap_or(places.root), inst.path.clone(), false);
    let name = match (decl.name.as_str(), inst.name.as_str()) {
        (n, "") => n.to_string(),
        ("", i) => i.to_string(),
        (n, i) => format!("{n} {i}"),
    };
    let pod_specs: Vec<Part<'a>> = decl
        .pod_spec
        .iter()
        .filter_map(|p| places.part(p))
        .collect();
    let ps_paths = &decl.pod_spec;
    for p in &pod_specs {
        spec.written.push(Written {
            part: p.clone(),
            typed: Typed::OperatorPodSpec,
        });
        spec.node_name = Field::of(p.value, "nodeName")
            .filter(|f| !f.value.is_null())
            .or(spec.node_name);
        spec.host_network |= p.value.get("hostNetwork").and_then(Node::text) == Some("true");
        spec.resource_claims |= p
            .value
            .get("resourceClaims")
            .and_then(Node::as_seq)
            .is_some_and(|c| !c.is_empty());
    }
    let mut own = |parts: &[Part<'a>], typed: Typed| {
        for p in parts {
            // A source that is one of the pod specs' fields is walked with its pod spec.
            if !pod_specs
                .iter()
                .any(|s| s.path.len() < p.path.len() && p.path.starts_with(&format!("{}.", s.path)))
            {
                spec.written.push(Written {
                    part: p.clone(),
                    typed,
                });
            }
        }
    };

    // Tolerations.
    let lists = places.sources(ps_paths, "tolerations", &decl.tolerations);
    own(&lists, Typed::Tolerations);
    let (tolerations, list) = merge_tolerations(&lists, decl.tolerations.merge);
    spec.tolerations = tolerations;
    spec.tolerations_list = list.map(|l| l.field());

    // Node selectors: the pod specs' are maps, the role's own are of its shape.
    let mut selectors: Vec<Selector<'a>> = Vec::new();
    for p in ps_paths {
        // A `{matchLabels: …}` there is no pod's nodeSelector (`yaml-type-mismatch` says so).
        if let Some(part) = places
            .part(&sub(p, "nodeSelector"))
            .filter(|s| !super::scheduling::is_label_selector(s.value))
        {
            selectors.push(Selector {
                part,
                shape: SelectorShape::Map,
            });
        }
    }
    for p in &decl.node_selector.paths {
        if let Some(part) = places.part(p) {
            let typed = match decl.selector_shape {
                SelectorShape::Map => Typed::NodeSelector,
                _ => Typed::LabelSelector,
            };
            own(std::slice::from_ref(&part), typed);
            selectors.push(Selector {
                part,
                shape: decl.selector_shape,
            });
        }
    }
    spec.node_selectors = match decl.node_selector.merge {
        Merge::Keys | Merge::Append | Merge::ByIndex => selectors,
        Merge::Override => selectors
            .into_iter()
            .rev()
            .find(|s| written(&s.part))
            .into_iter()
            .collect(),
    };

    // Affinity: the last block written wins whole, or (`keys`) each of its blocks does.
    let affinities = places.sources(ps_paths, "affinity", &decl.affinity);
    own(&affinities, Typed::Affinity);
    let effective: Vec<&Part<'a>> = match decl.affinity.merge {
        Merge::Override => affinities
            .iter()
            .rev()
            .find(|p| written(p))
            .into_iter()
            .collect(),
        _ => affinities.iter().collect(),
    };
    let block = |name: &str, own_sources: &Sources| {
        let mut parts: Vec<Part<'a>> = effective
            .iter()
            .filter_map(|a| Part::of(a.value, name, &a.path))
            .collect();
        parts.extend(own_sources.paths.iter().filter_map(|p| places.part(p)));
        parts
    };
    let node_affinity = block("nodeAffinity", &decl.node_affinity);
    let pod_affinity = block("podAffinity", &decl.pod_affinity);
    let pod_anti_affinity = block("podAntiAffinity", &decl.pod_anti_affinity);
    for (sources, typed) in [
        (&decl.node_affinity, Typed::NodeAffinity),
        (&decl.pod_affinity, Typed::Other),
        (&decl.pod_anti_affinity, Typed::Other),
    ] {
        let parts: Vec<Part<'a>> = sources
            .paths
            .iter()
            .filter_map(|p| places.part(p))
            .collect();
        own(&parts, typed);
    }
    spec.affinity = last(affinities);
    spec.node_affinity = last(node_affinity);
    spec.pod_affinity = last(pod_affinity);
    spec.pod_anti_affinity = last(pod_anti_affinity);

    let spread = places.sources(ps_paths, "topologySpreadConstraints", &decl.topology_spread);
    own(&spread, Typed::Other);
    spec.topology_spread = last(spread);
    let priority = places.sources(ps_paths, "priorityClassName", &decl.priority_class);
    own(&priority, Typed::Other);
    spec.priority_class = last(priority);
    let runtime = places.sources(ps_paths, "runtimeClassName", &decl.runtime_class);
    own(&runtime, Typed::Other);
    spec.runtime_class = last(runtime);

    for p in places.sources(ps_paths, "resources", &decl.resources) {
        spec.resources.push(p.value);
    }
    for field in ["containers", "initContainers"] {
        for p in places.sources(ps_paths, field, &Sources::default()) {
            spec.containers.push(p.value);
        }
    }
    for p in decl.containers.paths.iter().filter_map(|p| places.part(p)) {
        spec.containers.push(p.value);
    }
    // A role whose pods are one pod spec is that pod spec (its path, its mapping).
    if let [only] = pod_specs.as_slice()
        && decl.pod_spec.len() == 1
    {
        spec.path = only.path.clone();
        spec.node = only.value;
    }
    // A fix may add a pod's `nodeSelector` map beside the tolerations when the spec is a pod
    // spec, or the role reads a map there.
    let here = join(&spec.path, "nodeSelector");
    spec.selector_here = pod_specs.iter().any(|p| p.path == spec.path)
        || (decl.selector_shape == SelectorShape::Map
            && decl
                .node_selector
                .paths
                .iter()
                .any(|p| places.full(p) == here));
    // One physical field read by two sources is walked once.
    let mut seen = std::collections::HashSet::new();
    spec.written
        .retain(|w| seen.insert((w.part.value.span.start, w.part.value.span.end)));

    spec.role = Some(Role {
        name,
        pods: pods(places, &decl.pods),
        // Its key; a list item's first key (`- name: masters`); none for the object itself.
        at: if decl.at.is_empty() {
            None
        } else {
            inst.key
                .or_else(|| inst.node.and_then(|n| n.as_map()?.first().map(|(k, _)| k)))
                .or(inst.node)
                .map(|n| n.span)
        },
    });
    spec
}

/// How many pods the role makes, as its object says.
fn pods(places: &Places<'_>, decl: &Pods) -> PodCount {
    match decl {
        Pods::Unknown => PodCount::Unknown,
        Pods::PerNode => PodCount::PerNode,
        Pods::Replicas { path, default } => match path.as_deref().and_then(|p| places.part(p)) {
            Some(p) => crate::load::yaml11::resolve(p.value)
                .as_i64()
                .and_then(|n| u32::try_from(n).ok())
                .map_or(PodCount::Unknown, |n| {
                    PodCount::Replicas(n, Some(p.value.span))
                }),
            None => default.map_or(PodCount::Unknown, |n| PodCount::Replicas(n, None)),
        },
    }
}

/// The tolerations of layered lists, merged; and the list in effect (the last written).
fn merge_tolerations<'a>(
    lists: &[Part<'a>],
    merge: Merge,
) -> (Vec<Toleration<'a>>, Option<Part<'a>>) {
    let effective = lists.iter().rev().find(|p| written(p)).cloned();
    let tolerations = match merge {
        Merge::Override | Merge::Keys => effective.as_ref().map(tolerations_of).unwrap_or_default(),
        Merge::Append => lists.iter().flat_map(tolerations_of).collect(),
        Merge::ByIndex => {
            let mut out: Vec<Toleration<'a>> = Vec::new();
            for list in lists {
                for t in tolerations_of(list) {
                    // Items are matched by their index in the list (not mappings are skipped
                    // by `tolerations_of` but keep their index).
                    match out.iter_mut().find(|o| o.index == t.index) {
                        Some(o) => {
                            o.key = t.key.or(o.key);
                            o.operator = t.operator.or(o.operator);
                            o.value = t.value.or(o.value);
                            o.effect = t.effect.or(o.effect);
                            o.seconds = t.seconds.or(o.seconds);
                            o.node = t.node;
                            o.list = t.list;
                            o.path = t.path;
                        }
                        None => out.push(t),
                    }
                }
            }
            out
        }
    };
    (tolerations, effective)
}

/// The `workload-kinds:` entry (or catalogue declaration) at `node`; `err` hears of each
/// mistake, with where it is. `None` when the entry cannot be used at all.
pub fn parse_kind(node: &Node, err: &mut dyn FnMut(Span, String)) -> Option<WorkloadKind> {
    let Some(entries) = node.as_map() else {
        err(node.span, "a workload kind must be a mapping".to_string());
        return None;
    };
    let mut kind = WorkloadKind::default();
    let mut legacy: Option<String> = None;
    for (k, v) in entries {
        let key = k.text().unwrap_or("");
        match key {
            "kind" => kind.kind = text(v, err).unwrap_or_default(),
            "apiVersion" => kind.api_version = text(v, err).unwrap_or_default(),
            "podSpec" => legacy = text(v, err),
            "roles" => match v.as_seq() {
                Some(items) => {
                    for item in items {
                        if let Some(r) = parse_role(item, err) {
                            kind.roles.push(r);
                        }
                    }
                }
                None => err(v.span, "`roles` must be a list of roles".to_string()),
            },
            other => unknown(k.span, other, KIND_KEYS, "workload kind", err),
        }
    }
    if let Some(path) = legacy.filter(|p| !p.is_empty()) {
        kind.roles.push(RoleDecl {
            pod_spec: vec![format!("/{path}")],
            pods: Pods::Unknown,
            ..RoleDecl::default()
        });
    }
    if kind.kind.is_empty() || kind.roles.is_empty() {
        err(
            node.span,
            "a workload kind needs `kind:` and `podSpec:` (e.g. spec.template.spec) or `roles:`"
                .to_string(),
        );
        return None;
    }
    Some(kind)
}

const KIND_KEYS: &[&str] = &["kind", "apiVersion", "podSpec", "roles"];

const ROLE_KEYS: &[&str] = &[
    "name",
    "at",
    "namedBy",
    "optional",
    "if",
    "enabled",
    "podSpec",
    "tolerations",
    "nodeSelector",
    "affinity",
    "nodeAffinity",
    "podAffinity",
    "podAntiAffinity",
    "topologySpreadConstraints",
    "priorityClassName",
    "runtimeClassName",
    "resources",
    "containers",
    "replicas",
    "defaultReplicas",
];

fn unknown(span: Span, key: &str, known: &[&str], what: &str, err: &mut dyn FnMut(Span, String)) {
    let hint = crate::util::nearest(key, known, 3)
        .map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"));
    err(span, format!("unknown {what} key `{key}`{hint}"));
}

fn text(v: &Node, err: &mut dyn FnMut(Span, String)) -> Option<String> {
    match v.text() {
        Some(t) if v.as_scalar().is_some() => Some(t.to_string()),
        _ => {
            err(v.span, "expected a string".to_string());
            None
        }
    }
}

/// One path, or a list of paths.
fn paths(v: &Node, err: &mut dyn FnMut(Span, String)) -> Vec<String> {
    match v.as_seq() {
        Some(items) => items
            .iter()
            .filter_map(|i| text(i, err))
            .collect::<Vec<String>>(),
        None => text(v, err).into_iter().collect(),
    }
    .into_iter()
    .filter(|p| check_path(p, v.span, err))
    .collect()
}

/// A source path: dotted keys, no wildcard (only a role's `at` has those).
fn check_path(p: &str, span: Span, err: &mut dyn FnMut(Span, String)) -> bool {
    if p == "." {
        return true;
    }
    let rel = p.strip_prefix('/').unwrap_or(p);
    if rel.is_empty()
        || rel
            .split('.')
            .any(|s| s.is_empty() || s.contains('*') || s.contains('['))
    {
        err(
            span,
            format!(
                "`{p}` is not a path of field names (`spec.placement.tolerations`, `/spec.x` from the root)"
            ),
        );
        return false;
    }
    true
}

/// A field's sources: a path, a list of paths, or `{from, merge, shape}`.
fn sources(
    v: &Node,
    err: &mut dyn FnMut(Span, String),
    shape: Option<&mut SelectorShape>,
) -> Sources {
    if v.as_map().is_none() {
        return Sources {
            paths: paths(v, err),
            merge: Merge::Override,
        };
    }
    let mut out = Sources::default();
    let mut shape = shape;
    for (k, val) in v.as_map().unwrap_or_default() {
        match k.text().unwrap_or("") {
            "from" => out.paths = paths(val, err),
            "merge" => match val.text().unwrap_or("") {
                "override" => out.merge = Merge::Override,
                "append" => out.merge = Merge::Append,
                "keys" => out.merge = Merge::Keys,
                "byIndex" => out.merge = Merge::ByIndex,
                other => err(
                    val.span,
                    format!("unknown merge `{other}`: expected override, append, keys or byIndex"),
                ),
            },
            "shape" if shape.is_some() => {
                let s = match val.text().unwrap_or("") {
                    "map" => SelectorShape::Map,
                    "labelSelector" => SelectorShape::LabelSelector,
                    "labelSelectorAsMap" => SelectorShape::LabelSelectorAsMap,
                    other => {
                        err(
                            val.span,
                            format!(
                                "unknown shape `{other}`: expected map, labelSelector or labelSelectorAsMap"
                            ),
                        );
                        continue;
                    }
                };
                if let Some(sh) = shape.as_deref_mut() {
                    *sh = s;
                }
            }
            other => {
                let known: &[&str] = if shape.is_some() {
                    &["from", "merge", "shape"]
                } else {
                    &["from", "merge"]
                };
                unknown(k.span, other, known, "field source", err);
            }
        }
    }
    out
}

fn parse_role(node: &Node, err: &mut dyn FnMut(Span, String)) -> Option<RoleDecl> {
    let Some(entries) = node.as_map() else {
        err(node.span, "a role must be a mapping".to_string());
        return None;
    };
    let mut r = RoleDecl::default();
    let mut replicas: Option<&Node> = None;
    let mut default: Option<u32> = None;
    for (k, v) in entries {
        let key = k.text().unwrap_or("");
        match key {
            "name" => r.name = text(v, err).unwrap_or_default(),
            "at" => {
                r.at = text(v, err).unwrap_or_default();
                if r.at.split('.').any(str::is_empty) && !r.at.is_empty() {
                    err(v.span, format!("`{}` is not a dotted path", r.at));
                    r.at.clear();
                }
            }
            "namedBy" => r.named_by = text(v, err),
            "optional" => r.optional = bool_of(v, err),
            "if" => r.present = paths(v, err),
            "enabled" => r.enabled = text(v, err).filter(|p| check_path(p, v.span, err)),
            "podSpec" => r.pod_spec = paths(v, err),
            "tolerations" => r.tolerations = sources(v, err, None),
            "nodeSelector" => {
                let mut shape = SelectorShape::Map;
                r.node_selector = sources(v, err, Some(&mut shape));
                r.selector_shape = shape;
            }
            "affinity" => r.affinity = sources(v, err, None),
            "nodeAffinity" => r.node_affinity = sources(v, err, None),
            "podAffinity" => r.pod_affinity = sources(v, err, None),
            "podAntiAffinity" => r.pod_anti_affinity = sources(v, err, None),
            "topologySpreadConstraints" => r.topology_spread = sources(v, err, None),
            "priorityClassName" => r.priority_class = sources(v, err, None),
            "runtimeClassName" => r.runtime_class = sources(v, err, None),
            "resources" => r.resources = sources(v, err, None),
            "containers" => r.containers = sources(v, err, None),
            "replicas" => replicas = Some(v),
            "defaultReplicas" => match crate::load::yaml11::resolve(v)
                .as_i64()
                .and_then(|n| u32::try_from(n).ok())
            {
                Some(n) => default = Some(n),
                None => err(v.span, "`defaultReplicas` must be a number".to_string()),
            },
            other => unknown(k.span, other, ROLE_KEYS, "role", err),
        }
    }
    r.pods = match replicas {
        None => default.map_or(Pods::Unknown, |d| Pods::Replicas {
            path: None,
            default: Some(d),
        }),
        Some(v) if v.text() == Some("perNode") => Pods::PerNode,
        Some(v) => match crate::load::yaml11::resolve(v).as_i64() {
            Some(n) => Pods::Replicas {
                path: None,
                default: u32::try_from(n).ok(),
            },
            None => Pods::Replicas {
                path: text(v, err).filter(|p| check_path(p, v.span, err)),
                default,
            },
        },
    };
    Some(r)
}

fn bool_of(v: &Node, err: &mut dyn FnMut(Span, String)) -> bool {
    match crate::load::yaml11::resolve(v).as_bool() {
        Some(b) => b,
        None => {
            err(v.span, "expected true or false".to_string());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::yaml::{Limits, parse};

    fn kind(decl: &str) -> WorkloadKind {
        let stream = parse(decl, Limits::default());
        let root = stream.documents[0].root.as_ref().expect("a declaration");
        let mut errors = Vec::new();
        let k = parse_kind(root, &mut |_, m| errors.push(m));
        assert!(errors.is_empty(), "{errors:?}");
        k.expect("a kind")
    }

    /// `(role, path, tolerations as key=value, node selector keys, node affinity path, pods)`.
    type Summary = (
        String,
        String,
        Vec<String>,
        Vec<String>,
        Option<String>,
        PodCount,
    );

    fn summary(decl: &str, object: &str) -> Vec<Summary> {
        let k = kind(decl);
        let stream = parse(object, Limits::default());
        let root = stream.documents[0].root.as_ref().expect("an object");
        pod_specs(root, &k, None)
            .iter()
            .map(|s| {
                let role = s.role.as_ref().expect("a role");
                (
                    role.name.clone(),
                    s.path.clone(),
                    s.tolerations
                        .iter()
                        .map(|t| format!("{}={}", t.key(), t.value()))
                        .collect(),
                    s.node_selectors
                        .iter()
                        .flat_map(|sel| match sel.shape {
                            SelectorShape::Map => sel
                                .part
                                .value
                                .as_map()
                                .unwrap_or_default()
                                .iter()
                                .filter_map(|(k, _)| k.text().map(str::to_string))
                                .collect::<Vec<_>>(),
                            _ => vec![sel.part.path.clone()],
                        })
                        .collect(),
                    s.node_affinity.as_ref().map(|p| p.path.clone()),
                    role.pods.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn append_and_override_as_rook_merges_all() {
        let decl = "kind: C\nroles:\n  - name: mon\n    at: spec.placement.mon\n    tolerations: {from: [/spec.placement.all.tolerations, tolerations], merge: append}\n    nodeAffinity: [/spec.placement.all.nodeAffinity, nodeAffinity]\n    replicas: /spec.mon.count\n    defaultReplicas: 3\n";
        let both = "kind: C\nspec:\n  mon: {count: 5}\n  placement:\n    all:\n      tolerations: [{key: a, value: '1'}]\n      nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {}}\n    mon:\n      tolerations: [{key: b, value: '2'}]\n      nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: []}\n";
        let s = summary(decl, both);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].2, ["a=1", "b=2"]);
        assert_eq!(s[0].4.as_deref(), Some("spec.placement.mon.nodeAffinity"));
        assert!(matches!(s[0].5, PodCount::Replicas(5, Some(_))));
        // Only `all`: the role exists (its place is not written) and takes `all`'s.
        let all = "kind: C\nspec:\n  placement:\n    all:\n      tolerations: [{key: a}]\n      nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {}}\n";
        let s = summary(decl, all);
        assert_eq!(s[0].2, ["a="]);
        assert_eq!(s[0].4.as_deref(), Some("spec.placement.all.nodeAffinity"));
        assert_eq!(s[0].5, PodCount::Replicas(3, None));
    }

    #[test]
    fn keys_and_by_index_as_flink_merges_templates() {
        let decl = "kind: F\nroles:\n  - name: tm\n    at: spec.taskManager\n    podSpec: [/spec.podTemplate.spec, podTemplate.spec]\n    tolerations: {merge: byIndex}\n    nodeSelector: {merge: keys}\n";
        let obj = "kind: F\nspec:\n  podTemplate:\n    spec:\n      nodeSelector: {a: '1'}\n      tolerations: [{key: x, value: v}, {key: y}]\n  taskManager:\n    podTemplate:\n      spec:\n        nodeSelector: {b: '2'}\n        tolerations: [{key: z}]\n";
        let s = summary(decl, obj);
        // Item 0 merged field by field (the role's key, the common value); item 1 kept.
        assert_eq!(s[0].2, ["z=v", "y="]);
        assert_eq!(s[0].3, ["a", "b"]);
        assert_eq!(s[0].1, "spec.taskManager");
    }

    #[test]
    fn override_takes_the_last_written_and_affinity_whole() {
        let decl = "kind: W\nroles:\n  - name: t\n    at: spec.templates[*]\n    namedBy: name\n    if: [container, script]\n    tolerations: [/spec.tolerations, tolerations]\n    affinity: [/spec.affinity, affinity]\n";
        let obj = "kind: W\nspec:\n  tolerations: [{key: w}]\n  affinity:\n    nodeAffinity: {x: 1}\n    podAntiAffinity: {x: 1}\n  templates:\n    - name: main\n      steps: []\n    - name: a\n      container: {}\n    - name: b\n      script: {}\n      tolerations: [{key: own}]\n      affinity: {podAffinity: {x: 1}}\n    - name: c\n      container: {}\n      tolerations: []\n";
        let k = kind(decl);
        let stream = parse(obj, Limits::default());
        let root = stream.documents[0].root.as_ref().expect("an object");
        let specs = pod_specs(root, &k, None);
        let names: Vec<&str> = specs
            .iter()
            .map(|s| s.role.as_ref().map_or("", |r| r.name.as_str()))
            .collect();
        // `main` runs no pod; `c`'s empty list does not replace the workflow's.
        assert_eq!(names, ["t a", "t b", "t c"]);
        assert_eq!(specs[0].tolerations[0].key(), "w");
        assert_eq!(specs[1].tolerations[0].key(), "own");
        assert_eq!(specs[2].tolerations[0].key(), "w");
        // The template's affinity replaces the workflow's whole: no node affinity is left.
        assert!(specs[1].node_affinity.is_none());
        assert!(specs[1].pod_anti_affinity.is_none());
        assert!(specs[1].pod_affinity.is_some());
        assert!(specs[0].node_affinity.is_some());
    }

    #[test]
    fn map_entries_optional_places_enabled_and_per_node() {
        let decl = "kind: I\nroles:\n  - at: spec.components.*\n    optional: true\n    enabled: enabled\n    tolerations: k8s.tolerations\n    replicas: perNode\n  - name: gw\n    at: spec.gateways[*]\n    namedBy: name\n    replicas: k8s.replicaCount\n";
        let obj = "kind: I\nspec:\n  components:\n    cni: {k8s: {tolerations: [{key: a}]}}\n    off: {enabled: false}\n  gateways:\n    - name: in\n      k8s: {replicaCount: two}\n";
        let s = summary(decl, obj);
        let names: Vec<&str> = s.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(names, ["cni", "gw in"]);
        assert_eq!(s[0].5, PodCount::PerNode);
        assert_eq!(s[0].2, ["a="]);
        // A count that is no number is not known.
        assert_eq!(s[1].5, PodCount::Unknown);
        assert_eq!(s[1].1, "spec.gateways[0]");
    }

    #[test]
    fn label_selector_shaped_node_selectors() {
        let decl = "kind: X\nroles:\n  - at: spec\n    nodeSelector: {from: placement.nodeSelector, shape: labelSelectorAsMap}\n";
        let obj = "kind: X\nspec:\n  placement:\n    nodeSelector: {matchLabels: {a: b}}\n";
        let s = summary(decl, obj);
        assert_eq!(s[0].3, ["spec.placement.nodeSelector"]);
    }

    #[test]
    fn mistakes_are_reported_with_their_place() {
        let decl = "kind: X\nroles:\n  - nmae: a\n    at: spec\n    tolerations: {from: a.b, merge: sideways}\n    nodeSelector: {shape: round}\n    affinity: spec.x[*]\n    replicas: [1]\n    defaultReplicas: many\n  - just text\n";
        let stream = parse(decl, Limits::default());
        let root = stream.documents[0].root.as_ref().expect("a declaration");
        let mut errors = Vec::new();
        let k = parse_kind(root, &mut |_, m| errors.push(m));
        assert!(k.is_some());
        let joined = errors.join("\n");
        for want in [
            "unknown role key `nmae` (did you mean `name`?)",
            "unknown merge `sideways`",
            "unknown shape `round`",
            "`spec.x[*]` is not a path of field names",
            "expected a string",
            "`defaultReplicas` must be a number",
            "a role must be a mapping",
        ] {
            assert!(joined.contains(want), "{want}: {joined}");
        }
        // Nothing usable: no kind.
        let stream = parse("kind: X\n", Limits::default());
        let root = stream.documents[0].root.as_ref().expect("a declaration");
        assert!(parse_kind(root, &mut |_, _| {}).is_none());
    }
}
