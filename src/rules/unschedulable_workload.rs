//! `unschedulable-workload`: no node pool of the inventory admits the pod. The message has
//! the scheduler's shape (`0/3 node pools can run this pod: ...`), and related locations
//! point at each blocking taint or label.

use std::collections::{BTreeMap, HashSet};

use crate::analysis::{Block, Inventory, PoolClasses, Reason, describe_near_miss, near_miss};
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
        // Identical workloads share their verdicts: build the message once per verdicts.
        let (detail, total, selector_only, related) = ctx.eval.memo.get_or(META.name, fits, "", || {
            describe(ctx.inventory, &ctx.eval.classes, w, fits)
        });
        // The pool it is meant for and the edit that lets it in (tolerations are part of the
        // signature, so the verdicts' memo holds for this too).
        let miss = ctx.eval.memo.get_or(META.name, fits, "near-miss", || {
            near_miss(ctx.inventory, w, fits)
                .and_then(|m| Some((describe_near_miss(ctx.inventory, w, &m)?, m)))
        });
        let (diagnosis, fix) = match &miss {
            Some((text, m)) => (Some(text.clone()), near_miss_fix(ctx, w, m)),
            None => (None, None),
        };
        let span = if selector_only {
            w.selector_span.unwrap_or(w.anchor)
        } else {
            w.anchor
        };
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
            "{}{}",
            match &diagnosis {
                Some(d) => d.as_str(),
                None if selector_only => "no pool carries the labels this pod selects; fix `nodeSelector`/node affinity, or label a pool to match",
                None => "tolerate the pool's taints (and select its labels), or add a pool this pod can use; run `taintlint explain` for the reasons per pool",
            },
            if ctx.inventory.declared() {
                ""
            } else {
                "; if the cluster has pools no linted file declares (made by Terraform or a cloud CLI), declare them with `--inventory` or the config's `inventory:`"
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

/// The edit that lets the workload into the pool it is meant for, when every block is a
/// toleration scalar to change (a value, an effect or a key typo); unsafe, since the taint may
/// be the one that is wrong.
fn near_miss_fix(
    ctx: &CrossCtx<'_>,
    w: &crate::analysis::Workload,
    miss: &crate::analysis::NearMiss,
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

/// The scheduler-style detail, whether only selectors failed, and the related locations.
/// Every pool of a class fails alike (see `PoolClasses`): the first failing filter is found
/// once per class, on its first pool, and counted for all of its pools.
fn describe(
    inventory: &Inventory,
    classes: &PoolClasses,
    w: &crate::analysis::Workload,
    fits: &crate::analysis::Verdicts,
) -> (String, usize, bool, Vec<Related>) {
    let pools = &inventory.pools;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    // Per class: the first failing filter, a taint given by its place among the blocking ones.
    let mut first: Vec<Option<(First, String)>> = Vec::with_capacity(classes.len());
    for &rep in &classes.reps {
        let Some(pool) = pools.get(rep) else {
            first.push(None);
            continue;
        };
        let reasons = fits.reasons(w, pool);
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
                .map(|k| (First::Taint(k), pool.taints[*i].taint.scheduler_form())),
            Some(Reason::Selector) => Some((
                First::Selector,
                "didn't match the pod's node affinity/selector".to_string(),
            )),
            Some(Reason::Unschedulable) => {
                Some((First::Unschedulable, "unschedulable (cordoned)".to_string()))
            }
            None => None,
        };
        first.push(found.map(|(f, phrase)| {
            let phrase = match f {
                First::Taint(_) => format!("untolerated taint {phrase}"),
                _ => phrase,
            };
            (f, phrase)
        }));
    }
    // Pools with one name (the same NodePool in two files, two copies of a node group) are
    // alternatives, not two pools: each name counts once, by its first pool, and is named once.
    let mut seen: HashSet<String> = HashSet::new();
    let mut related = Vec::new();
    for (p, pool) in pools.iter().enumerate() {
        let title = pool.title();
        if !seen.insert(title.clone()) {
            continue;
        }
        let Some(Some((f, phrase))) = first.get(classes.class(p)) else {
            continue;
        };
        *counts.entry(phrase.clone()).or_default() += 1;
        if related.len() >= 12 {
            continue;
        }
        let (loc, note) = match f {
            First::Taint(k) => {
                let Some((_, t)) = pool.blocking_taints().nth(*k) else {
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
    let mut parts: Vec<(usize, String)> = counts.into_iter().map(|(p, n)| (n, p)).collect();
    parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let detail = parts
        .iter()
        .map(|(n, p)| {
            let verb = if p.starts_with("didn't") || p.starts_with("unschedulable") {
                ""
            } else if *n == 1 {
                "has "
            } else {
                "have "
            };
            if p.starts_with("unschedulable") {
                format!("{n} {} {p}", if *n == 1 { "is" } else { "are" })
            } else {
                format!("{n} {verb}{p}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    let selector_only = parts.iter().all(|(_, p)| p.starts_with("didn't"));
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
