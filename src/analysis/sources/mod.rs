//! Where node pools are declared: one function per source format, each turning one object
//! into node declarations. [`node_decls`] picks the format by kind and API group.

mod capi;
pub mod clusters;
mod eksctl;
pub mod inventory;
mod inventory_file;
mod karpenter;
mod kubeadm;
pub(super) mod kubelet;
pub mod kueue;
pub mod links;
pub mod mentions;
mod node;
mod openshift;
pub mod provisioners;
pub mod scaling;
pub mod terraform;

pub use inventory_file::{inventory_pools, parse_taint_spec};
pub use terraform::{HclError, terraform_decls};

use std::sync::Arc;

use crate::load::yaml::Node;
use crate::load::{Loc, SourceFile, Span};
use crate::model::Object;

use crate::analysis::semantics::text;
use crate::analysis::types::{
    LabelValues, Labels, NodeDecl, Place, PoolTaint, TaintSpec, self_labels,
};

pub(super) fn loc(source: &Arc<SourceFile>, span: Span) -> Place {
    Place::Here(Loc {
        source: Arc::clone(source),
        span,
    })
}

pub(super) fn taint_list(
    list: Option<&Node>,
    source: &Arc<SourceFile>,
    startup: bool,
) -> Vec<PoolTaint> {
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

pub(super) fn label_map(map: Option<&Node>, labels: &mut Labels) {
    for (k, v) in map.and_then(Node::as_map).unwrap_or_default() {
        let Some(key) = k.text() else { continue };
        labels.insert(key, LabelValues::one(&text(Some(v))));
    }
}

/// The labels of a node template's `metadata.labels`.
pub(super) fn template_labels(tmpl: Option<&Node>) -> Labels {
    let mut labels = Labels::new();
    label_map(
        tmpl.and_then(|t| t.path(&["metadata", "labels"])),
        &mut labels,
    );
    labels
}

/// The control-plane taint kubeadm applies when `nodeRegistration.taints` is omitted.
pub(super) fn kubeadm_default_taint() -> PoolTaint {
    PoolTaint {
        taint: TaintSpec::new("node-role.kubernetes.io/control-plane", "", "NoSchedule").shared(),
        loc: None,
        startup: false,
    }
}

/// Node declarations in one object (none when it declares no node pool). A Kueue
/// `ResourceFlavor` declares none: it is Kueue's quota view of some nodes (one without
/// `nodeLabels` stands for any node), lending its labels and tolerations only to the workloads
/// Kueue admits with it, not a pool of nodes of its own.
pub fn node_decls(object: &Object<'_>, source: &Arc<SourceFile>) -> Vec<NodeDecl> {
    let mut out = Vec::new();
    let decls = Decls {
        object,
        source,
        out: &mut out,
    };
    match (object.kind, object.group) {
        ("Node", "") => node::node(decls),
        ("NodePool", "karpenter.sh") => karpenter::node_pool(decls),
        ("ClusterConfig", "eksctl.io") => eksctl::cluster_config(decls),
        ("InitConfiguration" | "JoinConfiguration", "kubeadm.k8s.io") => kubeadm::kubeadm(decls),
        ("KubeletConfiguration", "kubelet.config.k8s.io") => kubeadm::kubelet(decls),
        ("Machine", "cluster.x-k8s.io") => capi::machine(decls),
        ("MachineSet" | "MachineDeployment", "cluster.x-k8s.io") => capi::machine_template(decls),
        ("KubeadmConfigTemplate", "bootstrap.cluster.x-k8s.io") => {
            capi::kubeadm_config_template(decls);
        }
        ("KubeadmControlPlane", "controlplane.cluster.x-k8s.io") => {
            capi::kubeadm_control_plane(decls);
        }
        ("MachineSet", "machine.openshift.io") => openshift::machine_set(decls),
        ("MachineAutoscaler", "autoscaling.openshift.io") => {
            openshift::machine_autoscaler(decls);
        }
        ("Inventory", "taintlint.dev") => inventory_file::inventory(decls),
        _ => {}
    }
    out
}

/// What a source format's function gets: the object, its file, and where its declarations go.
pub(super) struct Decls<'a, 'o> {
    pub object: &'a Object<'o>,
    pub source: &'a Arc<SourceFile>,
    pub out: &'a mut Vec<NodeDecl>,
}

impl Decls<'_, '_> {
    /// The object's name (empty without one).
    pub(super) fn name(&self) -> String {
        self.object.id.name.clone().unwrap_or_default()
    }

    /// The object's `metadata.name`, or the object itself without one.
    pub(super) fn object_place(&self) -> Place {
        let node = self.object.node;
        loc(
            self.source,
            node.path(&["metadata", "name"])
                .map_or(node.span, |n| n.span),
        )
    }

    /// A place in the object's file.
    pub(super) fn place(&self, span: Span) -> Place {
        loc(self.source, span)
    }

    /// Declares a pool. Its own name labels (`self_labels`) follow from its origin and name and
    /// are not stored.
    pub(super) fn pool(
        &mut self,
        origin: &'static str,
        name: String,
        labels: Labels,
        taints: Vec<PoolTaint>,
        at: Place,
    ) -> &mut NodeDecl {
        self.declare(origin, name, false, labels, taints, at)
    }

    /// Declares a pool or a Node (`is_node`: one node, with exactly its labels).
    pub(super) fn declare(
        &mut self,
        origin: &'static str,
        name: String,
        is_node: bool,
        mut labels: Labels,
        taints: Vec<PoolTaint>,
        at: Place,
    ) -> &mut NodeDecl {
        for key in self_labels(origin) {
            labels.remove(key);
        }
        labels.shrink_to_fit();
        self.out.push(NodeDecl {
            origin,
            name,
            is_node,
            max_nodes: None,
            labels,
            taints,
            unschedulable: false,
            open_labels: !is_node,
            any_label: false,
            extended_resource_toleration: false,
            unknown_taints: Default::default(),
            scaling: None,
            loc: at,
            declared: false,
            terraform: None,
        });
        let last = self.out.len() - 1;
        &mut self.out[last]
    }
}
