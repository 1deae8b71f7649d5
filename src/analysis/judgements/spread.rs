//! The domains of a hard topology spread constraint over the known node pools: which values of
//! its `topologyKey` the pod can reach, and which the PodTopologySpread filter counts although
//! the pod can never run there (its node inclusion policies, `nodeAffinityPolicy` and
//! `nodeTaintsPolicy`: pkg/scheduler/framework/plugins/podtopologyspread/common.go in
//! kubernetes/kubernetes). Shared by `spread-counts-unreachable-domains` and `explain`.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::schedule::{Reason, Verdicts};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::LabelValues;
use crate::analysis::types::pod_affinity::Spread;
use crate::analysis::types::workload::Workload;

/// Why a counted pool cannot take the pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Block {
    /// Its taints (or cordon), counted because `nodeTaintsPolicy` is Ignore.
    Taints,
    /// The pod's node selector or affinity, counted because `nodeAffinityPolicy` is Ignore.
    Selector,
}

#[derive(Debug, Default)]
pub struct Domains {
    /// Values of the key on pools that admit the pod.
    pub reachable: BTreeSet<Arc<str>>,
    /// Counted values no admitting pool has: (value, pool index, why the pool rejects), sorted.
    pub blocked: Vec<(Arc<str>, usize, Block)>,
}

impl Domains {
    /// The distinct unreachable values.
    pub fn unreachable(&self) -> BTreeSet<&Arc<str>> {
        self.blocked.iter().map(|(v, _, _)| v).collect()
    }

    /// How many of the workload's pods can schedule at most, when a counted domain is
    /// unreachable (each reachable domain takes `maxSkew`); `None` when none is.
    pub fn capacity(&self, spread: &Spread) -> Option<usize> {
        (!self.blocked.is_empty() && !self.reachable.is_empty())
            .then(|| spread.max_skew as usize * self.reachable.len())
    }
}

/// The constraint's domains over the inventory's pools; `None` when a pool's value of the key
/// is not known (a template that leaves it to the provider).
pub fn domains(
    inventory: &Inventory,
    w: &Workload,
    fits: &Verdicts,
    spread: &Spread,
) -> Option<Domains> {
    let mut d = Domains::default();
    for (p, pool) in inventory.pools.iter().enumerate() {
        let values = match pool.label(&spread.topology_key) {
            // Not a domain: nodes without the key are left out.
            None => continue,
            Some(LabelValues::Any) => return None,
            Some(LabelValues::OneOf(vs)) => vs,
        };
        if fits.admits(p) {
            d.reachable.extend(values.iter().cloned());
            continue;
        }
        let reasons = fits.reasons(w, pool);
        let selector = reasons.contains(&Reason::Selector);
        let taints = reasons
            .iter()
            .any(|r| matches!(r, Reason::Taint(_) | Reason::Unschedulable));
        if (selector && spread.honor_affinity) || (taints && spread.honor_taints) {
            continue; // not counted
        }
        let block = if selector {
            Block::Selector
        } else {
            Block::Taints
        };
        d.blocked
            .extend(values.iter().map(|v| (Arc::clone(v), p, block)));
    }
    let reachable = &d.reachable;
    d.blocked.retain(|(v, _, _)| !reachable.contains(v));
    d.blocked.sort();
    Some(d)
}

/// Labels the kubelet sets on every node it registers (kubernetes/kubernetes
/// pkg/kubelet/kubelet_node_status.go, `initialNode`): a topology key among them is on every
/// node. The zone and region come from a cloud provider and may be missing (kind, bare metal).
fn on_every_node(key: &str) -> bool {
    matches!(
        key,
        "kubernetes.io/hostname"
            | "kubernetes.io/os"
            | "kubernetes.io/arch"
            | "beta.kubernetes.io/os"
            | "beta.kubernetes.io/arch"
    )
}

/// A topology label the pod needs on its node and no node of a closed inventory carries.
#[derive(Clone, Debug)]
pub struct MissingTopology {
    pub key: Arc<str>,
    /// The scheduler's reason, after "node(s) ".
    pub reason: &'static str,
    /// What needs it, for the help.
    pub what: &'static str,
    pub span: Option<crate::load::Span>,
}

/// The first topology label the pod's hard topology spread or required pod affinity needs
/// that no node of a closed inventory carries:
/// - the PodTopologySpread Filter rejects a node without the `topologyKey` of any
///   `whenUnsatisfiable: DoNotSchedule` constraint, "node(s) didn't match pod topology spread
///   constraints (missing required label)" (kubernetes/kubernetes
///   pkg/scheduler/framework/plugins/podtopologyspread/filtering.go, `ErrReasonNodeLabelNotMatch`);
/// - the InterPodAffinity Filter requires every required affinity term's topology label on the
///   node before anything else, even for the first pod of a series that matches its own terms
///   ("All topology labels must exist on the node", `satisfyPodAffinity` in
///   pkg/scheduler/framework/plugins/interpodaffinity/filtering.go): "node(s) didn't match pod
///   affinity rules".
///
/// PodTopologySpread comes before InterPodAffinity in the default profile
/// (pkg/scheduler/apis/config/v1/default_plugins.go), so its reason is the one given. `None`
/// against found templates, which leave labels to the provider.
pub fn missing_topology(inventory: &Inventory, w: &Workload) -> Option<MissingTopology> {
    if !inventory.closed() {
        return None;
    }
    let missing = |key: &str| !on_every_node(key) && !inventory.has_label(key);
    if let Some(k) = w.hard_spread_keys.iter().find(|k| missing(k)) {
        return Some(MissingTopology {
            key: Arc::clone(k),
            reason: "didn't match pod topology spread constraints (missing required label)",
            what: "its `whenUnsatisfiable: DoNotSchedule` topology spread constraint",
            span: w
                .spreads()
                .iter()
                .find(|s| s.topology_key == *k)
                .map(|s| s.span),
        });
    }
    let t = w.pod_affinity().iter().find(|t| missing(&t.topology_key))?;
    Some(MissingTopology {
        key: Arc::clone(&t.topology_key),
        reason: "didn't match pod affinity rules",
        what: "its required pod affinity term (the InterPodAffinity filter needs every term's topology label on the node, even for the first pod of a series)",
        span: Some(t.span),
    })
}
