//! What node pools merely *found* among the linted files are evidence for. A declared
//! inventory (`--inventory`, the config's pools, an `Inventory` file, `clusters:`) is the
//! whole cluster: what no pool of it admits cannot run; so is a dump of `Node` objects (see
//! `Inventory::closed`). Found templates are not: a repository
//! describes some of its cluster's pools (a NodePool here, an eksctl file there) while others
//! are made by Terraform, a cloud CLI or the platform itself, with labels and taints no file
//! shows. So, against found pools:
//!
//! - a requirement on a label key no found pool has, or a toleration of a taint key no found
//!   pool has, says nothing about them (the pod is meant for nodes described elsewhere);
//! - "no found pool admits it" is evidence only for a pod whose hard node selection aims at
//!   found pools: it requires only labels found pools have, at least one of which some found
//!   pool declares itself (not merely a label every node has, like `kubernetes.io/os`), and
//!   its selector admits a found pool, misses one by a slip of one value (`on-demnad`), or
//!   misses the pools whose taint (key and value) the pod tolerates (it is meant for them). A
//!   pod that selects nothing lands on the untainted nodes no file describes; one that wants
//!   another value of a found label (`NodeGroupType: core` beside NodePools labelled
//!   `NodeGroupType: gpu`) is meant for nodes made elsewhere;
//! - a toleration that matches no found taint is worth a warning only as a near miss of one:
//!   the key of a found taint with another value (or none), or a key one slip from a found
//!   taint's key (differing in case, or by an edit or two).
//!
//! - against the pools of a cluster the files define (`sources::clusters`: a Terraform root
//!   that creates it, an eksctl `ClusterConfig`, a `clusters/<name>/` folder, with the pools
//!   found beside them), a label key every pool sets to a known value, other than a
//!   well-known one (instance type, zone, capacity type), is *owned*: a pod of
//!   that cluster's files requiring a value of it that no pool has cannot run on the cluster
//!   ([`owned_miss`]); and a pod that lands on the cluster's pools (it selects nothing, or a
//!   label its pools declare that is not a well-known one) tolerates for nothing a taint key
//!   no pool has ([`lands_on_cluster`]). A pod that tolerates a taint key no pool of the
//!   cluster has while selecting a value none has is pinned to a dedicated pool made
//!   outside these files: neither is judged. Keys no pool sets stay unjudged, but for a key
//!   without a prefix (the user's own: no node agent adds it) in a cluster the files create,
//!   when every pool shows its labels and no file writes the key where no pool is read
//!   ([`Inventory::lacks_private_label`]); a pool whose value of the key is not known keeps the
//!   key open.
//!
//! The cross-reference rules that judge a pod by what no pool offers (`unschedulable-workload`,
//! `toleration-matches-no-taint`) ask this module, whatever the source of the pools
//! (manifests, eksctl, Karpenter, Terraform): a new pool source adds pools, never findings
//! about pods that do not aim at them.

use crate::util::edit_distance;

use super::schedule::{PoolClasses, Verdicts, selector_matches};
use crate::analysis::semantics::matching::tolerates;
use crate::analysis::semantics::well_known::{is_well_known_key, is_well_known_label};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::workload::Workload;
use crate::analysis::types::{LabelValues, Pool};

/// Labels every node carries whatever its pool (the kubelet sets them): selecting them does
/// not aim a pod at any pool in particular. On OpenShift, every worker node's kubelet
/// registers `node-role.kubernetes.io/worker` and `node.openshift.io/os_id`
/// (openshift/machine-config-operator,
/// `templates/worker/01-worker-kubelet/_base/units/kubelet.service.yaml`): a MachineSet found
/// here shares them with the workers the installer made, which no file describes.
pub fn is_every_node_label(key: &str) -> bool {
    matches!(
        key,
        "node-role.kubernetes.io/worker" | "node.openshift.io/os_id"
    ) || crate::analysis::semantics::well_known::is_kubelet_label(key)
}

/// Are `a` and `b` (keys or values, `a != b`) one slip apart: equal but for case, or one or
/// two edits apart in a string long enough for that to be a slip (at least four characters
/// per edit)? Short names that differ (`gpu`, `tpu`) are different names, not slips.
pub fn is_slip(a: &str, b: &str) -> bool {
    if a == b {
        return false;
    }
    if a.eq_ignore_ascii_case(b) {
        return true;
    }
    // A letter changed in a short name makes another name (`gpu`, `tpu`); one added or
    // left out (`gpus`) is a slip.
    let name = |s: &str| s.rsplit('/').next().unwrap_or(s).len();
    if name(a).min(name(b)) <= 3 && a.len() == b.len() {
        return false;
    }
    let d = edit_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase());
    d <= 2 && d * 4 <= a.len().min(b.len())
}

/// The found pool whose labels come closest to a selection that admits none: it has every
/// label the pod requires, and one with another value.
#[derive(Clone, Debug)]
pub struct LabelMiss {
    /// The pool's index in the inventory.
    pub pool: usize,
    pub key: String,
    /// The value the pod requires.
    pub wanted: String,
    /// The pool's value.
    pub has: String,
}

impl LabelMiss {
    /// Is the pool's value one slip from the wanted one (see [`is_slip`])?
    pub fn is_slip(&self) -> bool {
        is_slip(&self.wanted, &self.has)
    }
}

/// What a workload's hard node selection says about found pools.
#[derive(Clone, Debug)]
pub enum Aim {
    /// It aims at found pools, and its selector admits some (their taints or cordon may not).
    Selected,
    /// It aims at found pools, but its selector admits none: one has every label it requires,
    /// one of them with a value one slip from the wanted one.
    Slip(LabelMiss),
    /// It tolerates a taint of found pools, key and value (it is meant for them), but its
    /// selector admits none of them.
    Tolerated,
    /// Found pools say nothing about where it runs: it selects no label they declare, a label
    /// none of them has, or a value none of them has or nearly has.
    Elsewhere,
}

/// The positive requirements of the pod's selection (nodeSelector, and required node affinity
/// expressions that only a label's presence satisfies): (key, values, operator).
fn positive(w: &Workload) -> impl Iterator<Item = (&str, Vec<&str>, &str)> {
    let selector = w
        .node_selector
        .iter()
        .map(|(k, v)| (&**k, vec![&**v], "In"));
    let terms = w
        .terms
        .iter()
        .flat_map(|t| t.iter())
        .flat_map(|t| t.expressions.iter())
        .filter(|r| matches!(r.operator.as_str(), "In" | "Exists" | "Gt" | "Lt"))
        .map(|r| {
            (
                r.key.as_str(),
                r.values.iter().map(String::as_str).collect(),
                r.operator.as_str(),
            )
        });
    selector.chain(terms)
}

/// Where the pod aims, against found pools (see the module's text). A declared inventory
/// never asks: it is the whole cluster.
///
/// `fits` are the workload's verdicts: their classes of pools (every pool of a class has the
/// same labels on the keys workloads select) and their index narrow the pools looked at.
pub fn aim(inventory: &Inventory, w: &Workload, fits: &Verdicts) -> Aim {
    // A hard topology spread key no pool has names a topology the found pools do not
    // describe; one they have pins the pod to the pools with it (PodTopologySpread filters
    // nodes without the key).
    if w.spread_keys.iter().any(|k| !inventory.has_label(k)) {
        return Aim::Elsewhere;
    }
    let mut aims = !w.spread_keys.is_empty();
    for (key, _, _) in positive(w) {
        if !inventory.has_label(key) {
            return Aim::Elsewhere;
        }
        aims |= inventory.declares_label(key) && !is_every_node_label(key);
    }
    if !aims {
        return Aim::Elsewhere;
    }
    let classes = fits.classes();
    let reps = |list: Vec<u32>| -> Vec<usize> {
        list.into_iter()
            .filter_map(|c| classes.reps.get(c as usize).copied())
            .collect()
    };
    let candidates = match classes.index.selected(w) {
        Some(list) => reps(list),
        None => classes.reps.clone(),
    };
    if candidates.iter().any(|&p| {
        inventory
            .pools
            .get(p)
            .is_some_and(|pool| selector_matches(w, pool))
    }) {
        return Aim::Selected;
    }
    // Another value of a label found pools declare is no evidence (`NodeGroupType: core`
    // beside NodePools labelled `NodeGroupType: gpu`: the core nodes are made elsewhere);
    // a slip of one of their values is.
    // a slip of one of their values is. So is a pod that tolerates a taint of theirs (key and
    // value): it is meant for those nodes, and its selector keeps it off them.
    match closest_by_labels(inventory, w, classes) {
        Some(miss) if miss.is_slip() => Aim::Slip(miss),
        _ if tolerates_found_taint(inventory, w) => Aim::Tolerated,
        _ => Aim::Elsewhere,
    }
}

/// A value of an owned label key (see the module's text) that no pool of the defined cluster
/// has, with the pools' values; or a private label key no pool sets.
#[derive(Clone, Debug)]
pub struct OwnedMiss {
    pub key: String,
    /// The values the pod accepts (empty for `Exists`).
    pub wanted: Vec<String>,
    /// The pools' values, each with the first pool that has it; `None` for a label key without
    /// a prefix that no pool of a cluster the files create sets ([`Inventory::lacks_private_label`]).
    pub values: Option<std::sync::Arc<crate::analysis::sources::inventory::OwnedLabel>>,
}

/// The first requirement of the pod (its nodeSelector, then a single required term's `In`
/// and `Exists` expressions) that no pool of the defined cluster (or a declared inventory)
/// can meet by what the pools prove: a value of a label key they own that none of their
/// values satisfies, or — in a cluster the files create (a Terraform root, an eksctl
/// `ClusterConfig`, not a `clusters/<name>/` folder, whose base nodes may be made elsewhere) —
/// a label key without a prefix that no pool sets. `None` outside a defined cluster, for a
/// pod pinned to a dedicated pool made elsewhere (see the module's text), or when every such
/// key is satisfied.
pub fn owned_miss(inventory: &Inventory, w: &Workload) -> Option<OwnedMiss> {
    // A declared inventory is the whole cluster too.
    let created = if inventory.closed() {
        false
    } else {
        inventory.cluster_of(&w.source.name)?.creates()
    };
    if tolerates_absent_taint(inventory, w) {
        return None;
    }
    let selector = w.node_selector.iter().map(|(k, v)| (&**k, vec![&**v]));
    // Several terms are alternatives: only a single one is a requirement.
    let term = match w.terms.as_deref() {
        Some([one]) => Some(one),
        _ => None,
    };
    let terms = term
        .into_iter()
        .flat_map(|t| t.expressions.iter())
        .filter(|r| matches!(r.operator.as_str(), "In" | "Exists"))
        .map(|r| {
            (
                r.key.as_str(),
                r.values.iter().map(String::as_str).collect::<Vec<&str>>(),
            )
        });
    for (key, wanted) in selector.chain(terms) {
        // A well-known label (instance type, zone, capacity type) is the platform's, not a
        // name the cluster's pools give themselves: a pod requiring another value of it may
        // be written for another cloud or a pool of another kind.
        if is_well_known_label(key) || is_every_node_label(key) {
            continue;
        }
        let miss = |values| OwnedMiss {
            key: key.to_string(),
            wanted: wanted.iter().map(|v| (*v).to_string()).collect(),
            values,
        };
        if created && inventory.lacks_private_label(key) {
            return Some(miss(None));
        }
        // `Exists` is met by any value of an owned key.
        if wanted.is_empty() {
            continue;
        }
        let Some(owned) = inventory.owned_label(key) else {
            continue;
        };
        if owned
            .values
            .iter()
            .any(|(v, _)| wanted.iter().any(|w| **v == **w))
        {
            continue;
        }
        return Some(miss(Some(owned)));
    }
    None
}

/// Does the pod tolerate a taint key (a user's, not a well-known one) that no pool has and
/// no pool may have unseen?
fn tolerates_absent_taint(inventory: &Inventory, w: &Workload) -> bool {
    w.tolerations.iter().any(|t| {
        !t.key.is_empty()
            && !is_well_known_key(&t.key)
            && !inventory.has_taint_key(&t.key)
            && !inventory.shown_may_have_unknown_taint(&t.key)
    })
}

/// Do only pools that stand for groups the files do not show admit the workload
/// (`Pool::stands_for_unknown_groups`)? Then, in a cluster the files define, what the shown
/// pools prove still holds: such a pool may not exist, and absorbs no judgement.
pub fn only_unknown_groups_admit(inventory: &Inventory, fits: &Verdicts) -> bool {
    let classes = fits.classes();
    let mut any = false;
    for c in fits.admitting_classes() {
        any = true;
        let unknown = classes
            .reps
            .get(c)
            .and_then(|&p| inventory.pools.get(p))
            .is_some_and(|p| p.stands_for_unknown_groups());
        if !unknown {
            return false;
        }
    }
    any
}

/// Does the pod land on the defined cluster's pools (see the module's text): it belongs to
/// the cluster's files, its selector admits one of its pools, and it selects nothing or a
/// label a pool declares that is not a well-known one (an instance type or a zone alone may
/// name machines of a pool made elsewhere)?
pub fn lands_on_cluster(inventory: &Inventory, w: &Workload, fits: &Verdicts) -> bool {
    if inventory.cluster_of(&w.source.name).is_none() {
        return false;
    }
    let mut keys = positive(w).map(|(k, _, _)| k).peekable();
    let selects_nothing = keys.peek().is_none() && w.spread_keys.is_empty();
    let aims = selects_nothing
        || positive(w).any(|(k, _, _)| {
            inventory.declares_label(k) && !is_well_known_label(k) && !is_every_node_label(k)
        });
    if !aims {
        return false;
    }
    let classes = fits.classes();
    let candidates = match classes.index.selected(w) {
        Some(list) => list
            .into_iter()
            .filter_map(|c| classes.reps.get(c as usize).copied())
            .collect(),
        None => classes.reps.clone(),
    };
    candidates.iter().any(|&p| {
        inventory
            .pools
            .get(p)
            .is_some_and(|pool| selector_matches(w, pool))
    })
}

/// Does the pod tolerate a taint of a found pool (its key and value), one of a user's own
/// (not a taint Kubernetes or the platform sets on any node, like `nvidia.com/gpu`)? A key
/// alone is no evidence: `dedicated=batch` on a found pool says nothing about a pod that
/// tolerates `dedicated=ml`, whose pool is made elsewhere.
fn tolerates_found_taint(inventory: &Inventory, w: &Workload) -> bool {
    w.tolerations.iter().any(|t| {
        t.written()
            && !t.key.is_empty()
            && !is_well_known_key(&t.key)
            && inventory.taints_with_key(&t.key).any(|(_, pt)| {
                // Comparison operators (behind a feature gate) are not counted.
                tolerates(&t.tol(), &pt.taint.taint_ref(), false)
            })
    })
}

/// The found pool whose labels miss the pod's nodeSelector/`In` requirements by one value
/// only, the most similar value first (then inventory order): a pool named like the wanted
/// value (`inf2.8xlarge` for `inf2.48xlarge`) before one that is merely first. Pools of a
/// class have the same labels on the keys workloads select: each class is looked at once, by
/// its first pool; a selection of one `In` requirement asks the classes' values of its key
/// for the nearest ones (`PoolClasses::nearest_label_values`) instead of comparing them all.
fn closest_by_labels(
    inventory: &Inventory,
    w: &Workload,
    classes: &PoolClasses,
) -> Option<LabelMiss> {
    let pools = &inventory.pools;
    let miss_of = |c: usize| {
        let p = *classes.reps.get(c)?;
        one_miss(pools.get(p)?, p, w)
    };
    let reqs: Vec<(&str, Vec<&str>, &str)> = positive(w).collect();
    if let [(key, values, "In")] = reqs.as_slice() {
        // The classes nearest to some wanted value, at the smallest distance of all.
        if let Some((d, list)) = classes.nearest_label_values_of(pools, key, values) {
            // The first of them (in class order: the order of their first pools) that misses
            // by that value is the one; a class that holds the selection misses by nothing.
            if let Some((_, miss)) = list
                .into_iter()
                .filter_map(|c| miss_of(c as usize))
                .find(|(found, _)| *found == d)
            {
                return Some(miss);
            }
        }
        // Nothing near (or only pools the selection holds on): every class, as below.
    }
    let mut best: Option<(usize, LabelMiss)> = None;
    for c in 0..classes.len() {
        let Some((d, miss)) = miss_of(c) else {
            continue;
        };
        if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            best = Some((d, miss));
        }
    }
    best.map(|(_, m)| m)
}

/// The one value that keeps `pool` from matching the pod's selection, with its edit distance
/// to the pool's nearest value; `None` when it matches, or fails for any other reason or on
/// more than one requirement.
fn one_miss(pool: &Pool, p: usize, w: &Workload) -> Option<(usize, LabelMiss)> {
    let mut found: Option<(usize, LabelMiss)> = None;
    for (key, values, op) in positive(w) {
        let has = match pool.label(key) {
            Some(LabelValues::Any) => continue,
            Some(LabelValues::OneOf(vs)) => vs,
            None => return None,
        };
        let ok = match op {
            "In" => has.iter().any(|h| values.iter().any(|v| **h == **v)),
            "Exists" => true,
            // Numeric comparisons have no near value.
            _ => return None,
        };
        if ok {
            continue;
        }
        if found.is_some() {
            return None;
        }
        let nearest = values
            .iter()
            .flat_map(|v| has.iter().map(move |h| (*v, &**h)))
            .map(|(v, h)| {
                (
                    edit_distance(&v.to_ascii_lowercase(), &h.to_ascii_lowercase()),
                    v,
                    h,
                )
            })
            .min()?;
        found = Some((
            nearest.0,
            LabelMiss {
                pool: p,
                key: key.to_string(),
                wanted: nearest.1.to_string(),
                has: nearest.2.to_string(),
            },
        ));
    }
    found
}

/// How far `pool`'s labels are from the pod's nodeSelector/`In` requirements: the sum, over
/// them, of the edit distance from the nearest wanted value to the nearest value the pool has
/// (0 when it matches or has any value; the wanted value's length when the pool lacks the
/// key). The near-miss hint ranks pools by it: `inf2.8xlarge` for `inf2.48xlarge`, not `c5`.
pub fn label_distance(pool: &Pool, w: &Workload) -> usize {
    in_requirements(w)
        .map(|(key, values)| match pool.label_ref(key) {
            None => values.iter().map(|v| v.len()).max().unwrap_or(0),
            Some(label) => match label.values() {
                None => 0,
                Some(has) => has
                    .flat_map(|h| {
                        let h = h.to_ascii_lowercase();
                        values
                            .iter()
                            .map(move |v| edit_distance(&v.to_ascii_lowercase(), &h))
                    })
                    .min()
                    .unwrap_or(0),
            },
        })
        .sum()
}

/// The pod's nodeSelector pairs and required `In` expressions, as (key, wanted values): what
/// [`label_distance`] measures.
pub fn in_requirements(w: &Workload) -> impl Iterator<Item = (&str, Vec<&str>)> {
    positive(w)
        .filter(|(_, _, op)| *op == "In")
        .map(|(key, values, _)| (key, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips() {
        assert!(is_slip("GPU-pool", "gpu-pool"));
        assert!(is_slip("dedicated", "dedicatd"));
        assert!(is_slip("inf2.48xlarge", "inf2.8xlarge"));
        assert!(!is_slip("gpu", "tpu"));
        assert!(!is_slip("nvidia.com/gpu", "google.com/tpu"));
        assert!(!is_slip("a", "a"));
        assert!(is_slip("nvidia.com/gpus", "nvidia.com/gpu"));
        assert!(!is_slip("spot", "on-demand"));
    }
}
