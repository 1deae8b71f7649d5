//! Tolerations, taints and node selection, located in the tree. Every field keeps its key
//! node and value node, so a rule can point at either; spellings are kept verbatim
//! (`noSchedule`, `exists`) so rules can name them.

use crate::load::Span;
use crate::load::yaml::Node;

use super::join;

/// A mapping entry: the key node and the value node.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    pub key: &'a Node,
    pub value: &'a Node,
}

impl<'a> Field<'a> {
    fn of(map: &'a Node, key: &str) -> Option<Self> {
        map.entry(key).map(|(k, v)| Field { key: k, value: v })
    }

    /// The string the API server would receive, with YAML null as empty. Non-scalars give
    /// `None` (a type error that another rule reports).
    pub fn str(&self) -> Option<&'a str> {
        if self.value.is_null() {
            return Some("");
        }
        self.value.text()
    }

    pub fn span(&self) -> Span {
        self.value.span
    }

    /// Key and value together.
    pub fn entry_span(&self) -> Span {
        self.key.span.cover(self.value.span)
    }
}

fn str_of(f: Option<Field<'_>>) -> &str {
    f.and_then(|f| f.str()).unwrap_or("")
}

#[derive(Debug)]
pub struct Toleration<'a> {
    pub index: usize,
    pub node: &'a Node,
    /// Field path of this toleration inside its object, `spec.tolerations[0]`.
    pub path: String,
    pub key: Option<Field<'a>>,
    pub operator: Option<Field<'a>>,
    pub value: Option<Field<'a>>,
    pub effect: Option<Field<'a>>,
    pub seconds: Option<Field<'a>>,
}

impl<'a> Toleration<'a> {
    fn new(index: usize, node: &'a Node, path: String) -> Self {
        Toleration {
            index,
            node,
            path,
            key: Field::of(node, "key"),
            operator: Field::of(node, "operator"),
            value: Field::of(node, "value"),
            effect: Field::of(node, "effect"),
            seconds: Field::of(node, "tolerationSeconds"),
        }
    }

    pub fn key(&self) -> &'a str {
        str_of(self.key)
    }
    pub fn operator(&self) -> &'a str {
        str_of(self.operator)
    }
    pub fn value(&self) -> &'a str {
        str_of(self.value)
    }
    pub fn effect(&self) -> &'a str {
        str_of(self.effect)
    }

    /// `tolerationSeconds` as an integer, when it is one (YAML 1.1 rules).
    pub fn seconds(&self) -> Option<i64> {
        let f = self.seconds?;
        if f.value.is_null() {
            return None;
        }
        crate::load::yaml11::resolve(f.value).as_i64()
    }

    /// `tolerationSeconds` is present and not null.
    pub fn has_seconds(&self) -> bool {
        self.seconds.is_some_and(|f| !f.value.is_null())
    }

    /// The span to point at when a field is missing: the toleration itself.
    pub fn span(&self) -> Span {
        self.node.span
    }

    pub fn field_path(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }
}

#[derive(Debug)]
pub struct Taint<'a> {
    pub index: usize,
    pub node: &'a Node,
    /// Path in the document (`spec.taints[0]`).
    pub path: String,
    /// Path the API server reports (`metadata.taints[0]` for Nodes).
    pub api_path: String,
    pub key: Option<Field<'a>>,
    pub value: Option<Field<'a>>,
    pub effect: Option<Field<'a>>,
}

impl<'a> Taint<'a> {
    pub fn key(&self) -> &'a str {
        str_of(self.key)
    }
    pub fn value(&self) -> &'a str {
        str_of(self.value)
    }
    pub fn effect(&self) -> &'a str {
        str_of(self.effect)
    }
}

/// Who declares a taint list, and so whose validation applies to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaintOrigin {
    /// A Node object: the API server's `validateNodeTaints`.
    Node,
    /// Karpenter NodePool/NodeClaim `taints` or `startupTaints`: values are qualified names,
    /// (key, effect) unique across both lists.
    Karpenter { startup: bool },
    /// eksctl node groups: the EKS API limits the whole key to 63 characters.
    Eksctl,
    /// kubeadm `nodeRegistration.taints`, KubeletConfiguration `registerWithTaints`.
    Kubeadm,
    /// Cluster API machines and templates.
    ClusterApi,
}

/// A list of taints: a Node's `spec.taints`, or a node template's in infra-as-code.
#[derive(Debug)]
pub struct TaintList<'a> {
    pub node: &'a Node,
    pub path: String,
    pub api_path: String,
    pub origin: TaintOrigin,
    pub taints: Vec<Taint<'a>>,
}

impl<'a> TaintList<'a> {
    pub fn new(node: &'a Node, path: &str, api_path: &str) -> Self {
        let taints = node
            .as_seq()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.as_map().is_some())
            .map(|(i, t)| Taint {
                index: i,
                node: t,
                path: format!("{path}[{i}]"),
                api_path: format!("{api_path}[{i}]"),
                key: Field::of(t, "key"),
                value: Field::of(t, "value"),
                effect: Field::of(t, "effect"),
            })
            .collect();
        TaintList {
            node,
            path: path.to_string(),
            api_path: api_path.to_string(),
            origin: TaintOrigin::Node,
            taints,
        }
    }

    #[must_use]
    pub fn with_origin(mut self, origin: TaintOrigin) -> Self {
        self.origin = origin;
        self
    }
}

/// A pod spec (or a pod-spec-like block of a custom resource).
#[derive(Debug)]
pub struct PodSpec<'a> {
    pub node: &'a Node,
    /// Path of the spec inside its object (`spec.template.spec`); empty for the object root.
    pub path: String,
    /// The server validates this spec with `ValidatePodSpec` (a built-in kind).
    pub builtin: bool,
    pub tolerations_list: Option<Field<'a>>,
    pub tolerations: Vec<Toleration<'a>>,
    pub node_selector: Option<Field<'a>>,
    pub affinity: Option<Field<'a>>,
    pub node_name: Option<Field<'a>>,
    pub host_network: bool,
}

impl<'a> PodSpec<'a> {
    pub fn new(node: &'a Node, path: String, builtin: bool) -> Self {
        let tolerations_list = Field::of(node, "tolerations");
        let tol_path = join(&path, "tolerations");
        let tolerations = tolerations_list
            .and_then(|f| f.value.as_seq())
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.as_map().is_some())
            .map(|(i, t)| Toleration::new(i, t, format!("{tol_path}[{i}]")))
            .collect();
        PodSpec {
            node,
            tolerations_list,
            tolerations,
            // Custom resources often call a label selector `nodeSelector`
            // (`{matchLabels: …}`); only a map of strings is a pod's nodeSelector.
            node_selector: Field::of(node, "nodeSelector")
                .filter(|f| builtin || !is_label_selector(f.value)),
            affinity: Field::of(node, "affinity"),
            node_name: Field::of(node, "nodeName").filter(|f| !f.value.is_null()),
            host_network: node.get("hostNetwork").and_then(Node::text) == Some("true"),
            path,
            builtin,
        }
    }

    pub fn field_path(&self, child: &str) -> String {
        join(&self.path, child)
    }

    /// Required node affinity terms (`nodeSelectorTerms`), if present.
    pub fn required_affinity(&self) -> Option<&'a Node> {
        self.node_affinity()?
            .get("requiredDuringSchedulingIgnoredDuringExecution")
    }

    /// The spec's node affinity: `affinity.nodeAffinity`, or, in a custom resource, a
    /// `nodeAffinity` beside its tolerations (Zalando's `postgresql`, CloudNativePG's
    /// `affinity` configuration), which the operator copies into its pods.
    pub fn node_affinity(&self) -> Option<&'a Node> {
        self.affinity
            .and_then(|a| a.value.get("nodeAffinity"))
            .or_else(|| {
                (!self.builtin)
                    .then(|| self.node.get("nodeAffinity"))
                    .flatten()
                    .filter(|n| n.as_map().is_some())
            })
    }

    /// The `topologySpreadConstraints` items (empty when there are none or it is no list).
    pub fn spread_constraints(&self) -> &'a [Node] {
        self.node
            .get("topologySpreadConstraints")
            .and_then(Node::as_seq)
            .unwrap_or_default()
    }

    /// The label keys the preferred node affinity's terms draw the pod to (soft placement:
    /// the scheduler favours nodes with them but may place the pod elsewhere): keys of `In`,
    /// `Exists`, `Gt` and `Lt` expressions.
    pub fn preferred_keys(&self) -> Vec<&'a str> {
        self.preferred_expressions(false)
    }

    /// The label keys the preferred node affinity's terms steer the pod away from: keys of
    /// `NotIn` and `DoesNotExist` expressions (a node with the label, or with one of the
    /// listed values, does not match the preference and scores lower;
    /// k8s.io/component-helpers/scheduling/corev1/nodeaffinity, `PreferredSchedulingTerms`).
    pub fn avoided_keys(&self) -> Vec<&'a str> {
        self.preferred_expressions(true)
    }

    /// Keys of the preferred terms' expressions: those of avoidance (`NotIn`,
    /// `DoesNotExist`) or of attraction (the others).
    fn preferred_expressions(&self, avoidance: bool) -> Vec<&'a str> {
        let Some(node_affinity) = self.node_affinity() else {
            return Vec::new();
        };
        node_affinity
            .get("preferredDuringSchedulingIgnoredDuringExecution")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t.path(&["preference", "matchExpressions"]))
            .filter_map(Node::as_seq)
            .flatten()
            .filter(|e| {
                let op = e.get("operator").and_then(Node::text).unwrap_or("");
                matches!(op, "NotIn" | "DoesNotExist") == avoidance
            })
            .filter_map(|e| e.get("key").and_then(Node::text))
            .collect()
    }

    /// The resources its containers and init containers request or limit, each once, in the
    /// order written.
    pub fn resource_names(&self) -> Vec<&'a str> {
        let mut names = Vec::new();
        for list in ["containers", "initContainers"] {
            for c in self
                .node
                .get(list)
                .and_then(Node::as_seq)
                .unwrap_or_default()
            {
                for k in ["limits", "requests"] {
                    let map = c.path(&["resources", k]).and_then(Node::as_map);
                    for (name, _) in map.unwrap_or_default() {
                        if let Some(n) = name.text()
                            && !names.contains(&n)
                        {
                            names.push(n);
                        }
                    }
                }
            }
        }
        names
    }

    /// The extended resources (`vendor.example/name`) its containers request or limit.
    pub fn extended_resources(&self) -> Vec<&'a str> {
        let mut names = self.resource_names();
        names.retain(|n| n.contains('/'));
        names
    }

    /// The pod is pinned to some nodes: a non-empty nodeSelector, required node affinity, or
    /// `nodeName`.
    pub fn is_pinned(&self) -> bool {
        let selector = self
            .node_selector
            .and_then(|f| f.value.as_map())
            .is_some_and(|m| !m.is_empty());
        let affinity = self
            .required_affinity()
            .and_then(|r| r.get("nodeSelectorTerms"))
            .and_then(Node::as_seq)
            .is_some_and(|t| !t.is_empty());
        selector || affinity || self.node_name.is_some()
    }
}

impl Toleration<'_> {
    /// The matching-relevant strings.
    pub fn tol(&self) -> Tol<'_> {
        Tol {
            key: self.key(),
            operator: self.operator(),
            value: self.value(),
            effect: self.effect(),
        }
    }
}

/// `{matchLabels: …}` / `{matchExpressions: …}`: a metav1.LabelSelector, not a nodeSelector.
pub fn is_label_selector(node: &Node) -> bool {
    node.as_map().is_some_and(|entries| {
        entries.iter().any(|(k, v)| {
            matches!(k.text(), Some("matchLabels" | "matchExpressions")) && v.as_scalar().is_none()
        })
    })
}

impl PodSpec<'_> {
    /// Does the pod ask for devices only some nodes have: an extended resource
    /// (`nvidia.com/gpu`; the NodeResourcesFit filter only admits nodes that offer it) or a
    /// DRA `resourceClaims` entry (the DynamicResources filter only admits nodes whose devices
    /// can satisfy the claim)? Such a pod is pinned to those nodes as surely as by a selector.
    pub fn requests_devices(&self) -> bool {
        !self.extended_resources().is_empty() || self.has_resource_claims()
    }

    /// A built-in kind's pod spec without `containers`, which the API server requires
    /// (`spec.containers: Required value`): a fragment merged onto a base kept elsewhere (a
    /// kustomize patch, an overlay), whose scheduling fields are only part of the pod's.
    pub fn is_fragment(&self) -> bool {
        self.builtin && self.node.get("containers").is_none()
    }

    /// A non-empty `resourceClaims` list (dynamic resource allocation).
    pub fn has_resource_claims(&self) -> bool {
        self.node
            .get("resourceClaims")
            .and_then(Node::as_seq)
            .is_some_and(|c| !c.is_empty())
    }
}

/// The four strings that decide matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tol<'a> {
    pub key: &'a str,
    pub operator: &'a str,
    pub value: &'a str,
    pub effect: &'a str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaintRef<'a> {
    pub key: &'a str,
    pub value: &'a str,
    pub effect: &'a str,
}
