//! `unschedulable-workload`: no node pool of the inventory admits the pod. The message has
//! the scheduler's shape (`0/3 node pools can run this pod: ...`), and related locations
//! point at each blocking taint or label.

use std::collections::{BTreeMap, HashSet};

use crate::analysis::judgements::evidence::{self, Aim, LabelMiss};
use crate::analysis::judgements::near_miss::{Block, describe as describe_near_miss, near_miss};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::judgements::schedule::{PoolClasses, Reason};
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
        if w.node_name.is_some() || fits.any() {
            continue;
        }
        // Pools merely found in the tree judge only a pod whose selection aims at them
        // (`analysis::judgements::evidence`): one meant for nodes described elsewhere (a GKE label, a
        // pool made by Terraform, general nodes) is not theirs to judge.
        let label_miss = if ctx.inventory.closed() {
            None
        } else {
            match ctx
                .eval
                .memo
                .get_or(META.name, fits, "aim", || evidence::aim(ctx.inventory, w))
            {
                Aim::Elsewhere => continue,
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
            describe(ctx.inventory, &ctx.eval.classes, w, fits, intended)
        });
        let (diagnosis, fix) = match (&label_miss, &miss) {
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
                "0/{total} node pools{} can run this pod: {detail}",
                if ctx.inventory.declared() {
                    ""
                } else {
                    " found in the linted files"
                }
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
            if ctx.inventory.declared()
                || label_miss.is_some()
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

/// The scheduler-style detail, whether only selectors failed, and the related locations.
/// Every pool of a class fails alike (see `PoolClasses`): the first failing filter is found
/// once per class, on its first pool, and counted for all of its pools.
fn describe(
    inventory: &Inventory,
    classes: &PoolClasses,
    w: &crate::analysis::types::Workload,
    fits: &crate::analysis::judgements::schedule::Verdicts,
    intended: Option<usize>,
) -> (String, usize, bool, Vec<Related>) {
    let pools = &inventory.pools;
    // Per class: the first failing filter (a taint given by its place among the blocking
    // ones, with its scheduler form), and whether the pod's selector admits the class's pools.
    let mut first: Vec<Option<(First, Option<String>, bool)>> = Vec::with_capacity(classes.len());
    for &rep in &classes.reps {
        let Some(pool) = pools.get(rep) else {
            first.push(None);
            continue;
        };
        let reasons = fits.reasons(w, pool);
        let selected = !reasons.contains(&Reason::Selector);
        // The scheduler stops at a node's first failing filter (NodeUnschedulable, then
        // TaintToleration, then NodeAffinity), so each pool counts once.
        let reason = reasons
            .iter()
            .find(|r| matches!(r, Reason::Unschedulable))
            .or_else(|| reasons.iter().find(|r| matches!(r, Reason::Taint(_))))
            .or_else(|| reasons.first());
        let found = match reason {
            Some(Reason::Taint(i)) => pool
                .blocking_taints()
                .position(|(j, _)| j == *i)
                .map(|k| (First::Taint(k), Some(pool.taints[*i].taint.scheduler_form()))),
            Some(Reason::Selector) => Some((First::Selector, None)),
            Some(Reason::Unschedulable) => Some((First::Unschedulable, None)),
            None => None,
        };
        first.push(found.map(|(f, phrase)| (f, phrase, selected)));
    }
    // Pools with one name (the same NodePool in two files, two copies of a node group) are
    // alternatives, not two pools: each name counts once, by its first pool, and is named once.
    let mut seen: HashSet<String> = HashSet::new();
    let mut taints: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut selector, mut cordoned) = (0usize, 0usize);
    // (rank, pool, what blocks it): rank 0 the intended pool, 1 a pool the selector admits.
    let mut named: Vec<(u8, usize, First)> = Vec::new();
    for (p, pool) in pools.iter().enumerate() {
        if !seen.insert(pool.title()) {
            continue;
        }
        let Some(Some((f, phrase, selected))) = first.get(classes.class(p)) else {
            continue;
        };
        match (f, phrase) {
            (First::Taint(_), Some(phrase)) => *taints.entry(phrase.as_str()).or_default() += 1,
            (First::Taint(_), None) => {}
            (First::Selector, _) => selector += 1,
            (First::Unschedulable, _) => cordoned += 1,
        }
        let rank = if intended == Some(p) {
            0
        } else if *selected {
            1
        } else {
            2
        };
        named.push((rank, p, *f));
    }
    // Stable: pools keep their inventory order within a rank.
    named.sort_by_key(|(rank, _, _)| *rank);
    // Pools the pod neither selects nor nearly fits are named only when there are no others.
    let relevant = match named.iter().filter(|(rank, _, _)| *rank < 2).count() {
        0 => named.len(),
        n => n,
    };
    let shown = relevant.min(RELATED_POOLS);
    let more = named.len() - shown;
    let mut related = Vec::new();
    for &(_, p, f) in named.iter().take(shown) {
        let Some(pool) = pools.get(p) else { continue };
        let title = pool.title();
        let (loc, note) = match f {
            First::Taint(k) => {
                let Some((_, t)) = pool.blocking_taints().nth(k) else {
                    continue;
                };
                (
                    t.loc.as_ref(),
                    format!("taint `{}` of {title}", t.taint.display()),
                )
            }
            First::Selector => (Some(&pool.loc), format!("{title} has no matching labels")),
            First::Unschedulable => (Some(&pool.loc), format!("{title} is cordoned")),
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
            if shown == relevant && relevant < named.len() {
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
    if taints.len() <= LISTED_TAINTS {
        for (phrase, n) in &taints {
            let verb = if *n == 1 { "has" } else { "have" };
            parts.push((
                *n,
                format!("untolerated taint {phrase}"),
                format!("{n} {verb} untolerated taint {phrase}"),
            ));
        }
    } else {
        let n: usize = taints.values().sum();
        let verb = if n == 1 { "has" } else { "have" };
        parts.push((
            n,
            "untolerated taint".to_string(),
            format!("{n} {verb} an untolerated taint ({} different taints)", taints.len()),
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
                format!("{selector} didn't match the pod's node affinity/selector")
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
    let selector_only = taints.is_empty() && cordoned == 0;
    let detail = parts
        .into_iter()
        .map(|(_, _, p)| p)
        .collect::<Vec<_>>()
        .join(", ");
    (detail, seen.len(), selector_only, related)
}

/// The first filter that rejects the pods of a class of pools.
#[derive(Clone, Copy)]
enum First {
    /// The k-th blocking taint.
    Taint(usize),
    Selector,
    Unschedulable,
}
