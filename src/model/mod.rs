//! Model: the Kubernetes objects of a document, with their pod specs, tolerations, node
//! selection and taints located in the YAML tree. Nothing here judges; rules do.
//!
//! One table (`pod_spec_path`) maps each workload kind to its pod spec. The kinds whose pods
//! an operator makes are read as the operator reads them: those of the config's
//! `workload-kinds:`, then the catalogue of `operators` (each pod role's placement where the
//! operator keeps it, see `roles`). Other custom resources are searched generically for
//! scheduling fields, never inside a CRD's schema, a ConfigMap's or Secret's data, or
//! annotations.

pub mod operators;
pub mod roles;
pub mod scheduling;

use std::fmt::Write as _;

use crate::diagnostic::ObjectId;
use crate::load::yaml::{Document, Node, Value};
use crate::settings::WorkloadKind;

pub use scheduling::{
    Field, Need, Part, PodCount, PodSpec, Role, Selector, SelectorShape, Synth, Taint, TaintList,
    TaintOrigin, TaintRef, Tol, Toleration, Typed, Written,
};

/// How the API server treats an object's scheduling fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schema {
    /// A built-in type whose validation we reproduce; `kind_text` is what the server's
    /// messages call it (`Deployment.apps`, `Pod`).
    Builtin { kind_text: String },
    /// A custom resource: its scheduling fields reach pods through an operator.
    Custom,
}

#[derive(Debug)]
pub struct Object<'a> {
    pub node: &'a Node,
    pub id: std::sync::Arc<ObjectId>,
    pub kind: &'a str,
    pub api_version: &'a str,
    pub group: &'a str,
    pub version: &'a str,
    pub schema: Schema,
    /// The path of this object inside its document (`items[2]` for List items), empty at top.
    pub doc_path: String,
    pub pod_specs: Vec<PodSpec<'a>>,
    pub taints: Vec<TaintList<'a>>,
    /// Node objects: `spec.unschedulable`.
    pub unschedulable: Option<&'a Node>,
    pub labels: Option<&'a Node>,
    pub annotations: Option<&'a Node>,
    /// A custom resource of a kind neither configured nor catalogued whose `tolerations`,
    /// `nodeSelector` or `affinity` sit in a mapping that is no complete pod spec (no
    /// `containers`): nothing in the files shows those fields reach a pod, so they are not
    /// judged; the span is the first such field's key, for one info per kind.
    pub unproven: Option<crate::load::Span>,
}

impl Object<'_> {
    /// A template a program fills in before creating it: its namespace is a placeholder that
    /// is no namespace at all (`"FILLED BY THE OPERATOR"`, `FILLED_BY_THE_VALIDATOR`: upper
    /// case, blanks or underscores, which a DNS-1123 label — what `ValidateNamespaceName`
    /// requires, pkg/apis/core/validation/validation.go — cannot hold). Such an object cannot
    /// be applied as written; the program also decides where its pods go (a validator pod is
    /// bound to the node it validates), so placement heuristics say nothing about it.
    pub fn filled_by_a_program(&self) -> bool {
        self.id.namespace.as_deref().is_some_and(|ns| {
            !ns.is_empty()
                && ns
                    .chars()
                    .any(|c| c.is_ascii_uppercase() || c == ' ' || c == '_')
                && ns
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_' || c == '-')
        })
    }

    /// Objects whose tolerations are merged into other pods, which select their nodes
    /// themselves: a RuntimeClass's `scheduling`, a Kueue ResourceFlavor's (added to the
    /// workloads it admits). They are no workloads of their own.
    pub fn lends_tolerations(&self) -> bool {
        matches!(
            (self.kind, self.group),
            ("RuntimeClass", "node.k8s.io") | ("ResourceFlavor", "kueue.x-k8s.io")
        )
    }
}

pub use crate::load::prescan::split_api_version;

/// Where each built-in workload kind keeps its pod spec (pkg/apis/core/validation/validation.go
/// `ValidatePodSpec` paths).
pub fn pod_spec_path(kind: &str, group: &str) -> Option<&'static [&'static str]> {
    const SPEC: &[&str] = &["spec"];
    const TEMPLATE: &[&str] = &["template", "spec"];
    const SPEC_TEMPLATE: &[&str] = &["spec", "template", "spec"];
    const CRONJOB: &[&str] = &["spec", "jobTemplate", "spec", "template", "spec"];
    match (kind, group) {
        ("Pod", "") => Some(SPEC),
        ("PodTemplate", "") => Some(TEMPLATE),
        ("ReplicationController", "") => Some(SPEC_TEMPLATE),
        ("Deployment" | "ReplicaSet" | "DaemonSet", "apps" | "extensions")
        | ("StatefulSet", "apps")
        | ("Job", "batch") => Some(SPEC_TEMPLATE),
        ("CronJob", "batch") => Some(CRONJOB),
        _ => None,
    }
}

/// The kind name used in API-server messages: `Pod`, `Deployment.apps`.
pub fn kind_text(kind: &str, group: &str) -> String {
    if group.is_empty() {
        kind.to_string()
    } else {
        dotted(kind, group)
    }
}

/// Kinds whose contents are never searched for scheduling fields.
fn is_opaque(kind: &str, group: &str) -> bool {
    matches!(
        (kind, group),
        ("CustomResourceDefinition", "apiextensions.k8s.io")
            | ("ConfigMap" | "Secret" | "Event", "")
            | ("APIService", "apiregistration.k8s.io")
            | (
                "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration",
                "admissionregistration.k8s.io"
            )
    )
}

/// The objects of a document: the root object, or the items of a `List`/`*List`, recursively.
pub fn objects<'a>(doc: &'a Document, kinds: &[WorkloadKind]) -> Vec<Object<'a>> {
    let mut out = Vec::new();
    each_object(doc, kinds, &mut |o| out.push(o));
    out
}

/// [`objects`], handed over one at a time: a List of 100,000 items never holds all their
/// objects at once.
pub fn each_object<'a>(
    doc: &'a Document,
    kinds: &[WorkloadKind],
    each: &mut dyn FnMut(Object<'a>),
) {
    if let Some(root) = &doc.root {
        collect_objects(root, String::new(), each, 0, kinds);
    }
}

fn collect_objects<'a>(
    node: &'a Node,
    doc_path: String,
    out: &mut dyn FnMut(Object<'a>),
    depth: usize,
    kinds: &[WorkloadKind],
) {
    if depth > 8 || node.as_map().is_none() {
        return;
    }
    let kind = node.get("kind").and_then(Node::text).unwrap_or("");
    if kind.ends_with("List")
        && let Some(items) = node.get("items").and_then(Node::as_seq)
    {
        for (i, item) in items.iter().enumerate() {
            let p = if doc_path.is_empty() {
                format!("items[{i}]")
            } else {
                format!("{doc_path}.items[{i}]")
            };
            collect_objects(item, p, out, depth + 1, kinds);
        }
        return;
    }
    if kind.is_empty() {
        return;
    }
    out(build_object(node, doc_path, kinds));
}

fn build_object<'a>(node: &'a Node, doc_path: String, kinds: &[WorkloadKind]) -> Object<'a> {
    let kind = node.get("kind").and_then(Node::text).unwrap_or("");
    let api_version = node.get("apiVersion").and_then(Node::text).unwrap_or("");
    let (group, version) = split_api_version(api_version);
    let metadata = node.get("metadata");
    let meta_str = |k: &str| {
        metadata
            .and_then(|m| m.get(k))
            .and_then(Node::text)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let id = ObjectId {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        namespace: meta_str("namespace"),
        name: meta_str("name").or_else(|| meta_str("generateName")),
    };
    let labels = metadata.and_then(|m| m.get("labels"));
    let annotations = metadata.and_then(|m| m.get("annotations"));

    let mut pod_specs = Vec::new();
    let mut taints = Vec::new();
    let mut unschedulable = None;
    let mut unproven = None;
    let schema;
    if let Some(path) = pod_spec_path(kind, group) {
        schema = Schema::Builtin {
            kind_text: kind_text(kind, group),
        };
        if let Some(spec) = node.path(path) {
            // One spec: a vector of one (a spec is large; `push` would make room for four).
            pod_specs = vec![PodSpec::new(spec, path.join("."), true)];
        }
    } else if kind == "Node" && group.is_empty() {
        schema = Schema::Builtin {
            kind_text: "Node".to_string(),
        };
        if let Some(list) = node.path(&["spec", "taints"]) {
            // The server reports Node taint errors under `metadata.taints`
            // (pkg/apis/core/validation/validation.go `ValidateNode`).
            taints = vec![TaintList::new(list, "spec.taints", "metadata.taints")];
        }
        unschedulable = node.path(&["spec", "unschedulable"]);
    } else if kind == "RuntimeClass" && group == "node.k8s.io" {
        schema = Schema::Builtin {
            kind_text: kind_text(kind, group),
        };
        if let Some(sched) = node.get("scheduling") {
            pod_specs = vec![PodSpec::new(sched, "scheduling".to_string(), true)];
        }
    } else if let Some(wk) = kinds.iter().find(|k| k.matches(kind, api_version)) {
        // A configured kind: its pods are where the config says.
        schema = Schema::Custom;
        pod_specs = roles::pod_specs(node, wk, None);
    } else if let Some(op) = operators::find(kind, api_version) {
        // A kind of the catalogue: each pod role as its operator makes it.
        schema = Schema::Custom;
        pod_specs = roles::pod_specs(node, &op.kind, op.synth);
    } else if is_opaque(kind, group) || crate::load::prescan::is_skippable_kind(kind, group) {
        // Fixed schemas without scheduling fields: nothing to look for (and the fast path
        // does not even parse them).
        schema = Schema::Custom;
    } else {
        schema = Schema::Custom;
        // A Kueue ResourceFlavor's tolerations are its API's: Kueue adds them to the pods it
        // admits to the flavor (kueue `apis/kueue/v1beta1/resourceflavor_types.go`), so they
        // are judged where they are written.
        let lender = (kind, group) == ("ResourceFlavor", "kueue.x-k8s.io");
        let mut loose = None;
        search_custom(
            node,
            &mut String::new(),
            &mut pod_specs,
            &mut loose,
            0,
            lender,
        );
        unproven = loose.filter(|_| !lender);
        taints.extend(infra_taints(node, kind, group));
    }
    Object {
        node,
        id: std::sync::Arc::new(id),
        kind,
        api_version,
        group,
        version,
        schema,
        doc_path,
        pod_specs,
        taints,
        unschedulable,
        labels,
        annotations,
        unproven,
    }
}

/// Taint lists declared by node templates in infra-as-code (the pool sources' own validation
/// (Karpenter, eksctl, kubeadm)).
fn infra_taints<'a>(node: &'a Node, kind: &str, group: &str) -> Vec<TaintList<'a>> {
    let mut out = Vec::new();
    let mut add = |path: &[&str], origin: TaintOrigin| {
        if let Some(list) = node.path(path)
            && list.as_seq().is_some()
        {
            let p = path.join(".");
            out.push(TaintList::new(list, &p, &p).with_origin(origin));
        }
    };
    match (kind, group) {
        ("NodePool", "karpenter.sh") => {
            let k = |startup| TaintOrigin::Karpenter { startup };
            add(&["spec", "template", "spec", "taints"], k(false));
            add(&["spec", "template", "spec", "startupTaints"], k(true));
        }
        ("NodeClaim", "karpenter.sh") => {
            add(
                &["spec", "taints"],
                TaintOrigin::Karpenter { startup: false },
            );
            add(
                &["spec", "startupTaints"],
                TaintOrigin::Karpenter { startup: true },
            );
        }
        ("InitConfiguration" | "JoinConfiguration", "kubeadm.k8s.io") => {
            add(&["nodeRegistration", "taints"], TaintOrigin::Kubeadm);
        }
        ("KubeletConfiguration", "kubelet.config.k8s.io") => {
            add(&["registerWithTaints"], TaintOrigin::Kubeadm);
        }
        ("Machine", "cluster.x-k8s.io") => add(&["spec", "taints"], TaintOrigin::ClusterApi),
        ("MachineSet" | "MachineDeployment", "cluster.x-k8s.io") => {
            add(
                &["spec", "template", "spec", "taints"],
                TaintOrigin::ClusterApi,
            );
        }
        ("KubeadmConfigTemplate", "bootstrap.cluster.x-k8s.io") => add(
            &[
                "spec",
                "template",
                "spec",
                "joinConfiguration",
                "nodeRegistration",
                "taints",
            ],
            TaintOrigin::ClusterApi,
        ),
        ("KubeadmControlPlane", "controlplane.cluster.x-k8s.io") => {
            for c in ["initConfiguration", "joinConfiguration"] {
                add(
                    &["spec", "kubeadmConfigSpec", c, "nodeRegistration", "taints"],
                    TaintOrigin::ClusterApi,
                );
            }
        }
        ("ClusterConfig", "eksctl.io") => {
            for list in ["nodeGroups", "managedNodeGroups"] {
                for (i, ng) in node
                    .get(list)
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                {
                    if let Some(t) = ng.get("taints").filter(|t| t.as_seq().is_some()) {
                        let p = format!("{list}[{i}].taints");
                        out.push(TaintList::new(t, &p, &p).with_origin(TaintOrigin::Eksctl));
                    }
                }
            }
        }
        _ => {}
    }
    out
}

/// Keys that hold scheduling fields in a pod-spec-like mapping.
const SCHEDULING_KEYS: &[&str] = &["tolerations", "nodeSelector", "affinity"];

/// Finds pod-spec-like mappings in a custom resource: any mapping holding a `tolerations`
/// list, a `nodeSelector` mapping or an `affinity` mapping. Metadata and status are skipped.
/// Only a mapping that is a complete pod spec (it holds a `containers` list, as
/// `PodTemplateSpec.spec` does) is proven to reach a pod and becomes a spec; the first of
/// the others is kept in `unproven` (an operator's own type may hold tolerations for a node
/// agent it runs, or lend them to pods that also request the accelerator it names: only its
/// catalogue entry or a `workload-kinds:` entry says where they go).
/// `path` is the node's field path, one buffer for the whole walk: each level appends its key
/// or index and takes it off again, and only a spec found keeps a copy (formatting a new
/// string for every field of a custom resource cost more than the search).
fn search_custom<'a>(
    node: &'a Node,
    path: &mut String,
    out: &mut Vec<PodSpec<'a>>,
    unproven: &mut Option<crate::load::Span>,
    depth: usize,
    lender: bool,
) {
    if depth > 64 {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            let is_spec_like = entries.iter().any(|(k, v)| match k.text() {
                Some("tolerations") => v.as_seq().is_some(),
                Some("nodeSelector") => v.as_map().is_some() && !scheduling::is_label_selector(v),
                Some("affinity") => v.as_map().is_some(),
                _ => false,
            });
            // CloudNativePG's `affinity` is its own type holding tolerations and node
            // affinity: that mapping is the spec, not the one around it.
            let lends_affinity = entries.iter().all(|(k, v)| match k.text() {
                Some("affinity") => v.get("tolerations").and_then(Node::as_seq).is_some(),
                Some("tolerations" | "nodeSelector") => false,
                _ => true,
            });
            let complete = node.get("containers").and_then(Node::as_seq).is_some();
            if is_spec_like && !lends_affinity && !complete && !lender {
                if unproven.is_none() {
                    *unproven = entries
                        .iter()
                        .find(|(k, _)| k.text().is_some_and(|k| SCHEDULING_KEYS.contains(&k)))
                        .map(|(k, _)| k.span);
                }
            } else if is_spec_like && !lends_affinity {
                let mut spec = PodSpec::new(node, path.clone(), false);
                spec.generic = true;
                // A chart's values that pick the controller the chart renders (`kind:
                // DaemonSet`, ingress-nginx's `controller.kind`, the OpenTelemetry
                // Collector chart's `mode: daemonset`): its pods run one per node.
                let per_node = ["kind", "mode"].iter().any(|k| {
                    node.get(k)
                        .and_then(Node::text)
                        .is_some_and(|v| v.eq_ignore_ascii_case("DaemonSet"))
                });
                if per_node {
                    spec.role = Some(scheduling::Role {
                        name: String::new(),
                        pods: scheduling::PodCount::PerNode,
                        at: None,
                    });
                }
                out.push(spec);
            }
            for (k, v) in entries {
                let Some(key) = k.text() else { continue };
                if depth == 0 && matches!(key, "metadata" | "status" | "apiVersion" | "kind") {
                    continue;
                }
                // Core scheduling fields are modelled by the spec itself; an `affinity` of a
                // custom type may still hold tolerations of its own (CloudNativePG).
                if is_spec_like && SCHEDULING_KEYS.contains(&key) && key != "affinity" {
                    continue;
                }
                let len = path.len();
                if len > 0 {
                    path.push('.');
                }
                path.push_str(key);
                search_custom(v, path, out, unproven, depth + 1, lender);
                path.truncate(len);
            }
        }
        Value::Seq(items) => {
            let len = path.len();
            for (i, item) in items.iter().enumerate() {
                // Writing to a `String` cannot fail.
                let _ = write!(path, "[{i}]");
                search_custom(item, path, out, unproven, depth + 1, lender);
                path.truncate(len);
            }
        }
        Value::Scalar(_) => {}
    }
}

/// Joins a field path: `join("spec", "tolerations")` = `spec.tolerations`.
pub fn join(prefix: &str, child: &str) -> String {
    if prefix.is_empty() {
        child.to_string()
    } else {
        dotted(prefix, child)
    }
}

/// `a.b`, made for every field of every pod spec: no formatting machinery.
fn dotted(a: &str, b: &str) -> String {
    let mut text = String::with_capacity(a.len() + 1 + b.len());
    text.push_str(a);
    text.push('.');
    text.push_str(b);
    text
}
