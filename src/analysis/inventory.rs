//! The inventory: node pools declared anywhere in the run (Node objects and live dumps,
//! Karpenter NodePools, eksctl ClusterConfigs, kubeadm and kubelet configuration, Cluster API
//! machines, taintlint's own Inventory files) and the scheduling signature of every workload.
//! Extracted per file into owned values, so a file's YAML tree can be dropped right away.

use std::sync::Arc;

use crate::diagnostic::ObjectId;
use crate::load::yaml::Node;
use crate::load::{SourceFile, Span};
use crate::model::{Object, PodSpec, Schema};
use crate::util::intern;

pub use crate::load::Loc;

/// Where a node declaration (or one of its taints) is: the place itself, or, in a streamed
/// run, its file's positions stored in the spill store and read back only when a finding
/// names the place (`Inventory::loc`). A large inventory then keeps no source per file.
#[derive(Clone, Debug)]
pub enum Place {
    Here(Loc),
    /// `file`: the number of the stored source in the inventory's table.
    Stored {
        file: u32,
        span: Span,
    },
}

impl Place {
    pub fn span(&self) -> Span {
        match self {
            Place::Here(loc) => loc.span,
            Place::Stored { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaintSpec {
    pub key: Arc<str>,
    pub value: Arc<str>,
    pub effect: Arc<str>,
}

impl TaintSpec {
    /// A taint of shared strings (`util::intern`): the inventory keeps every pool's taints
    /// for the whole run, and copies of a template repeat them.
    pub fn new(key: &str, value: &str, effect: &str) -> Self {
        TaintSpec {
            key: intern(key),
            value: intern(value),
            effect: intern(effect),
        }
    }

    /// One shared copy of this taint per worker thread: copies of a template repeat it, and
    /// the inventory keeps every pool's taints for the whole run.
    pub fn shared(self) -> Arc<TaintSpec> {
        thread_local! {
            static TAINTS: std::cell::RefCell<std::collections::HashSet<Arc<TaintSpec>>> =
                std::cell::RefCell::new(std::collections::HashSet::new());
        }
        TAINTS.with(|table| {
            let Ok(mut table) = table.try_borrow_mut() else {
                return Arc::new(self);
            };
            if let Some(shared) = table.get(&self) {
                return Arc::clone(shared);
            }
            let shared = Arc::new(self);
            if table.len() < 1 << 12 {
                table.insert(Arc::clone(&shared));
            }
            shared
        })
    }

    /// `key=value:Effect`, as `kubectl taint` writes it.
    pub fn display(&self) -> String {
        let mut s = self.key.to_string();
        if !self.value.is_empty() {
            s.push('=');
            s.push_str(&self.value);
        }
        if !self.effect.is_empty() {
            s.push(':');
            s.push_str(&self.effect);
        }
        s
    }

    /// `{key: value}`, the scheduler's way of naming an untolerated taint.
    pub fn scheduler_form(&self) -> String {
        format!("{{{}: {}}}", self.key, self.value)
    }
}

#[derive(Clone, Debug)]
pub struct PoolTaint {
    /// Shared ([`TaintSpec::shared`]).
    pub taint: Arc<TaintSpec>,
    pub loc: Option<Place>,
    /// Karpenter `startupTaints`: pods need not tolerate them.
    pub startup: bool,
}

/// What a pool's nodes may carry under one label key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LabelValues {
    /// Present, with a value the declaration does not fix.
    Any,
    /// Present, with one of these values (shared strings: see [`Labels`]).
    OneOf(Box<[Arc<str>]>),
}

impl LabelValues {
    /// Present with exactly this value.
    pub fn one(value: &str) -> Self {
        LabelValues::OneOf(Box::new([intern(value)]))
    }

    /// Present with one of these values.
    pub fn of<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        LabelValues::OneOf(values.into_iter().map(|v| intern(v.as_ref())).collect())
    }
}

/// A node's or template's labels, sorted by key. Keys and values are shared strings
/// (`util::intern`) in one shared vector: an inventory can declare thousands of pools with
/// the same few labels, and the cross-reference keeps every pool for the whole run, so the
/// inventory keeps one copy of each label set ([`Labels::share`]). Changing shared labels
/// copies them first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Labels(Arc<Vec<(Arc<str>, LabelValues)>>);

impl Labels {
    pub fn new() -> Self {
        Labels::default()
    }

    /// These labels, as the copy in `table` when it holds an equal set (added otherwise).
    pub fn share(self, table: &mut std::collections::HashSet<Labels>) -> Labels {
        if let Some(shared) = table.get(&self) {
            return shared.clone();
        }
        table.insert(self.clone());
        self
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&LabelValues> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// Sets `key` to `values`, replacing what it had.
    pub fn insert(&mut self, key: &str, values: LabelValues) {
        match self.find(key) {
            Ok(i) => Arc::make_mut(&mut self.0)[i].1 = values,
            Err(i) => Arc::make_mut(&mut self.0).insert(i, (intern(key), values)),
        }
    }

    /// Sets `key` to `values` unless it has a value already.
    pub fn insert_absent(&mut self, key: &str, values: LabelValues) {
        if let Err(i) = self.find(key) {
            Arc::make_mut(&mut self.0).insert(i, (intern(key), values));
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<LabelValues> {
        let i = self.find(key).ok()?;
        Some(Arc::make_mut(&mut self.0).remove(i).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Arc<str>, &LabelValues)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// Gives back the room left over from building.
    pub fn shrink_to_fit(&mut self) {
        if let Some(labels) = Arc::get_mut(&mut self.0) {
            labels.shrink_to_fit();
        }
    }
}

impl<K: AsRef<str>> FromIterator<(K, LabelValues)> for Labels {
    fn from_iter<I: IntoIterator<Item = (K, LabelValues)>>(iter: I) -> Self {
        let mut labels = Labels::new();
        for (k, v) in iter {
            labels.insert(k.as_ref(), v);
        }
        labels.shrink_to_fit();
        labels
    }
}

/// One declared node or node template, before grouping into pools.
#[derive(Clone, Debug)]
pub struct NodeDecl {
    /// Where it comes from: `Node`, `NodePool`, `eksctl nodeGroup`, ...
    pub origin: &'static str,
    pub name: String,
    /// A real Node object (its name is a node name).
    pub is_node: bool,
    /// Without the labels whose value is `name` (see [`self_labels`]).
    pub labels: Labels,
    pub taints: Vec<PoolTaint>,
    pub unschedulable: bool,
    /// Well-known labels (`kubernetes.io/hostname`, zone, instance type...) that a template
    /// does not constrain exist with some value on its nodes.
    pub open_labels: bool,
    pub loc: Place,
}

impl NodeDecl {
    /// Where it and each of its taints are declared.
    pub fn places(&self) -> impl Iterator<Item = &Place> {
        let taints = self.taints.iter().filter_map(|t| t.loc.as_ref());
        std::iter::once(&self.loc).chain(taints)
    }

    /// [`NodeDecl::places`], to change them.
    pub fn places_mut(&mut self) -> impl Iterator<Item = &mut Place> {
        let taints = self.taints.iter_mut().filter_map(|t| t.loc.as_mut());
        std::iter::once(&mut self.loc).chain(taints)
    }
}

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

/// One toleration of a workload. Strings are shared (`util::intern`): a run keeps one per
/// workload until the cross-reference, and replicas of one spec repeat them.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct WorkloadToleration {
    pub key: Arc<str>,
    pub operator: Arc<str>,
    pub value: Arc<str>,
    pub effect: Arc<str>,
    pub seconds: Option<i64>,
    /// The toleration's key (or the toleration) in its file.
    pub span: Span,
    pub path: Arc<str>,
}

impl WorkloadToleration {
    pub fn tol(&self) -> crate::analysis::matching::Tol<'_> {
        crate::analysis::matching::Tol {
            key: &self.key,
            operator: &self.operator,
            value: &self.value,
            effect: &self.effect,
        }
    }

    pub fn display(&self) -> String {
        let mut s = if self.key.is_empty() {
            "*".to_string()
        } else {
            self.key.to_string()
        };
        match &*self.operator {
            "Exists" => {}
            "Lt" | "Gt" => {
                s.push_str(&format!(" {} {}", self.operator, self.value));
            }
            _ => {
                s.push('=');
                s.push_str(&self.value);
            }
        }
        s.push(':');
        s.push_str(if self.effect.is_empty() {
            "*"
        } else {
            &self.effect
        });
        s
    }
}

/// The scheduling signature of one pod spec.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Workload {
    pub object: Arc<ObjectId>,
    pub kind: Arc<str>,
    pub daemonset: bool,
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
}

/// Labels that make nodes of a pool identifiable, in order of preference, for pool names.
pub const POOL_NAME_LABELS: &[&str] = &[
    "karpenter.sh/nodepool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "cloud.google.com/gke-nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "node.kubernetes.io/instance-type",
];

/// Label keys whose value on a pool's nodes is the pool's name: a NodePool's nodes carry
/// `karpenter.sh/nodepool`, an eksctl node group's its name labels. A declaration keeps them
/// out of its label set, so that copies of one template share one (see [`Labels::share`]);
/// they take precedence over the template's labels.
pub fn self_labels(origin: &str) -> &'static [&'static str] {
    match origin {
        "NodePool" => &["karpenter.sh/nodepool"],
        "eksctl nodeGroup" => &["alpha.eksctl.io/nodegroup-name"],
        "eksctl managedNodeGroup" => &[
            "alpha.eksctl.io/nodegroup-name",
            "eks.amazonaws.com/nodegroup",
        ],
        _ => &[],
    }
}

/// Well-known labels every node carries or a provisioner chooses.
pub fn is_well_known_label(key: &str) -> bool {
    matches!(
        key,
        "kubernetes.io/hostname"
            | "kubernetes.io/os"
            | "kubernetes.io/arch"
            | "beta.kubernetes.io/os"
            | "beta.kubernetes.io/arch"
            | "topology.kubernetes.io/zone"
            | "topology.kubernetes.io/region"
            | "failure-domain.beta.kubernetes.io/zone"
            | "failure-domain.beta.kubernetes.io/region"
            | "node.kubernetes.io/instance-type"
            | "beta.kubernetes.io/instance-type"
    ) || key.starts_with("karpenter.k8s.aws/")
        || key.starts_with("karpenter.sh/")
}

fn text(n: Option<&Node>) -> String {
    match n {
        Some(n) if !n.is_null() => n.text().unwrap_or("").to_string(),
        _ => String::new(),
    }
}

fn loc(source: &Arc<SourceFile>, span: Span) -> Place {
    Place::Here(Loc {
        source: Arc::clone(source),
        span,
    })
}

fn taint_list(list: Option<&Node>, source: &Arc<SourceFile>, startup: bool) -> Vec<PoolTaint> {
    list.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter(|t| t.as_map().is_some())
        .map(|t| PoolTaint {
            taint: TaintSpec::new(
                &text(t.get("key")),
                &text(t.get("value")),
                &text(t.get("effect")),
            )
            .shared(),
            loc: Some(loc(source, t.span)),
            startup,
        })
        .collect()
}

fn label_map(map: Option<&Node>, labels: &mut Labels) {
    for (k, v) in map.and_then(Node::as_map).unwrap_or_default() {
        let Some(key) = k.text() else { continue };
        labels.insert(key, LabelValues::one(&text(Some(v))));
    }
}

/// The labels of a node template's `metadata.labels`.
fn template_labels(tmpl: Option<&Node>) -> Labels {
    let mut labels = Labels::new();
    label_map(
        tmpl.and_then(|t| t.path(&["metadata", "labels"])),
        &mut labels,
    );
    labels
}

/// The control-plane taint kubeadm applies when `nodeRegistration.taints` is omitted.
fn kubeadm_default_taint() -> PoolTaint {
    PoolTaint {
        taint: TaintSpec::new("node-role.kubernetes.io/control-plane", "", "NoSchedule").shared(),
        loc: None,
        startup: false,
    }
}

/// Node declarations in one object.
pub fn node_decls(object: &Object<'_>, source: &Arc<SourceFile>) -> Vec<NodeDecl> {
    let node = object.node;
    let name = object.id.name.clone().unwrap_or_default();
    let obj_loc = loc(
        source,
        node.path(&["metadata", "name"])
            .map_or(node.span, |n| n.span),
    );
    let mut out = Vec::new();
    let mut decl = |origin: &'static str,
                    name: String,
                    is_node: bool,
                    mut labels: Labels,
                    taints: Vec<PoolTaint>,
                    at: Place| {
        for key in self_labels(origin) {
            labels.remove(key);
        }
        labels.shrink_to_fit();
        out.push(NodeDecl {
            origin,
            name,
            is_node,
            labels,
            taints,
            unschedulable: false,
            open_labels: !is_node,
            loc: at,
        });
    };
    match (object.kind, object.group) {
        ("Node", "") => {
            let mut labels = Labels::new();
            label_map(object.labels, &mut labels);
            let taints = taint_list(node.path(&["spec", "taints"]), source, false);
            decl("Node", name, true, labels, taints, obj_loc);
            if let Some(last) = out.last_mut() {
                last.unschedulable = object.unschedulable.and_then(Node::text) == Some("true");
            }
        }
        ("NodePool", "karpenter.sh") => {
            let tmpl = node.path(&["spec", "template"]);
            let mut labels = template_labels(tmpl);
            for req in tmpl
                .and_then(|t| t.path(&["spec", "requirements"]))
                .and_then(Node::as_seq)
                .unwrap_or_default()
            {
                let key = text(req.get("key"));
                let values: Vec<String> = req
                    .get("values")
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .map(|v| text(Some(v)))
                    .collect();
                match text(req.get("operator")).as_str() {
                    "In" if !values.is_empty() => {
                        labels.insert(&key, LabelValues::of(values));
                    }
                    "Exists" | "NotIn" | "Gt" | "Lt" => {
                        labels.insert_absent(&key, LabelValues::Any);
                    }
                    _ => continue,
                }
            }
            let spec = tmpl.and_then(|t| t.get("spec"));
            let mut taints = taint_list(spec.and_then(|s| s.get("taints")), source, false);
            taints.extend(taint_list(
                spec.and_then(|s| s.get("startupTaints")),
                source,
                true,
            ));
            decl("NodePool", name, false, labels, taints, obj_loc);
        }
        ("ClusterConfig", "eksctl.io") => {
            for (list, origin) in [
                ("nodeGroups", "eksctl nodeGroup"),
                ("managedNodeGroups", "eksctl managedNodeGroup"),
            ] {
                for ng in node.get(list).and_then(Node::as_seq).unwrap_or_default() {
                    let ng_name = text(ng.get("name"));
                    let mut labels = Labels::new();
                    label_map(ng.get("labels"), &mut labels);
                    let taints = eksctl_taints(ng.get("taints"), source);
                    let at = loc(source, ng.get("name").map_or(ng.span, |n| n.span));
                    decl(origin, ng_name, false, labels, taints, at);
                }
            }
        }
        ("InitConfiguration" | "JoinConfiguration", "kubeadm.k8s.io") => {
            let control_plane =
                object.kind == "InitConfiguration" || node.get("controlPlane").is_some();
            let reg = node.get("nodeRegistration");
            let taints_node = reg.and_then(|r| r.get("taints")).filter(|t| !t.is_null());
            let taints = match taints_node {
                Some(list) => taint_list(Some(list), source, false),
                None if control_plane => vec![kubeadm_default_taint()],
                None => Vec::new(),
            };
            let node_name = text(reg.and_then(|r| r.get("name")));
            let label = if control_plane {
                "kubeadm control plane"
            } else {
                "kubeadm worker"
            };
            let at = loc(
                source,
                reg.map_or(object.node.span, |r| {
                    r.entry("taints").map_or(r.span, |(k, _)| k.span)
                }),
            );
            let pool_name = if node_name.is_empty() {
                label.to_string()
            } else {
                node_name
            };
            decl("kubeadm", pool_name, false, Labels::new(), taints, at);
        }
        ("KubeletConfiguration", "kubelet.config.k8s.io") => {
            if let Some(list) = node.get("registerWithTaints") {
                let taints = taint_list(Some(list), source, false);
                let at = loc(source, list.span);
                decl(
                    "KubeletConfiguration",
                    if name.is_empty() {
                        "kubelet".to_string()
                    } else {
                        name
                    },
                    false,
                    Labels::new(),
                    taints,
                    at,
                );
            }
        }
        ("Machine", "cluster.x-k8s.io") => {
            let taints = taint_list(node.path(&["spec", "taints"]), source, false);
            decl(
                "Cluster API Machine",
                name,
                false,
                Labels::new(),
                taints,
                obj_loc,
            );
        }
        ("MachineSet" | "MachineDeployment", "cluster.x-k8s.io") => {
            let tmpl = node.path(&["spec", "template"]);
            let labels = template_labels(tmpl);
            let taints = taint_list(
                tmpl.and_then(|t| t.path(&["spec", "taints"])),
                source,
                false,
            );
            let origin = if object.kind == "MachineSet" {
                "Cluster API MachineSet"
            } else {
                "Cluster API MachineDeployment"
            };
            decl(origin, name, false, labels, taints, obj_loc);
        }
        ("KubeadmConfigTemplate", "bootstrap.cluster.x-k8s.io") => {
            let reg = node.path(&[
                "spec",
                "template",
                "spec",
                "joinConfiguration",
                "nodeRegistration",
            ]);
            if let Some(list) = reg.and_then(|r| r.get("taints")) {
                let taints = taint_list(Some(list), source, false);
                decl(
                    "KubeadmConfigTemplate",
                    name,
                    false,
                    Labels::new(),
                    taints,
                    obj_loc,
                );
            }
        }
        ("KubeadmControlPlane", "controlplane.cluster.x-k8s.io") => {
            let spec = node.path(&["spec", "kubeadmConfigSpec"]);
            let reg = spec
                .and_then(|s| s.path(&["initConfiguration", "nodeRegistration"]))
                .or_else(|| spec.and_then(|s| s.path(&["joinConfiguration", "nodeRegistration"])));
            let taints = match reg.and_then(|r| r.get("taints")).filter(|t| !t.is_null()) {
                Some(list) => taint_list(Some(list), source, false),
                None => vec![kubeadm_default_taint()],
            };
            decl(
                "KubeadmControlPlane",
                name,
                false,
                Labels::new(),
                taints,
                obj_loc,
            );
        }
        ("Inventory", "taintlint.dev") => {
            if let Some(pools) = node.get("pools") {
                out.extend(inventory_pools(pools, source));
            }
        }
        _ => {}
    }
    out
}

/// Pools written in taintlint's own format: `[{name, labels, taints: ["key=value:Effect"]}]`.
pub fn inventory_pools(pools: &Node, source: &Arc<SourceFile>) -> Vec<NodeDecl> {
    let mut out = Vec::new();
    for pool in pools.as_seq().unwrap_or_default() {
        let pool_name = text(pool.get("name"));
        let mut labels = Labels::new();
        label_map(pool.get("labels"), &mut labels);
        let mut taints = Vec::new();
        for t in pool
            .get("taints")
            .and_then(Node::as_seq)
            .unwrap_or_default()
        {
            if let Some(spec) = t.text().and_then(|s| parse_taint_spec(s).ok()) {
                taints.push(PoolTaint {
                    taint: spec.shared(),
                    loc: Some(loc(source, t.span)),
                    startup: false,
                });
            }
        }
        labels.shrink_to_fit();
        out.push(NodeDecl {
            origin: "Inventory pool",
            name: pool_name,
            is_node: false,
            labels,
            taints,
            unschedulable: false,
            open_labels: true,
            loc: loc(source, pool.get("name").map_or(pool.span, |n| n.span)),
        });
    }
    out
}

/// eksctl taints: the list form `- {key, value, effect}` or the deprecated map form
/// `{key: "value:Effect"}`.
fn eksctl_taints(node: Option<&Node>, source: &Arc<SourceFile>) -> Vec<PoolTaint> {
    let Some(node) = node else { return Vec::new() };
    if node.as_seq().is_some() {
        return taint_list(Some(node), source, false);
    }
    node.as_map()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| {
            let raw = text(Some(v));
            let (value, effect) = raw.rsplit_once(':').unwrap_or((raw.as_str(), ""));
            PoolTaint {
                taint: TaintSpec::new(k.text().unwrap_or(""), value, effect).shared(),
                loc: Some(loc(source, k.span.cover(v.span))),
                startup: false,
            }
        })
        .collect()
}

/// Parses `key[=value]:Effect` with `kubectl taint`'s checks and messages (SEMANTICS §2.3):
/// effect, then value, then key; the first failure is returned.
pub fn parse_taint_spec(spec: &str) -> Result<TaintSpec, String> {
    let settings = crate::settings::Settings::default();
    let parts: Vec<&str> = spec.split(':').collect();
    if parts.len() != 2 {
        return Err(format!("invalid taint spec: {spec}"));
    }
    let effect = parts[1];
    if !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
        return Err(format!(
            "invalid taint effect: {effect}, unsupported taint effect"
        ));
    }
    let kv: Vec<&str> = parts[0].split('=').collect();
    if kv.len() > 2 {
        return Err(format!("invalid taint spec: {spec}"));
    }
    let key = kv[0];
    let value = kv.get(1).copied().unwrap_or("");
    if kv.len() == 2 {
        let errs = crate::analysis::validation::label_value_errors(value, &settings);
        if !errs.is_empty() {
            return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
        }
    }
    let errs = crate::analysis::validation::label_key_errors(key, &settings);
    if !errs.is_empty() {
        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
    }
    Ok(TaintSpec::new(key, value, effect))
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

/// The scheduling signature of each pod spec of a workload object.
pub fn workloads(object: &Object<'_>, source: &Arc<SourceFile>) -> Vec<Workload> {
    // Only specs the scheduler will see: built-in workloads and pod-creating custom resources.
    if object.pod_specs.is_empty() || object.kind == "RuntimeClass" {
        return Vec::new();
    }
    object
        .pod_specs
        .iter()
        .map(|spec| workload(object, spec, source))
        .collect()
}

fn workload(object: &Object<'_>, spec: &PodSpec<'_>, source: &Arc<SourceFile>) -> Workload {
    let tolerations = spec
        .tolerations
        .iter()
        .map(|t| WorkloadToleration {
            key: intern(t.key()),
            operator: intern(t.operator()),
            value: intern(t.value()),
            effect: intern(t.effect()),
            seconds: t.seconds(),
            span: t.key.map_or(t.node.span, |k| k.entry_span()),
            path: intern(&t.path),
        })
        .collect();
    let node_selector = spec
        .node_selector
        .and_then(|f| f.value.as_map())
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((intern(k.text()?), intern(&text(Some(v))))))
        .collect();
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
    let terms = terms.map(intern_terms);
    let kind_span = object
        .node
        .entry("kind")
        .map_or(object.node.span, |(_, v)| v.span);
    let anchor = spec.tolerations_list.map_or(kind_span, |f| f.key.span);
    let selector_span = spec
        .node_selector
        .map(|f| f.key.span)
        .or_else(|| spec.affinity.map(|f| f.key.span));
    Workload {
        object: Arc::clone(&object.id),
        kind: intern(object.kind),
        daemonset: object.kind == "DaemonSet" && matches!(object.schema, Schema::Builtin { .. }),
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
    }
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
