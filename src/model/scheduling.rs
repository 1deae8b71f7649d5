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
    pub(crate) fn of(map: &'a Node, key: &str) -> Option<Self> {
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
    /// Its index in `list`.
    pub index: usize,
    pub node: &'a Node,
    /// The list it is an item of (an operator may merge several into a pod's).
    pub list: &'a Node,
    /// Field path of this toleration inside its object, `spec.tolerations[0]`.
    pub path: String,
    pub key: Option<Field<'a>>,
    pub operator: Option<Field<'a>>,
    pub value: Option<Field<'a>>,
    pub effect: Option<Field<'a>>,
    pub seconds: Option<Field<'a>>,
}

impl<'a> Toleration<'a> {
    pub(crate) fn new(index: usize, node: &'a Node, list: &'a Node, path: String) -> Self {
        Toleration {
            index,
            node,
            list,
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

/// A field as written, with its field path in the object (`spec.nodePlacement.tolerations`).
#[derive(Clone, Debug)]
pub struct Part<'a> {
    pub key: &'a Node,
    pub value: &'a Node,
    pub path: String,
}

impl<'a> Part<'a> {
    pub fn of(map: &'a Node, key: &str, prefix: &str) -> Option<Self> {
        map.entry(key).map(|(k, v)| Part {
            key: k,
            value: v,
            path: join(prefix, key),
        })
    }

    pub fn field(&self) -> Field<'a> {
        Field {
            key: self.key,
            value: self.value,
        }
    }

    /// The path of a field inside it.
    pub fn child(&self, name: &str) -> String {
        join(&self.path, name)
    }
}

pub use crate::settings::SelectorShape;

/// A node selector as written: a pod's map, or a label selector an operator reads.
#[derive(Clone, Debug)]
pub struct Selector<'a> {
    pub part: Part<'a>,
    pub shape: SelectorShape,
}

impl<'a> Selector<'a> {
    /// The entries of a map-shaped selector (none for a label selector or a non-map).
    pub fn map(&self) -> &'a [(Node, Node)] {
        match self.shape {
            SelectorShape::Map => self.part.value.as_map().unwrap_or_default(),
            _ => &[],
        }
    }
}

/// What a field's value is, for the decoding rules (`yaml-type-mismatch`, `unknown-field`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typed {
    /// A whole pod spec, as the API server's `PodSpec` (a built-in kind).
    PodSpec,
    /// A pod-spec-like mapping a generic search found in a custom resource.
    CustomPodSpec,
    /// An operator's pod spec: the core fields, core-typed.
    OperatorPodSpec,
    /// A RuntimeClass's `scheduling`.
    Scheduling,
    Tolerations,
    NodeSelector,
    LabelSelector,
    Affinity,
    NodeAffinity,
    /// Anything else: only its YAML is checked.
    Other,
}

/// A field as written and what it is.
#[derive(Clone, Debug)]
pub struct Written<'a> {
    pub part: Part<'a>,
    pub typed: Typed,
}

/// How many pods a pod spec makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodCount {
    /// Not said by the object (or not a kind that says it).
    Unknown,
    /// One per node it may run on: a DaemonSet, an operator's node agent.
    PerNode,
    /// This many, written at the span (`None`: the default).
    Replicas(u32, Option<Span>),
}

/// An operator's pod role: how messages name it, how many pods it makes.
#[derive(Clone, Debug)]
pub struct Role {
    /// `broker`, `nodeSet masters`; empty for a kind's only pods.
    pub name: String,
    pub pods: PodCount,
    /// Where the role's own fields are (`spec.placement.mon`); the object when not written.
    pub at: Option<Span>,
}

/// A requirement of required node affinity, owned (what an operator adds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

/// What an operator adds to or sets in its pods that the resource does not write: defaults,
/// merged pieces, generated anti-affinity. Each piece has a line in `notes`, with the operator's
/// source, for `explain`.
#[derive(Clone, Debug, Default)]
pub struct Synth {
    pub node_selector: Vec<(String, String)>,
    /// Required node-affinity requirements added to every term (a term of their own when the
    /// pod has none).
    pub requirements: Vec<Need>,
    pub tolerations: Vec<crate::settings::PlainToleration>,
    /// Required anti-affinity to its own pods on `kubernetes.io/hostname`: one pod per node.
    pub one_per_node: bool,
    /// Extended resources its containers request (`nvidia.com/gpu`).
    pub resources: Vec<String>,
    /// Topology keys of `DoNotSchedule` spread constraints over its own pods.
    pub spread_keys: Vec<String>,
    /// Labels it gives the pods (which their own affinity terms may select).
    pub labels: Vec<(String, String)>,
    /// It fills in the fields of the role's topology spread constraints left at Go's zero
    /// value (`maxSkew: 0`, no `topologyKey`, no `whenUnsatisfiable`) before the pods reach
    /// the server, so only values the server refuses whatever it adds are findings.
    pub spread_defaults: bool,
    /// Where findings about these pieces point (the field that causes them).
    pub span: Option<Span>,
    /// The operator makes no pods of this role for this object.
    pub none: bool,
    pub notes: Vec<String>,
}

impl Synth {
    pub fn is_empty(&self) -> bool {
        self.node_selector.is_empty()
            && self.requirements.is_empty()
            && self.tolerations.is_empty()
            && !self.one_per_node
            && self.resources.is_empty()
            && self.spread_keys.is_empty()
            && self.labels.is_empty()
            && !self.spread_defaults
            && !self.none
            && self.notes.is_empty()
    }
}

/// A pod spec: a built-in workload's, a pod-spec-like block of a custom resource, or the
/// fields of an operator's pod role gathered from wherever the operator keeps them. Each
/// field keeps where it is written, so rules point at the operator's own field.
#[derive(Debug)]
pub struct PodSpec<'a> {
    /// The mapping that holds the spec (an operator role's place, or the object).
    pub node: &'a Node,
    /// Path of the spec inside its object (`spec.template.spec`, `spec.placement.mon`); empty
    /// for the object root.
    pub path: String,
    /// The server validates this spec with `ValidatePodSpec` (a built-in kind).
    pub builtin: bool,
    /// Found by the pod-spec search in a custom resource no catalogue entry describes
    /// (`model::search_custom`): what its operator makes of the fields is not known.
    pub generic: bool,
    /// An operator's pod role (`model::operators`, `workload-kinds:`).
    pub role: Option<Role>,
    /// The tolerations list in effect (the last one written when lists override each other).
    pub tolerations_list: Option<Field<'a>>,
    /// The pod's tolerations, merged as the operator merges them.
    pub tolerations: Vec<Toleration<'a>>,
    /// The node selectors in effect, layered (a later one's keys win).
    pub node_selectors: Vec<Selector<'a>>,
    /// The core `affinity` block in effect, when the spec has one.
    pub affinity: Option<Part<'a>>,
    pub node_affinity: Option<Part<'a>>,
    pub pod_affinity: Option<Part<'a>>,
    pub pod_anti_affinity: Option<Part<'a>>,
    pub topology_spread: Option<Part<'a>>,
    pub node_name: Option<Field<'a>>,
    pub host_network: bool,
    pub priority_class: Option<Part<'a>>,
    pub runtime_class: Option<Part<'a>>,
    /// `ResourceRequirements` mappings (the pod's own `resources`, an operator's fields).
    pub resources: Vec<&'a Node>,
    /// Lists (or maps by name) of containers.
    pub containers: Vec<&'a Node>,
    pub resource_claims: bool,
    /// Every field as written, for the decoding rules.
    pub written: Vec<Written<'a>>,
    /// A pod's `nodeSelector` map may be added to `node`, beside its tolerations (a fix may
    /// write one there).
    pub selector_here: bool,
    /// What the operator adds.
    pub synth: Option<Box<Synth>>,
}

impl<'a> PodSpec<'a> {
    /// The pod spec at `node` (at `path`), every field read off that mapping.
    pub fn new(node: &'a Node, path: String, builtin: bool) -> Self {
        let mut spec = PodSpec::empty(node, path.clone(), builtin);
        let typed = if builtin {
            if path == "scheduling" {
                Typed::Scheduling
            } else {
                Typed::PodSpec
            }
        } else {
            Typed::CustomPodSpec
        };
        if let Some(list) = Part::of(node, "tolerations", &path) {
            spec.tolerations = tolerations_of(&list);
            spec.tolerations_list = Some(list.field());
        }
        // Custom resources often call a label selector `nodeSelector` (`{matchLabels: …}`);
        // only a map of strings is a pod's nodeSelector.
        if let Some(sel) =
            Part::of(node, "nodeSelector", &path).filter(|f| builtin || !is_label_selector(f.value))
        {
            spec.node_selectors.push(Selector {
                part: sel,
                shape: SelectorShape::Map,
            });
        }
        if let Some(affinity) = Part::of(node, "affinity", &path) {
            spec.node_affinity = Part::of(affinity.value, "nodeAffinity", &affinity.path);
            spec.pod_affinity = Part::of(affinity.value, "podAffinity", &affinity.path);
            spec.pod_anti_affinity = Part::of(affinity.value, "podAntiAffinity", &affinity.path);
            spec.affinity = Some(affinity);
        }
        // In a custom resource, a `nodeAffinity` beside its tolerations (Zalando's
        // `postgresql`, CloudNativePG's `affinity` configuration), which the operator copies
        // into its pods.
        if !builtin && spec.node_affinity.is_none() {
            spec.node_affinity =
                Part::of(node, "nodeAffinity", &path).filter(|p| p.value.as_map().is_some());
        }
        spec.topology_spread = Part::of(node, "topologySpreadConstraints", &path);
        spec.node_name = Field::of(node, "nodeName").filter(|f| !f.value.is_null());
        spec.host_network = node.get("hostNetwork").and_then(Node::text) == Some("true");
        spec.priority_class = Part::of(node, "priorityClassName", &path);
        spec.runtime_class = Part::of(node, "runtimeClassName", &path);
        spec.resources.extend(node.get("resources"));
        for list in ["containers", "initContainers"] {
            spec.containers.extend(node.get(list));
        }
        spec.resource_claims = node
            .get("resourceClaims")
            .and_then(Node::as_seq)
            .is_some_and(|c| !c.is_empty());
        // The whole spec is written here: the path's last use.
        spec.written = vec![Written {
            part: Part {
                key: node,
                value: node,
                path,
            },
            typed,
        }];
        spec
    }

    /// A spec with no field yet.
    pub(crate) fn empty(node: &'a Node, path: String, builtin: bool) -> Self {
        PodSpec {
            node,
            path,
            builtin,
            generic: false,
            role: None,
            tolerations_list: None,
            tolerations: Vec::new(),
            node_selectors: Vec::new(),
            affinity: None,
            node_affinity: None,
            pod_affinity: None,
            pod_anti_affinity: None,
            topology_spread: None,
            node_name: None,
            host_network: false,
            priority_class: None,
            runtime_class: None,
            resources: Vec::new(),
            containers: Vec::new(),
            resource_claims: false,
            written: Vec::new(),
            selector_here: true,
            synth: None,
        }
    }

    pub fn field_path(&self, child: &str) -> String {
        join(&self.path, child)
    }

    /// Required node affinity (`requiredDuringSchedulingIgnoredDuringExecution`), if present.
    pub fn required_affinity(&self) -> Option<&'a Node> {
        self.node_affinity
            .as_ref()?
            .value
            .get("requiredDuringSchedulingIgnoredDuringExecution")
    }

    /// The spec's node affinity block in effect.
    pub fn node_affinity(&self) -> Option<&'a Node> {
        self.node_affinity.as_ref().map(|p| p.value)
    }

    /// The `topologySpreadConstraints` items (empty when there are none or it is no list).
    pub fn spread_constraints(&self) -> &'a [Node] {
        self.topology_spread
            .as_ref()
            .and_then(|p| p.value.as_seq())
            .unwrap_or_default()
    }

    /// The entries of its map-shaped node selectors, layered (a later key overrides).
    /// The `nodeSelector` maps' entries, patch directives left out.
    pub fn selector_entries(&self) -> impl Iterator<Item = &'a (Node, Node)> + '_ {
        self.node_selectors
            .iter()
            .flat_map(Selector::map)
            .filter(|(k, _)| !k.text().is_some_and(is_patch_directive))
    }

    /// `priorityClassName`, when written as text.
    pub fn priority_class_name(&self) -> Option<&'a str> {
        self.priority_class.as_ref().and_then(|p| p.value.text())
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

    /// The containers of its container lists (or maps of containers by name).
    fn each_container(&self) -> impl Iterator<Item = &'a Node> + '_ {
        // A list is a sequence or a mapping (name → container), never both.
        self.containers.iter().flat_map(|list| {
            let seq = list.as_seq().unwrap_or_default().iter();
            seq.chain(list.as_map().unwrap_or_default().iter().map(|(_, v)| v))
        })
    }

    /// Every `ResourceRequirements` mapping: the spec's own and each container's.
    pub fn all_resources(&self) -> impl Iterator<Item = &'a Node> + '_ {
        self.resources
            .iter()
            .copied()
            .chain(self.each_container().filter_map(|c| c.get("resources")))
    }

    /// The resources its containers (and the pod, and the operator's resource fields)
    /// request or limit, each once, in the order written.
    pub fn resource_names(&self) -> Vec<&'a str> {
        let mut names = Vec::new();
        for n in self.each_resource_name() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    /// Every name under `limits` and `requests` of [`Self::all_resources`], in the order
    /// written, repeats included.
    fn each_resource_name(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.all_resources().flat_map(|r| {
            ["limits", "requests"].into_iter().flat_map(move |k| {
                r.get(k)
                    .and_then(Node::as_map)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|(name, _)| name.text())
            })
        })
    }

    /// The extended resources (`vendor.example/name`) it requests or limits, with the ones
    /// its operator adds.
    pub fn extended_resources(&self) -> Vec<String> {
        // `resource_names`' order, only the names with a `/` (most specs have none).
        let mut names: Vec<String> = Vec::new();
        for n in self.each_resource_name().filter(|n| n.contains('/')) {
            if !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
        for r in self.synth.iter().flat_map(|s| &s.resources) {
            if !names.contains(r) {
                names.push(r.clone());
            }
        }
        names
    }

    /// The pod is pinned to some nodes: a non-empty nodeSelector (its own or its operator's),
    /// required node affinity, or `nodeName`.
    pub fn is_pinned(&self) -> bool {
        let selector = self.node_selectors.iter().any(|s| match s.shape {
            SelectorShape::Map => s.part.value.as_map().is_some_and(|m| !m.is_empty()),
            _ => s.part.value.as_map().is_some_and(|m| {
                m.iter().any(|(_, v)| {
                    v.as_map().is_some_and(|m| !m.is_empty())
                        || v.as_seq().is_some_and(|s| !s.is_empty())
                })
            }),
        });
        let affinity = self
            .required_affinity()
            .and_then(|r| r.get("nodeSelectorTerms"))
            .and_then(Node::as_seq)
            .is_some_and(|t| !t.is_empty());
        let synth = self
            .synth
            .as_ref()
            .is_some_and(|s| !s.node_selector.is_empty() || !s.requirements.is_empty());
        selector || affinity || synth || self.node_name.is_some()
    }

    /// One pod on every node it may run on (a DaemonSet's, an operator's node agent).
    pub fn per_node(&self) -> bool {
        self.role
            .as_ref()
            .is_some_and(|r| r.pods == PodCount::PerNode)
    }
}

/// The tolerations of a list field.
pub(crate) fn tolerations_of<'a>(list: &Part<'a>) -> Vec<Toleration<'a>> {
    list.value
        .as_seq()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, t)| t.as_map().is_some())
        .map(|(i, t)| Toleration::new(i, t, list.value, format!("{}[{i}]", list.path)))
        .collect()
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

/// A strategic-merge-patch directive written as a map key: `$patch` (`replace`, `delete`,
/// `merge`), `$retainKeys`, `$setElementOrder/<field>` and `$deleteFromPrimitiveList/<field>`
/// (k8s.io/apimachinery pkg/util/strategicpatch/patch.go: `directiveMarker`,
/// `retainKeysDirective`, `setElementOrderDirectivePrefix`,
/// `deleteFromPrimitiveListDirectivePrefix`). A document holding one is a patch (a kustomize
/// `patches:` entry, `kubectl patch`): the merge consumes the key, so it is neither a field nor
/// a label, and it never reaches the API server.
pub fn is_patch_directive(key: &str) -> bool {
    matches!(key, "$patch" | "$retainKeys")
        || key.starts_with("$setElementOrder/")
        || key.starts_with("$deleteFromPrimitiveList/")
}

impl PodSpec<'_> {
    /// Does the pod ask for devices only some nodes have: an extended resource
    /// (`nvidia.com/gpu`; the NodeResourcesFit filter only admits nodes that offer it) or a
    /// DRA `resourceClaims` entry (the DynamicResources filter only admits nodes whose devices
    /// can satisfy the claim)? Such a pod is pinned to those nodes as surely as by a selector.
    pub fn requests_devices(&self) -> bool {
        !self.extended_resources().is_empty() || self.resource_claims
    }

    /// A built-in kind's pod spec without `containers`, which the API server requires
    /// (`spec.containers: Required value`): a fragment merged onto a base kept elsewhere (a
    /// kustomize patch, an overlay), whose scheduling fields are only part of the pod's.
    pub fn is_fragment(&self) -> bool {
        self.builtin && self.node.get("containers").is_none()
    }

    /// A non-empty `resourceClaims` list (dynamic resource allocation).
    pub fn has_resource_claims(&self) -> bool {
        self.resource_claims
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
