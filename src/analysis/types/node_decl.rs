//! One declared node or node template, as a pool source reads it, before the inventory groups
//! the declarations into pools (see `sources::inventory`).

use super::labels::Labels;
use super::place::Place;
use super::taints::{PoolTaint, UnknownTaints};

/// One declared node or node template, before grouping into pools.
#[derive(Clone, Debug)]
pub struct NodeDecl {
    /// Where it comes from: `Node`, `NodePool`, `eksctl nodeGroup`, ...
    pub origin: &'static str,
    pub name: String,
    /// A real Node object (its name is a node name).
    pub is_node: bool,
    /// A template's limit on its nodes (see [`Pool::max_nodes`](super::pool::Pool::max_nodes)).
    pub max_nodes: Option<u32>,
    /// Without the labels whose value is `name` (see [`self_labels`](super::pool::self_labels)).
    pub labels: Labels,
    pub taints: Vec<PoolTaint>,
    pub unschedulable: bool,
    /// Well-known labels (`kubernetes.io/hostname`, zone, instance type...) that a template
    /// does not constrain exist with some value on its nodes.
    pub open_labels: bool,
    /// Its label set is only partly known: its nodes may carry any label (see
    /// [`Pool::any_label`](super::pool::Pool::any_label)).
    pub any_label: bool,
    /// See [`Pool::extended_resource_toleration`](super::pool::Pool::extended_resource_toleration).
    pub extended_resource_toleration: bool,
    /// See [`Pool::unknown_taints`](super::pool::Pool::unknown_taints).
    pub unknown_taints: UnknownTaints,
    /// Its part in a size set by another object (an OpenShift MachineAutoscaler), linked when
    /// the inventory is built (see `sources::scaling`); `None` for most.
    pub scaling: Option<Box<Scaling>>,
    pub loc: Place,
    /// Declared by the user as the cluster's pools (an `--inventory` file, the config's
    /// `inventory:` or inline pools, a taintlint `Inventory`), not merely found among the
    /// linted files: a cross-reference against declared pools may say "error".
    pub declared: bool,
    /// A Terraform pool's root module, module calls, address and unknown parts.
    pub terraform: Option<std::sync::Arc<super::terraform::Provenance>>,
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

/// A declaration's part in a size set elsewhere (see the module's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// A MachineSet of `namespace` a MachineAutoscaler may size. `replicas_only`: its
    /// `max_nodes` is its `spec.replicas`, no autoscaler annotation caps it.
    MachineSet {
        namespace: Box<str>,
        replicas_only: bool,
    },
    /// Not a pool: a MachineAutoscaler of `namespace` sizing MachineSet `target` up to `max`
    /// (`None`: not a literal count).
    Autoscaler {
        namespace: Box<str>,
        target: Box<str>,
        max: Option<u32>,
    },
}
