//! What a pool is: a group of nodes that schedule alike, with the labels and taints the
//! scheduler sees, its size and where it is declared.

use std::sync::Arc;

use crate::analysis::semantics::well_known::{is_transient_taint, is_well_known_label};
use crate::util::intern;

use super::labels::{LabelValues, Labels};
use super::place::Place;
use super::taints::{PoolTaint, UnknownTaints};

/// A group of nodes that schedule alike.
#[derive(Clone, Debug)]
pub struct Pool {
    pub name: Box<str>,
    pub origin: &'static str,
    pub labels: Labels,
    pub taints: Box<[PoolTaint]>,
    pub unschedulable: bool,
    pub open_labels: bool,
    /// The declaration's label set is only partly known (a Terraform `labels = var.labels`):
    /// its nodes may carry any label, with any value.
    pub any_label: bool,
    /// The cluster runs the ExtendedResourceToleration admission plugin (GKE and EKS do): a
    /// pod requesting an extended resource (`nvidia.com/gpu`) tolerates the `NoSchedule`
    /// taints with that key without writing it.
    pub extended_resource_toleration: bool,
    /// Taints the declaration has but that are not known before Terraform evaluates them.
    pub unknown_taints: UnknownTaints,
    /// Names of the Node objects in the pool (empty for templates).
    pub nodes: Box<[String]>,
    /// Keys of `labels` whose value is the first node's only: the pool's other nodes have
    /// another value, or none (Node objects group by the label keys workloads select, and
    /// the pool keeps the first node's labels). A fix never selects them.
    pub mixed_labels: Box<[Arc<str>]>,
    /// The most nodes a template pool can have, when its source says (eksctl `maxSize`, a
    /// Karpenter `limits.nodes`); see [`Pool::size`].
    pub max_nodes: Option<u32>,
    /// Where it is declared (see `sources::inventory::Inventory::loc`).
    pub loc: Place,
    /// Declared by the user as part of the cluster (see [`NodeDecl::declared`](super::node_decl::NodeDecl::declared)).
    pub declared: bool,
    /// See [`NodeDecl::terraform`](super::node_decl::NodeDecl::terraform).
    pub terraform: Option<std::sync::Arc<super::terraform::Provenance>>,
}

impl Pool {
    /// How many nodes the pool has at most: its Node objects, or its source's limit; `None`
    /// when unknown (an autoscaled group without a limit in the files).
    pub fn size(&self) -> Option<usize> {
        if self.nodes.is_empty() {
            self.max_nodes.map(|n| n as usize)
        } else {
            Some(self.nodes.len())
        }
    }

    /// Does it stand for node groups the files do not show: the instances of a Terraform
    /// `for_each`, `count` or node-group map known only in part (`eks_managed_node_groups[*]`)?
    /// Such a pool may not exist at all; what it may carry is unknown.
    pub fn stands_for_unknown_groups(&self) -> bool {
        self.terraform
            .as_ref()
            .is_some_and(|t| t.address.ends_with("[*]"))
    }

    /// Taints that filter pods (NoSchedule/NoExecute, not startup, not transient).
    pub fn blocking_taints(&self) -> impl Iterator<Item = (usize, &PoolTaint)> {
        self.taints.iter().enumerate().filter(|(_, t)| {
            !t.startup
                && !is_transient_taint(&t.taint.key)
                && matches!(&*t.taint.effect, "NoSchedule" | "NoExecute")
        })
    }

    /// [`Pool::label`] without copying the values.
    pub fn label_ref(&self, key: &str) -> Option<LabelRef<'_>> {
        if self_labels(self.origin).contains(&key) {
            return Some(LabelRef::Name(&self.name));
        }
        match self.labels.get(key) {
            Some(LabelValues::Any) => Some(LabelRef::Any),
            Some(LabelValues::OneOf(vs)) => Some(LabelRef::OneOf(vs)),
            None if self.open_labels && is_well_known_label(key) => Some(LabelRef::Any),
            None if self.any_label => Some(LabelRef::Any),
            None => None,
        }
    }

    pub fn label(&self, key: &str) -> Option<LabelValues> {
        if self_labels(self.origin).contains(&key) {
            // Not interned: pool names are many and each is looked up rarely.
            return Some(LabelValues::OneOf(Box::new([Arc::from(&*self.name)])));
        }
        match self.labels.get(key) {
            Some(v) => Some(v.clone()),
            None if self.open_labels && is_well_known_label(key) => Some(LabelValues::Any),
            None if self.any_label => Some(LabelValues::Any),
            None => None,
        }
    }

    /// Every label the pool's nodes carry, sorted by key: `labels` with the self labels
    /// (see [`self_labels`]).
    pub fn all_labels(&self) -> Vec<(Arc<str>, LabelValues)> {
        let mut all: Vec<(Arc<str>, LabelValues)> = self
            .labels
            .iter()
            .filter(|(k, _)| !self_labels(self.origin).iter().any(|s| *s == &***k))
            .map(|(k, v)| (Arc::clone(k), v.clone()))
            .collect();
        for key in self_labels(self.origin) {
            if let Some(values) = self.label(key) {
                all.push((intern(key), values));
            }
        }
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// `NodePool gpu`, `node ml-1`, `p3.2xlarge (2 nodes)`.
    /// How messages, `explain` and `matrix` name the pool; a name with a line break or another
    /// control character (never valid, but the input's) is escaped, so it stays on its line.
    pub fn title(&self) -> String {
        let name = crate::util::text::escape(&self.name);
        match self.nodes.len() {
            0 => format!("{} `{name}`", self.origin),
            1 => format!("node `{name}`"),
            n => format!("`{name}` ({n} nodes)"),
        }
    }

    /// [`Pool::title`] as Markdown for a renderer (the language server's hovers): the name a
    /// code span no name can end, the rest text (`util::markup`).
    pub fn title_markdown(&self) -> String {
        use crate::util::markup::{md_code, md_text};
        let name = md_code(&self.name);
        match self.nodes.len() {
            0 => format!("{} {name}", md_text(self.origin)),
            1 => format!("node {name}"),
            n => format!("{name} ({n} nodes)"),
        }
    }
}

/// What a pool's nodes carry under one label key, borrowed (see [`Pool::label_ref`]).
#[derive(Clone, Copy, Debug)]
pub enum LabelRef<'a> {
    /// Present, with a value the declaration does not fix.
    Any,
    /// Present, with one of these values.
    OneOf(&'a [Arc<str>]),
    /// Present, with the pool's name as its value (see [`self_labels`]).
    Name(&'a str),
}

impl<'a> LabelRef<'a> {
    /// The values, when known (`None` for [`LabelRef::Any`]).
    pub fn values(self) -> Option<impl Iterator<Item = &'a str>> {
        let (list, name): (&'a [Arc<str>], Option<&'a str>) = match self {
            LabelRef::Any => return None,
            LabelRef::OneOf(vs) => (vs, None),
            LabelRef::Name(n) => (&[], Some(n)),
        };
        Some(list.iter().map(|v| &**v).chain(name))
    }

    /// Does a node of the pool carry this value (any value, for [`LabelRef::Any`])?
    pub fn admits(self, value: &str) -> bool {
        match self.values() {
            None => true,
            Some(mut vs) => vs.any(|v| v == value),
        }
    }
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
