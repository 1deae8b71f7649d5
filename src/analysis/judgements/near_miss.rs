//! Near misses: for a workload no pool admits, the pool it is obviously meant for (the one
//! its selector picks, else the one with the fewest reasons against it) and exactly what keeps
//! it out — a toleration with another value or effect than the taint, a key one or two edits
//! away, a missing toleration, the selector, a cordon — so that a message can name the edit.

use crate::util::edit_distance;

use super::schedule::{Reason, Verdicts};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::TaintSpec;
use crate::analysis::types::workload::Workload;

/// The pool a workload is meant for and what keeps it out.
#[derive(Clone, Debug)]
pub struct NearMiss {
    /// The pool's index in the inventory.
    pub pool: usize,
    /// Its selector admits the pool (otherwise it is only the closest).
    pub selected: bool,
    pub blocks: Vec<Block>,
}

/// One thing that keeps the workload out of its pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// A toleration of the taint's key and effect with another value.
    Value { toleration: usize, taint: usize },
    /// A toleration of the taint's key (and value) with another effect.
    Effect { toleration: usize, taint: usize },
    /// A toleration whose key is a typo of the taint's.
    Key { toleration: usize, taint: usize },
    /// No toleration comes close to the taint.
    Missing { taint: usize },
    /// The pool's labels do not match the selector.
    Selector,
    /// The pool is cordoned.
    Cordoned,
}

/// The near miss of a workload that no pool admits (`None` when some pool does, or there are
/// none).
///
/// Every pool of a class scores alike (its labels on the keys workloads select, its blocking
/// taints, its cordon), so classes are scored, not pools; the reasons come from the verdicts'
/// [`Judged`](super::schedule::Judged), and the label distance is worked out only for the
/// classes that can win (those the selector admits, else those with a taint the pod tolerates
/// by key, else all).
pub fn near_miss(inventory: &Inventory, w: &Workload, fits: &Verdicts) -> Option<NearMiss> {
    if fits.any() {
        return None;
    }
    let pools = &inventory.pools;
    let classes = fits.classes();
    let judged = fits.judge(w, pools);
    // A pod with no nodeSelector and no required node affinity selects every pool: it is
    // "meant for" one only when that pool is strictly the closest.
    let selects = !w.node_selector.is_empty() || w.terms.is_some();
    // Closest first: a pool the selector admits, then one with a taint whose key the pod
    // tolerates (it was written for that pool), then the labels most like the ones it selects
    // (`ML` for `ml`: the pool `check` names too), then the fewest reasons against it.
    let tolerated = classes
        .index
        .with_taint_keys(w.tolerations.iter().map(|t| &*t.key));
    let is_tolerated =
        |c: usize| u32::try_from(c).is_ok_and(|c| tolerated.binary_search(&c).is_ok());
    let selected: Vec<usize> = if selects {
        judged.selected_classes()
    } else {
        Vec::new()
    };
    let selected_none = selected.is_empty();
    // With one `In` requirement and no class selected, the classes nearest by value (over
    // every class), used where they bound the tier's best (see `narrowed`).
    let nearest = if selected_none {
        nearest_by_one_value(pools, classes, w)
    } else {
        None
    };
    let (tier, nearest): (Vec<usize>, _) = if !selected.is_empty() {
        (selected, None)
    } else if !tolerated.is_empty() {
        match nearest.and_then(|n| narrowed(classes, &tolerated, n, w)) {
            Some((tier, n)) => (tier, Some(n)),
            None => (tolerated.iter().map(|&c| c as usize).collect(), None),
        }
    } else {
        ((0..classes.len()).collect(), nearest)
    };
    // (tolerated, likeness, fewest reasons) of each class of the tier, in class order (the
    // order of their first pools).
    type Score = (bool, usize, usize);
    let mut best: Option<(Score, usize)> = None;
    let mut tied_pools = 0usize;
    let likeness = |c: usize| -> Option<usize> {
        let pool = classes.reps.get(c).and_then(|&r| pools.get(r))?;
        let distance = match &nearest {
            // A class whose value is not among the nearest is farther than they are.
            Some((key, d, near)) => match pool.label_ref(key).map(|l| l.values().is_some()) {
                Some(true) if near.binary_search(&u32::try_from(c).ok()?).is_err() => return None,
                Some(true) => *d,
                _ => super::evidence::label_distance(pool, w),
            },
            None => super::evidence::label_distance(pool, w),
        };
        Some(usize::MAX - distance)
    };
    for c in tier {
        let Some(like) = likeness(c) else {
            continue;
        };
        let score = (is_tolerated(c), like, usize::MAX - judged.count(c));
        let size = classes.sizes.get(c).copied().unwrap_or(0);
        match &best {
            Some((s, _)) if score < *s => {}
            Some((s, _)) if score == *s => tied_pools += size,
            _ => {
                best = Some((score, c));
                tied_pools = size;
            }
        }
    }
    let (_, c) = best?;
    if tied_pools > 1 && !selects {
        return None;
    }
    let p = *classes.reps.get(c)?;
    let pool = pools.get(p)?;
    let reasons = judged.reasons(c);
    let selected = selects && !reasons.contains(&Reason::Selector);
    let blocks = reasons
        .iter()
        .map(|r| match r {
            Reason::Selector => Block::Selector,
            Reason::Unschedulable => Block::Cordoned,
            Reason::Taint(t) => match pool.taints.get(*t) {
                Some(pt) => closest_toleration(w, &pt.taint, *t),
                None => Block::Missing { taint: *t },
            },
        })
        .collect();
    Some(NearMiss {
        pool: p,
        selected,
        blocks,
    })
}

/// The pod's one `In` key, the smallest edit distance to a value classes carry under it, and
/// those classes (sorted): see [`nearest_by_one_value`].
type Nearest<'a> = (&'a str, usize, Vec<u32>);

/// The classes of `tier` (sorted) that can be the likest, when the nearest values of the
/// pod's one `In` requirement (`nearest`, over every class) are carried by some class of the
/// tier: those classes (at that distance), the tier's classes with the key at a value not
/// known (distance 0), and none without the key, which `evidence::label_distance` puts at the
/// longest wanted value's length — farther, unless that is no more than the nearest distance
/// (then `None`: the whole tier is scored). Every class left out is strictly less like the
/// pod than some class kept, so the likest and their ties are the same: each workload costs
/// its near classes, not every tolerated class (a hostile run of thousands of pools each
/// tainted alike and labelled apart was quadratic).
fn narrowed<'a>(
    classes: &super::schedule::PoolClasses,
    tier: &[u32],
    nearest: Nearest<'a>,
    w: &Workload,
) -> Option<(Vec<usize>, Nearest<'a>)> {
    let (key, d, near) = &nearest;
    let longest = super::evidence::in_requirements(w)
        .next()
        .map(|(_, values)| values.iter().map(|v| v.len()).max().unwrap_or(0))?;
    if longest <= *d {
        return None;
    }
    let in_tier = |c: &u32| tier.binary_search(c).is_ok();
    let mut kept: Vec<usize> = near
        .iter()
        .filter(|c| in_tier(c))
        .map(|&c| c as usize)
        .collect();
    if kept.is_empty() {
        return None;
    }
    kept.extend(
        classes
            .index
            .any_value_of(key)
            .iter()
            .filter(|c| in_tier(c))
            .map(|&c| c as usize),
    );
    kept.sort_unstable();
    kept.dedup();
    Some((kept, nearest))
}

/// When the pod's selection has one `In` requirement (a nodeSelector of one pair, say): its
/// key, the smallest edit distance from a wanted value to a value classes carry under it, and
/// those classes (sorted). Every other class with a value of the key is farther; one without
/// the key, or with any value, is measured as `evidence::label_distance` measures it.
fn nearest_by_one_value<'a>(
    pools: &[Box<crate::analysis::types::Pool>],
    classes: &super::schedule::PoolClasses,
    w: &'a Workload,
) -> Option<Nearest<'a>> {
    let mut ins = super::evidence::in_requirements(w);
    let (key, values) = ins.next()?;
    if ins.next().is_some() {
        return None;
    }
    let (d, list) = classes.nearest_label_values_of(pools, key, &values)?;
    Some((key, d, list))
}

/// What the workload's tolerations come closest to for this taint.
fn closest_toleration(w: &Workload, taint: &TaintSpec, t: usize) -> Block {
    let effect_ok = |e: &str| e.is_empty() || e == &*taint.effect;
    let same_key = |k: &str| k == &*taint.key;
    for (i, tol) in w
        .tolerations
        .iter()
        .enumerate()
        .filter(|(_, t)| t.written())
    {
        let exists = &*tol.operator == "Exists";
        if same_key(&tol.key) && !exists && effect_ok(&tol.effect) && *tol.value != *taint.value {
            return Block::Value {
                toleration: i,
                taint: t,
            };
        }
    }
    for (i, tol) in w
        .tolerations
        .iter()
        .enumerate()
        .filter(|(_, t)| t.written())
    {
        let exists = &*tol.operator == "Exists";
        if same_key(&tol.key) && (exists || *tol.value == *taint.value) && !effect_ok(&tol.effect) {
            return Block::Effect {
                toleration: i,
                taint: t,
            };
        }
    }
    let key = taint.key.to_ascii_lowercase();
    for (i, tol) in w
        .tolerations
        .iter()
        .enumerate()
        .filter(|(_, t)| t.written())
    {
        let d = edit_distance(&tol.key.to_ascii_lowercase(), &key);
        if !tol.key.is_empty() && !same_key(&tol.key) && d <= 2 && d < key.len() {
            return Block::Key {
                toleration: i,
                taint: t,
            };
        }
    }
    Block::Missing { taint: t }
}

/// The toleration that tolerates `taint` exactly, as YAML a user can paste.
pub fn toleration_yaml(taint: &TaintSpec) -> String {
    if taint.value.is_empty() {
        format!(
            "{{key: {}, operator: Exists, effect: {}}}",
            taint.key, taint.effect
        )
    } else {
        format!(
            "{{key: {}, operator: Equal, value: \"{}\", effect: {}}}",
            taint.key, taint.value, taint.effect
        )
    }
}

/// In words, for a message's help: which pool, and the edit for each block.
pub fn describe(inventory: &Inventory, w: &Workload, miss: &NearMiss) -> Option<String> {
    let pool = inventory.pools.get(miss.pool)?;
    let taint = |t: usize| pool.taints.get(t).map(|pt| &pt.taint);
    let mut parts = Vec::new();
    for b in &miss.blocks {
        let part = match b {
            Block::Value {
                toleration,
                taint: t,
            } => {
                let (tol, taint) = (w.tolerations.get(*toleration)?, taint(*t)?);
                format!(
                    "toleration `{}` has `value: \"{}\"` where the taint `{}` has `\"{}\"`: set `value: \"{}\"`",
                    tol.display(),
                    tol.value,
                    taint.display(),
                    taint.value,
                    taint.value
                )
            }
            Block::Effect {
                toleration,
                taint: t,
            } => {
                let (tol, taint) = (w.tolerations.get(*toleration)?, taint(*t)?);
                format!(
                    "toleration `{}` has `effect: {}` where the taint `{}` is {}: set `effect: {}`",
                    tol.display(),
                    tol.effect,
                    taint.display(),
                    taint.effect,
                    taint.effect
                )
            }
            Block::Key {
                toleration,
                taint: t,
            } => {
                let (tol, taint) = (w.tolerations.get(*toleration)?, taint(*t)?);
                format!(
                    "toleration key `{}` is one typo from the taint's `{}`: set `key: {}`",
                    tol.key, taint.key, taint.key
                )
            }
            Block::Missing { taint: t } => {
                let taint = taint(*t)?;
                format!(
                    "nothing tolerates the taint `{}`: add the toleration `{}`",
                    taint.display(),
                    toleration_yaml(taint)
                )
            }
            Block::Selector => {
                if w.selects_by_spread_only() {
                    "it lacks the label of the pod's topology spread constraint".to_string()
                } else {
                    "its labels do not match the pod's nodeSelector/affinity".to_string()
                }
            }
            Block::Cordoned => "it is cordoned".to_string(),
        };
        parts.push(part);
    }
    Some(format!(
        "the pool this pod is meant for is {} ({}): {}",
        pool.title(),
        if miss.selected {
            "its selector picks it"
        } else {
            "the closest"
        },
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toleration_yaml_quotes_values() {
        let t = TaintSpec::new("nvidia.com/gpu", "true", "NoSchedule");
        assert_eq!(
            toleration_yaml(&t),
            "{key: nvidia.com/gpu, operator: Equal, value: \"true\", effect: NoSchedule}"
        );
        let t = TaintSpec::new("dedicated", "", "NoExecute");
        assert_eq!(
            toleration_yaml(&t),
            "{key: dedicated, operator: Exists, effect: NoExecute}"
        );
    }
}
