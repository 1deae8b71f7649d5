//! `daemonset-misses-pools`: the pools a DaemonSet will not run on, because of their taints (after
//! the controller's default tolerations, pkg/controller/daemon/util/daemonset_util.go
//! `AddOrUpdateDaemonPodTolerations`) or its selector.

use crate::analysis::judgements::schedule::Reason;
use crate::diagnostic::{Finding, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "daemonset-misses-pools",
    summary: "Node pools a DaemonSet will not run on, and why",
    category: Category::Scheduling,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/daemonset-misses-pools.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    let pools = &ctx.inventory.pools;
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        if !w.daemonset {
            continue;
        }
        // Running nowhere is `unschedulable-workload`'s finding.
        if !fits.any() {
            continue;
        }
        // Identical DaemonSets share their verdicts: list the pools once per verdicts.
        let (total, missed_count, missed) = ctx
            .eval
            .memo
            .get_or(META.name, fits, "", || missed_pools(pools, w, fits));
        if missed_count == 0 {
            continue;
        }
        // An operator's node agent is named: its kind is no DaemonSet.
        let what = match w.role.as_deref() {
            Some(_) => format!("{} (one per node)", w.title()),
            None => "DaemonSet".to_string(),
        };
        let mut f = META.finding(format!(
                "{what} runs on {}/{} node pools; not on: {}",
                total - missed_count,
                total,
                if missed_count > missed.len() {
                    format!("{}; and {} more", missed.join("; "), missed_count - missed.len())
                } else {
                    missed.join("; ")
                }
            ),
        )
        .primary(w.anchor, "not every pool")
        .help("if the agent must run on every node, tolerate those taints (or `operator: Exists` for all) and widen the selector")
        .field(w.spec_path.to_string())
        .in_file(&w.source);
        f.object = Some(w.object.clone());
        out.push(f);
    }
}

/// How many pools reject the DaemonSet, and `pool (reasons)` for the first few.
fn missed_pools(
    pools: &[Box<crate::analysis::types::Pool>],
    w: &crate::analysis::types::Workload,
    fits: &crate::analysis::judgements::schedule::Verdicts,
) -> (usize, usize, Vec<String>) {
    // Each name once: same-named pools are alternatives, and a name is open to the
    // DaemonSet when any of its pools is (as `explain` counts them). Each missed name is
    // shown by its first pool.
    let mut names: std::collections::HashMap<String, (usize, bool)> =
        std::collections::HashMap::new();
    for (i, pool) in pools.iter().enumerate() {
        let entry = names.entry(pool.title()).or_insert((i, false));
        entry.1 |= fits.admits(i);
    }
    let total = names.len();
    let mut missed: Vec<usize> = names
        .values()
        .filter(|(_, open)| !open)
        .map(|(first, _)| *first)
        .collect();
    missed.sort_unstable();
    let shown = missed
        .iter()
        .take(SHOWN)
        .map(|&i| {
            let p = &pools[i];
            let why: Vec<String> = fits
                .reasons(w, p)
                .iter()
                .map(|r| match r {
                    Reason::Taint(t) => format!("taint `{}`", p.taints[*t].taint.display()),
                    Reason::Selector => "selector".to_string(),
                    Reason::Unschedulable => "cordoned".to_string(),
                })
                .collect();
            format!("{} ({})", p.title(), why.join(", "))
        })
        .collect();
    (total, missed.len(), shown)
}

/// Pools named in a message; the rest are counted.
const SHOWN: usize = 8;
