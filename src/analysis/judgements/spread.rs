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
