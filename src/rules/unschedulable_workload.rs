//! `unschedulable-workload`: no node pool of the inventory admits the pod. The message has
//! the scheduler's shape (`0/3 node pools can run this pod: ...`), and related locations
//! point at each blocking taint or label.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::analysis::judgements::evidence::{self, Aim, LabelMiss};
use crate::analysis::judgements::near_miss::{Block, describe as describe_near_miss, near_miss};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::judgements::schedule::{Judged, PoolClasses, Reason};
use crate::diagnostic::{Edit, Finding, Fix, Related, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "unschedulable-workload",
    summary: "No node pool in the inventory can run this pod (untolerated taints, selector, cordon)",
    category: Category::Scheduling,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/unschedulable-workload.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    let pools = &ctx.inventory.pools;
    if pools.is_empty() {
        return;
    }
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        // Pods bound with nodeName bypass the scheduler (see the nodename rules).
        if w.node_name.is_some() {
            continue;
        }
        // Admitted only by pools that stand for groups the files do not show: in a cluster
        // the files define, what the shown pools prove about owned keys still holds.
        let mut only_unknown = false;
        if fits.any() {
            only_unknown = (ctx.inventory.closed()
                || ctx.inventory.cluster_of(&w.source.name).is_some())
                && evidence::only_unknown_groups_admit(ctx.inventory, fits);
            if !only_unknown {
                // Admitted by the pools' labels and taints: the topology they carry may still
                // fail it (a closed inventory's missing topology labels).
                if let Some(f) = missing_topology(ctx, w, fits) {
                    out.push(f);
                }
                continue;
            }
        }
        // Pools merely found in the tree judge only a pod whose selection aims at them
        // (`analysis::judgements::evidence`): one meant for nodes described elsewhere (a GKE label, a
        // pool made by Terraform, general nodes) is not theirs to judge.
        // In a cluster the files define, a value of a label key its pools own that none of
        // them has is evidence too (`evidence::owned_miss`).
        let mut owned = None;
        let label_miss = if only_unknown {
            // Only what the shown pools own is evidence against such a pool.
            match evidence::owned_miss(ctx.inventory, w) {
                Some(m) => owned = Some(m),
                None => continue,
            }
            None
        } else if ctx.inventory.closed() {
            None
        } else {
            match ctx
                .eval
                .memo
                .get_or(META.name, fits, "aim", || evidence::aim(ctx.inventory, w, fits))
            {
                Aim::Elsewhere => match evidence::owned_miss(ctx.inventory, w) {
                    Some(m) => {
                        owned = Some(m);
                        None
                    }
                    None => continue,
                },
                Aim::Selected | Aim::Tolerated => None,
                Aim::Slip(miss) => Some(miss),
            }
        };
        // Identical workloads share their verdicts: build the message once per verdicts.
        // The pool it is meant for and the edit that lets it in (tolerations are part of the
        // signature, so the verdicts' memo holds for this too).
        let miss = ctx.eval.memo.get_or(META.name, fits, "near-miss", || {
            near_miss(ctx.inventory, w, fits)
                .and_then(|m| Some((describe_near_miss(ctx.inventory, w, &m)?, m)))
        });
        let intended = match &label_miss {
            Some(s) => Some(s.pool),
            None => miss.as_ref().map(|(_, m)| m.pool),
        };
        let (detail, total, selector_only, related) = ctx.eval.memo.get_or(META.name, fits, "", || {
            describe(ctx, w, fits, intended)
        });
        let (diagnosis, fix) = match (&label_miss, &miss) {
            _ if owned.is_some() => (
                owned.as_ref().map(|m| describe_owned_miss(ctx.inventory, m)),
                None,
            ),
            (Some(m), _) => (describe_label_miss(ctx.inventory, m), None),
            (None, Some((text, m))) => (Some(text.clone()), near_miss_fix(ctx, w, m)),
            (None, None) => (None, None),
        };
        let span = if selector_only {
            w.selector_span.unwrap_or(w.anchor)
        } else {
            w.anchor
        };
        // Admission merged node selectors into the pod's: the selector judged is not the one
        // in the file, so no edit of the file is proposed, and the help says where it came from.
        let admitted = admitted_selector(w);
        let fix = if admitted.is_empty() { fix } else { None };
        let mut f = META.finding(format!(
                "0/{total} node pools{} can run {}: {detail}",
                if ctx.inventory.declared() {
                    String::new()
                } else if let Some(def) = owned.as_ref().and_then(|_| ctx.inventory.cluster()) {
                    format!(" of {}", def.describe())
                } else {
                    " found in the linted files".to_string()
                },
                the_pods(w)
            ),
        )
        .primary(span, "no pool admits this pod")
        .help(format!(
            "{}{admitted}{}",
            match &diagnosis {
                Some(d) => d.as_str(),
                None if selector_only => "no pool carries the labels this pod selects; fix `nodeSelector`/node affinity, or label a pool to match",
                None => "tolerate the pool's taints (and select its labels), or add a pool this pod can use; run `taintlint explain` for the reasons per pool",
            },
            // A pod whose selector picks a pool found here is meant for that pool, not for
            // one made elsewhere.
            if only_unknown {
                unknown_groups_note(ctx.inventory)
            } else if ctx.inventory.declared()
                || label_miss.is_some()
                || owned.is_some()
                || miss.as_ref().is_some_and(|(_, m)| m.selected)
            {
                String::new()
            } else {
                format!(
                    "; pools found in {}; declare pools made elsewhere (by Terraform, a cloud CLI) with `--inventory`",
                    ctx.inventory.found_in()
                )
            }
        ))
        .field(w.spec_path.to_string())
        .fix(fix)
        .in_file(&w.source);
        f.object = Some(w.object.clone());
        f.related = related;
        out.push(f);
    }
}

/// What cannot run: "this pod", or an operator role's pods by the role's name (the roles of
/// one resource are told apart: their findings point at the same `kind`).
fn the_pods(w: &crate::analysis::types::Workload) -> String {
    match &w.role {
        Some(role) if !role.is_empty() => format!("its {role} pods"),
        _ => "this pod".to_string(),
    }
}

/// A pod its taints and selector let onto some pool of a closed inventory, but whose hard
/// topology spread or required pod affinity needs a topology label no node carries (see
/// `spread::missing_topology`).
fn missing_topology(
    ctx: &CrossCtx<'_>,
    w: &crate::analysis::types::Workload,
    fits: &crate::analysis::judgements::schedule::Verdicts,
) -> Option<Finding> {
    let inventory = ctx.inventory;
    let crate::analysis::judgements::spread::MissingTopology {
        key,
        reason,
        what,
        span,
    } = crate::analysis::judgements::spread::missing_topology(inventory, w)?;
    // The pools its taints and selector admit, each name once.
    let titles = inventory.titles();
    let classes = fits.classes();
    let mut admitted: Vec<usize> = fits
        .admitting_classes()
        .flat_map(|c| classes.members.get(c).into_iter().flatten())
        .map(|&p| p as usize)
        .filter(|&p| titles.first.get(p).copied().unwrap_or(false))
        .collect();
    admitted.sort_unstable();
    let total = titles.distinct;
    let n = admitted.len();
    let rest = total.saturating_sub(n);
    let mut f = META
        .finding(format!(
            "0/{total} node pools{} can run {}: {n} {reason}{}",
            if inventory.declared() {
                ""
            } else {
                " found in the linted files"
            },
            the_pods(w),
            if rest > 0 {
                format!(
                    ", {rest} turned away by their taints, cordon or node affinity first"
                )
            } else {
                String::new()
            }
        ))
        .primary(span.unwrap_or(w.anchor), "no node has this topology label")
        .help(format!(
            "no node of the inventory carries `{key}`, the topologyKey of {what}: label the nodes with it, or use a topology key they have (`kubernetes.io/hostname` is on every node); run `taintlint explain` for the pools"
        ))
        .field(w.spec_path.to_string())
        .in_file(&w.source);
    for &p in admitted.iter().take(RELATED_POOLS) {
        if let Some(loc) = inventory.pools.get(p).and_then(|pool| inventory.loc(&pool.loc)) {
            f.related.push(Related {
                source: loc.source,
                span: loc.span,
                message: format!(
                    "{} has no `{key}` label",
                    titles.text.get(p).cloned().unwrap_or_default()
                ),
            });
        }
    }
    f.object = Some(w.object.clone());
    Some(f)
}

/// `; after admission its nodeSelector is {…} (PodNodeSelector)` when admission changed it.
fn admitted_selector(w: &crate::analysis::types::Workload) -> String {
    let Some(a) = w.admission.as_ref().filter(|a| a.written_selector.is_some()) else {
        return String::new();
    };
    let mut plugins: Vec<&str> = a
        .changes
        .iter()
        .filter(|c| c.what.starts_with("nodeSelector "))
        .map(|c| c.plugin.as_str())
        .collect();
    plugins.dedup();
    let sel: Vec<String> = w
        .node_selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!(
        "; after admission its nodeSelector is {{{}}} ({})",
        sel.join(", "),
        plugins.join(", ")
    )
}

/// `; …[*] may add groups the files do not show: …`, for a pod only such pools admit.
fn unknown_groups_note(inventory: &Inventory) -> String {
    let names: Vec<String> = inventory
        .pools
        .iter()
        .filter(|p| p.stands_for_unknown_groups())
        .map(|p| p.title())
        .collect();
    format!(
        "; {} may add groups the files do not show (values from outside them): they may not exist and are not counted",
        names.join(", ")
    )
}

/// The pools' values shown in a help, at most; the rest are counted.
const SHOWN_VALUES: usize = 6;

/// The help for a pod that requires a value of a label key every pool of the defined cluster
/// sets, none to that value: a near miss naming the pools and their values. Or for one that
/// requires a label key without a prefix that no pool of a cluster the files create sets.
fn describe_owned_miss(inventory: &Inventory, miss: &evidence::OwnedMiss) -> String {
    let esc = |s: &str| crate::util::text::escape(s).into_owned();
    let cluster = inventory
        .cluster()
        .map_or_else(|| "the cluster".to_string(), |c| c.describe());
    let wanted: Vec<String> = miss.wanted.iter().map(|v| format!("`{}`", esc(v))).collect();
    let Some(values) = &miss.values else {
        let required = if wanted.is_empty() {
            format!("label `{}`", esc(&miss.key))
        } else {
            let values: Vec<String> = miss.wanted.iter().map(|v| esc(v)).collect();
            format!("`{}: {}`", esc(&miss.key), values.join("` or `"))
        };
        return format!(
            "the pod requires {required}, and no pool of {cluster} sets `{}`: a label key without a prefix is the user's own (automated components must add prefixed keys), so no node of these pools has it, and a label put on a node by hand is gone when the node is replaced; fix the key, or set the label on the pool meant to run this pod",
            esc(&miss.key),
        );
    };
    let shown: Vec<String> = values
        .values
        .iter()
        .take(SHOWN_VALUES)
        .map(|(v, p)| {
            let title = inventory.pools.get(*p).map(|p| p.title()).unwrap_or_default();
            format!("`{}` ({title})", esc(v))
        })
        .collect();
    let more = values.values.len().saturating_sub(SHOWN_VALUES);
    format!(
        "every pool of {cluster} sets `{}`, none to {}: they have {}{}; fix the value, or add the pool that has it",
        esc(&miss.key),
        wanted.join(" or "),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The help for a pod whose selector misses a found pool by a slip of one label value.
fn describe_label_miss(inventory: &Inventory, miss: &LabelMiss) -> Option<String> {
    let pool = inventory.pools.get(miss.pool)?;
    Some(format!(
        "the pool this pod is meant for is {} (its labels but for a slip of one value): the pod requires `{}: {}` where the pool has `{}: {}`",
        pool.title(),
        miss.key,
        miss.wanted,
        miss.key,
        miss.has
    ))
}

/// The edit that lets the workload into the pool it is meant for, when every block is a
/// toleration scalar to change (a value, an effect or a key typo); unsafe, since the taint may
/// be the one that is wrong.
fn near_miss_fix(
    ctx: &CrossCtx<'_>,
    w: &crate::analysis::types::Workload,
    miss: &crate::analysis::judgements::near_miss::NearMiss,
) -> Option<Fix> {
    let pool = ctx.inventory.pools.get(miss.pool)?;
    let mut edits = Vec::new();
    let mut titles = Vec::new();
    for b in &miss.blocks {
        let (toleration, taint, field) = match b {
            Block::Value { toleration, taint } => (*toleration, *taint, "value"),
            Block::Effect { toleration, taint } => (*toleration, *taint, "effect"),
            Block::Key { toleration, taint } => (*toleration, *taint, "key"),
            _ => return None,
        };
        let tol = w.tolerations.get(toleration)?;
        let taint = &pool.taints.get(taint)?.taint;
        let (span, new) = match field {
            "value" => (tol.scalars.value?, format!("\"{}\"", taint.value)),
            "effect" => (tol.scalars.effect?, taint.effect.to_string()),
            _ => (tol.scalars.key?, taint.key.to_string()),
        };
        titles.push(format!("set `{field}: {new}`"));
        edits.push(Edit::new(&w.source, span, new));
    }
    (!edits.is_empty()).then(|| Fix::unsafe_(titles.join(", "), edits))
}

/// At most this many pools are named in `related`: the one the pod is meant for and those its
/// selector admits — or, when there are none, the first others; the last note says how many
/// more there are (`explain` lists every pool).
const RELATED_POOLS: usize = 3;

/// Distinct untolerated taints listed in the message, as the scheduler lists them; beyond
/// this many they are counted together (`40 have an untolerated taint`).
const LISTED_TAINTS: usize = 3;

/// What blocks the pools, counted as the scheduler counts nodes (each pool once, by its first
/// failing filter: NodeUnschedulable, then TaintToleration, then NodeAffinity), each name once
/// (pools with one name — the same NodePool in two files — are alternatives, counted by their
/// first pool), and the first few pools of each rank (0 the intended pool, 1 a pool the
/// selector admits, 2 the others) with what blocks them, in inventory order.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    /// Pools per untolerated taint (by the number of its scheduler form, see
    /// `PoolClasses::phrases`), the forms with at least one pool: all of them when there are
    /// at most [`LISTED_TAINTS`], else none (then `distinct_taints` and `by_taints` say).
    listed: Vec<(u32, usize)>,
    distinct_taints: usize,
    by_taints: usize,
    selector: usize,
    cordoned: usize,
    /// Pools turned away first by a taint or the cordon whose labels do not match the pod's
    /// node affinity/selector either (the scheduler stops at the first failing filter; the
    /// message names the others too, so the fix is not only a toleration).
    also_selector: usize,
    /// (pool, class, first failing filter), at most [`RELATED_POOLS`] per rank.
    named: [Vec<(usize, usize, Reason)>; 3],
    ranked: [usize; 3],
}

/// [`Tally`] by a pass over every pool.
fn tally_by_pools(
    inventory: &Inventory,
    classes: &PoolClasses,
    judged: &Judged<'_>,
    intended: Option<usize>,
) -> Tally {
    // Per class: the first failing filter, and whether the pod's selector admits the class's
    // pools.
    let first: Vec<Option<(Reason, bool)>> = (0..classes.len())
        .map(|c| judged.first(c).map(|r| (r, judged.selected(c))))
        .collect();
    let titles = inventory.titles();
    let mut per_phrase = vec![0usize; classes.phrases.len()];
    let mut taints: Vec<u32> = Vec::new();
    let mut t = Tally::default();
    for (p, c) in classes.of.iter().enumerate() {
        let c = *c as usize;
        if !titles.first.get(p).copied().unwrap_or(false) {
            continue;
        }
        let Some(Some((reason, selected))) = first.get(c) else {
            continue;
        };
        match reason {
            Reason::Taint(i) => {
                if let Some((id, n)) = classes
                    .phrase(c, *i)
                    .and_then(|id| Some((id, per_phrase.get_mut(id as usize)?)))
                {
                    if *n == 0 {
                        taints.push(id);
                    }
                    *n += 1;
                    t.by_taints += 1;
                }
            }
            Reason::Selector => t.selector += 1,
            Reason::Unschedulable => t.cordoned += 1,
        }
        if !selected && !matches!(reason, Reason::Selector) {
            t.also_selector += 1;
        }
        let rank = if intended == Some(p) {
            0
        } else if *selected {
            1
        } else {
            2
        };
        t.ranked[rank] += 1;
        if t.named[rank].len() < RELATED_POOLS {
            t.named[rank].push((p, c, reason.clone()));
        }
    }
    t.distinct_taints = taints.len();
    if taints.len() <= LISTED_TAINTS {
        t.listed = taints
            .into_iter()
            .filter_map(|id| Some((id, *per_phrase.get(id as usize)?)))
            .collect();
        t.listed.sort_unstable();
    }
    t
}

/// What blocks the pools of the classes no toleration and no selection of the pod singles
/// out (see `Judged`), counted once per run for each way a pod can leave their taints and
/// cordon untolerated: the pools counted per first failing filter of their class.
#[derive(Debug, Default)]
struct Baseline {
    per_phrase: HashMap<u32, usize>,
    by_taints: usize,
    cordoned: usize,
    /// Pools without a blocking filter but the selector.
    rest: usize,
}

/// Pools counted (the first of each name) per class.
fn counted_per_class(inventory: &Inventory, classes: &PoolClasses) -> Arc<Vec<usize>> {
    let titles = inventory.titles();
    let mut n = vec![0usize; classes.len()];
    for (p, &c) in classes.of.iter().enumerate() {
        if titles.first.get(p).copied().unwrap_or(false)
            && let Some(x) = n.get_mut(c as usize)
        {
            *x += 1;
        }
    }
    Arc::new(n)
}

/// A class's first failing filter by its baseline (see [`Baseline`]): `None` for one whose
/// only filter left is the selector.
fn baseline_first(classes: &PoolClasses, c: usize, variant: usize, cordon_ok: bool) -> Option<Reason> {
    if classes.cordoned(c) && !cordon_ok {
        return Some(Reason::Unschedulable);
    }
    classes.baseline_first(c, variant).map(Reason::Taint)
}

/// [`Tally`] from the run's [`Baseline`] for the pod's way of leaving taints untolerated,
/// corrected by the few classes its selection and tolerations single out: no pass over the
/// pools but for the first few of each rank. `None` when the classes not singled out do not
/// fail alike (see `Judged::baseline_key`).
fn tally_by_classes(
    ctx: &CrossCtx<'_>,
    fits: &Arc<crate::analysis::judgements::schedule::Verdicts>,
    judged: &Judged<'_>,
    intended: Option<usize>,
) -> Option<Tally> {
    let (variant, cordon_ok, selects) = judged.baseline_key()?;
    let inventory = ctx.inventory;
    let classes = fits.classes();
    let titles = inventory.titles();
    let counted = ctx
        .eval
        .memo
        .get_run(META.name, "counted per class", || counted_per_class(inventory, classes));
    let base = ctx.eval.memo.get_run(
        META.name,
        &format!("baseline {variant} {cordon_ok}"),
        || {
            let mut b = Baseline::default();
            for (c, &n) in counted.iter().enumerate() {
                if n == 0 {
                    continue;
                }
                match baseline_first(classes, c, variant, cordon_ok) {
                    Some(Reason::Unschedulable) => b.cordoned += n,
                    Some(Reason::Taint(i)) => {
                        if let Some(id) = classes.phrase(c, i) {
                            *b.per_phrase.entry(id).or_default() += n;
                            b.by_taints += n;
                        }
                    }
                    _ => b.rest += n,
                }
            }
            Arc::new(b)
        },
    );
    let mut t = Tally::default();
    let mut delta: BTreeMap<u32, i64> = BTreeMap::new();
    let (mut by_taints, mut cordoned, mut rest) =
        (base.by_taints as i64, base.cordoned as i64, base.rest as i64);
    let (mut selector_exact, mut selected_failing) = (0i64, 0usize);
    // Pools of the singled-out classes the baseline counts as blocked by a taint or the
    // cordon, and those of them whose selector fails as well.
    let (mut blocked_exact, mut also_exact) = (0i64, 0i64);
    let mut selected_classes: Vec<usize> = Vec::new();
    for c in judged.exact_classes() {
        let n = counted.get(c).copied().unwrap_or(0);
        if n == 0 {
            continue;
        }
        let n_i = n as i64;
        match baseline_first(classes, c, variant, cordon_ok) {
            Some(Reason::Unschedulable) => {
                cordoned -= n_i;
                blocked_exact += n_i;
            }
            Some(Reason::Taint(i)) => {
                if let Some(id) = classes.phrase(c, i) {
                    *delta.entry(id).or_default() -= n_i;
                    by_taints -= n_i;
                    blocked_exact += n_i;
                }
            }
            _ => rest -= n_i,
        }
        let first = judged.first(c);
        match &first {
            Some(Reason::Unschedulable) => cordoned += n_i,
            Some(Reason::Taint(i)) => {
                if let Some(id) = classes.phrase(c, *i) {
                    *delta.entry(id).or_default() += n_i;
                    by_taints += n_i;
                }
            }
            Some(Reason::Selector) => selector_exact += n_i,
            None => {}
        }
        let counted_blocked = match &first {
            Some(Reason::Taint(i)) => classes.phrase(c, *i).is_some(),
            Some(Reason::Unschedulable) => true,
            _ => false,
        };
        if counted_blocked && !judged.selected(c) {
            also_exact += n_i;
        }
        if selects && first.is_some() && judged.selected(c) {
            selected_failing += n;
            selected_classes.push(c);
        }
    }
    let count = |x: i64| usize::try_from(x).unwrap_or(0);
    t.by_taints = count(by_taints);
    t.cordoned = count(cordoned);
    t.selector = count(selector_exact + if selects { rest } else { 0 });
    // Outside the singled-out classes, a pod that selects anything matches no pool (see
    // `Judged::baseline_key`).
    t.also_selector = count(
        also_exact
            + if selects {
                (base.by_taints + base.cordoned) as i64 - blocked_exact
            } else {
                0
            },
    );
    // The forms with pools: the baseline's, with the corrections.
    let changed = |id: u32| -> (usize, usize) {
        let before = base.per_phrase.get(&id).copied().unwrap_or(0);
        let after = count(before as i64 + delta.get(&id).copied().unwrap_or(0));
        (before, after)
    };
    let mut distinct = base.per_phrase.len();
    for &id in delta.keys() {
        let (before, after) = changed(id);
        if before > 0 && after == 0 {
            distinct -= 1;
        } else if before == 0 && after > 0 {
            distinct += 1;
        }
    }
    t.distinct_taints = distinct;
    if distinct <= LISTED_TAINTS {
        let mut ids: Vec<u32> = base.per_phrase.keys().chain(delta.keys()).copied().collect();
        ids.sort_unstable();
        ids.dedup();
        t.listed = ids
            .into_iter()
            .map(|id| (id, changed(id).1))
            .filter(|(_, n)| *n > 0)
            .collect();
    }
    // The ranks: the intended pool; the pools of the classes the selector admits (every
    // class, for a pod that selects nothing); the others.
    let failing = |p: usize| {
        classes
            .of
            .get(p)
            .and_then(|&c| judged.first(c as usize).map(|r| (c as usize, r)))
    };
    let total = t.by_taints + t.cordoned + t.selector;
    let intended_named = intended.filter(|&p| {
        titles.first.get(p).copied().unwrap_or(false) && failing(p).is_some()
    });
    if let Some(p) = intended_named
        && let Some((c, r)) = failing(p)
    {
        t.ranked[0] = 1;
        t.named[0].push((p, c, r));
    }
    let in_selected = |p: usize| {
        !selects
            || classes
                .of
                .get(p)
                .is_some_and(|&c| selected_classes.binary_search(&(c as usize)).is_ok())
    };
    t.ranked[1] = if selects {
        selected_failing - usize::from(intended_named.is_some_and(in_selected))
    } else {
        total - t.ranked[0]
    };
    t.ranked[2] = total - t.ranked[0] - t.ranked[1];
    // The first pools of ranks 1 and 2, in inventory order.
    let mut first_of = |rank: usize, candidates: &mut dyn Iterator<Item = usize>| {
        for p in candidates {
            if t.named[rank].len() >= RELATED_POOLS {
                break;
            }
            if Some(p) == intended || !titles.first.get(p).copied().unwrap_or(false) {
                continue;
            }
            if (rank == 1) != in_selected(p) {
                continue;
            }
            if let Some((c, r)) = failing(p) {
                t.named[rank].push((p, c, r));
            }
        }
    };
    if selects {
        // The selected classes' pools: a few counted ones of each, in order.
        let mut pools: Vec<usize> = selected_classes
            .iter()
            .flat_map(|&c| {
                classes
                    .members
                    .get(c)
                    .into_iter()
                    .flatten()
                    .map(|&p| p as usize)
                    .filter(|&p| titles.first.get(p).copied().unwrap_or(false) && Some(p) != intended)
                    .take(RELATED_POOLS)
            })
            .collect();
        pools.sort_unstable();
        first_of(1, &mut pools.into_iter());
    } else {
        first_of(1, &mut (0..classes.of.len()));
    }
    if t.ranked[0] + t.ranked[1] == 0 {
        first_of(2, &mut (0..classes.of.len()));
    }
    Some(t)
}

/// The scheduler-style detail, whether only selectors failed, and the related locations.
/// Every pool of a class fails alike (see `PoolClasses`): the first failing filter is found
/// once per class (`Judged`: exactly on the classes the pod's selection and tolerations
/// single out, by the class's baseline on the others), and counted from the run's baseline
/// corrected by those classes ([`tally_by_classes`]), or by a pass over the pools.
fn describe(
    ctx: &CrossCtx<'_>,
    w: &crate::analysis::types::Workload,
    fits: &Arc<crate::analysis::judgements::schedule::Verdicts>,
    intended: Option<usize>,
) -> (String, usize, bool, Vec<Related>) {
    let inventory = ctx.inventory;
    let classes = fits.classes();
    let pools = &inventory.pools;
    let judged = fits.judge(w, pools);
    let titles = inventory.titles();
    let t = tally_by_classes(ctx, fits, &judged, intended)
        .unwrap_or_else(|| tally_by_pools(inventory, classes, &judged, intended));
    let Tally {
        listed,
        distinct_taints,
        by_taints,
        selector,
        cordoned,
        also_selector,
        named,
        ranked,
    } = t;
    let total_named: usize = ranked.iter().sum();
    // Pools the pod neither selects nor nearly fits are named only when there are no others.
    let relevant = match ranked[0] + ranked[1] {
        0 => total_named,
        n => n,
    };
    let shown = relevant.min(RELATED_POOLS);
    let more = total_named - shown;
    let mut related = Vec::new();
    for (p, c, reason) in named.iter().flatten().take(shown) {
        let Some(pool) = pools.get(*p) else { continue };
        let title = titles.text.get(*p).cloned().unwrap_or_else(|| pool.title());
        let (loc, note) = match reason {
            Reason::Taint(i) => {
                // The taint's place among the blocking ones of the class, on this pool.
                let Some(k) = classes
                    .reps
                    .get(*c)
                    .and_then(|&r| pools.get(r))
                    .and_then(|rep| rep.blocking_taints().position(|(j, _)| j == *i))
                else {
                    continue;
                };
                let Some((_, t)) = pool.blocking_taints().nth(k) else {
                    continue;
                };
                (
                    t.loc.as_ref(),
                    format!("taint `{}` of {title}", t.taint.display()),
                )
            }
            Reason::Selector => (Some(&pool.loc), format!("{title} has no matching labels")),
            Reason::Unschedulable => (Some(&pool.loc), format!("{title} is cordoned")),
        };
        // Every failing filter, in the scheduler's order: the labels after the taint or cordon.
        let note = if !matches!(reason, Reason::Selector) && !judged.selected(*c) {
            format!("{note}, and its labels do not match the pod's node affinity/selector")
        } else {
            note
        };
        if let Some(loc) = loc.and_then(|p| inventory.loc(p)) {
            related.push(Related {
                source: loc.source,
                span: loc.span,
                message: note,
            });
        }
    }
    if more > 0
        && let Some(last) = related.last_mut()
    {
        last.message.push_str(&format!(
            " (and {more} more pool{}{}: see `taintlint explain`)",
            if more == 1 { "" } else { "s" },
            if shown == relevant && relevant < total_named {
                " this pod does not select"
            } else {
                ""
            }
        ));
    }
    // The scheduler's counts, most first: one part per distinct untolerated taint while there
    // are few, one part for all of them beyond that.
    // (count, the phrase it sorts by, the text)
    let mut parts: Vec<(usize, String, String)> = Vec::new();
    if distinct_taints <= LISTED_TAINTS {
        let listed: BTreeMap<&str, usize> = listed
            .iter()
            .filter_map(|&(id, n)| Some((classes.phrases.get(id as usize)?.as_str(), n)))
            .collect();
        for (phrase, n) in &listed {
            let verb = if *n == 1 { "has" } else { "have" };
            parts.push((
                *n,
                format!("untolerated taint {phrase}"),
                format!("{n} {verb} untolerated taint {phrase}"),
            ));
        }
    } else {
        let n = by_taints;
        let verb = if n == 1 { "has" } else { "have" };
        parts.push((
            n,
            "untolerated taint".to_string(),
            format!("{n} {verb} an untolerated taint ({distinct_taints} different taints)"),
        ));
    }
    if selector > 0 {
        parts.push((
            selector,
            "didn't match".to_string(),
            if w.selects_by_spread_only() {
                // The PodTopologySpread filter's words.
                format!(
                    "{selector} didn't match pod topology spread constraints (missing required label)"
                )
            } else {
                format!("{selector} didn't match Pod's node affinity/selector")
            },
        ));
    }
    if cordoned > 0 {
        let verb = if cordoned == 1 { "is" } else { "are" };
        parts.push((
            cordoned,
            "unschedulable".to_string(),
            format!("{cordoned} {verb} unschedulable (cordoned)"),
        ));
    }
    parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let selector_only = distinct_taints == 0 && cordoned == 0;
    let mut detail = parts
        .into_iter()
        .map(|(_, _, p)| p)
        .collect::<Vec<_>>()
        .join(", ");
    // The scheduler names a node's first failing filter only (NodeUnschedulable,
    // TaintToleration, then NodeAffinity: kubernetes/kubernetes
    // pkg/scheduler/framework/runtime/framework.go `RunFilterPlugins` stops at the first);
    // a pool its taint or cordon turns away whose labels do not match either is said too, or
    // a toleration would look like the whole fix.
    // Said when the selector matches no pool at all: then it is the first thing to fix.
    let blocked = by_taints + cordoned;
    if also_selector > 0 && also_selector >= blocked && !w.selects_by_spread_only() {
        let who = match (blocked, selector) {
            (1, _) => "that pool".to_string(),
            (n, 0) => format!("all {n}"),
            (n, _) => format!("those {n}"),
        };
        detail.push_str(&format!(
            "; {who} also didn't match Pod's node affinity/selector"
        ));
    }
    (detail, titles.distinct, selector_only, related)
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::judgements::schedule::Evaluator;
    use crate::analysis::types::Relevant;
    use crate::settings::Settings;

    /// The tally from the run's baseline is the tally of a pass over the pools, on generated
    /// inventories, for every pod no pool admits and every pool as the intended one.
    #[test]
    fn tally_by_classes_is_tally_by_pools() {
        let mut compared = 0;
        for (yaml, inv, ws) in crate::analysis::judgements::schedule::tests::generated(300) {
            let settings = Settings::default();
            let evaluator = Evaluator::new(&inv, &Relevant::of(&ws), &settings);
            let eval = evaluator.evaluate(&ws);
            let ctx = CrossCtx {
                inventory: &inv,
                workloads: &ws,
                eval: &eval,
                settings: &settings,
                kueue: &crate::analysis::types::kueue::NO_KUEUE,
            };
            for (w, fits) in ws.iter().zip(&eval.fits) {
                let judged = fits.judge(w, &inv.pools);
                for intended in std::iter::once(None).chain((0..inv.pools.len()).map(Some)) {
                    let Some(quick) = tally_by_classes(&ctx, fits, &judged, intended) else {
                        continue;
                    };
                    let mut slow = tally_by_pools(&inv, fits.classes(), &judged, intended);
                    // The others are named only when there is no pool of ranks 0 and 1.
                    if slow.ranked[0] + slow.ranked[1] > 0 {
                        slow.named[2].clear();
                    }
                    assert_eq!(quick, slow, "intended {intended:?}:\n{yaml}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 5000, "{compared}");
    }
}
