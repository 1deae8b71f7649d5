//! `daemonset-misses-pools`: the pools a DaemonSet will not run on, because of their taints
//! (after the controller's default tolerations, SEMANTICS §4.2) or its selector.

use crate::analysis::crossref::Reason;
use crate::diagnostic::{Finding, Severity};

use super::{Category, CrossCtx, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "daemonset-misses-pools",
    summary: "Node pools a DaemonSet will not run on, and why",
    category: Category::Scheduling,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/daemonset-misses-pools.md"),
};

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    let pools = &ctx.inventory.pools;
    let mut cache: std::collections::HashMap<usize, Vec<String>> = std::collections::HashMap::new();
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        if !w.daemonset {
            continue;
        }
        // Running nowhere is `unschedulable-workload`'s finding.
        if !fits.iter().any(Vec::is_empty) {
            continue;
        }
        // Identical DaemonSets share their verdicts: list the pools once per verdicts.
        let key = std::sync::Arc::as_ptr(fits) as usize;
        let missed = cache
            .entry(key)
            .or_insert_with(|| missed_pools(pools, fits))
            .clone();
        if missed.is_empty() {
            continue;
        }
        let mut f = Finding::new(
            META.name,
            META.severity,
            format!(
                "DaemonSet runs on {}/{} node pools; not on: {}",
                pools.len() - missed.len(),
                pools.len(),
                missed.join("; ")
            ),
        )
        .primary(w.anchor, "not every pool")
        .help("if the agent must run on every node, tolerate those taints (or `operator: Exists` for all) and widen the selector")
        .field(w.spec_path.clone())
        .in_file(&w.source);
        f.object = Some(w.object.clone());
        out.push(f);
    }
}

/// `pool (reasons)` for every pool that rejects the DaemonSet.
fn missed_pools(pools: &[crate::analysis::crossref::Pool], fits: &[Vec<Reason>]) -> Vec<String> {
    pools
        .iter()
        .zip(fits.iter())
        .filter(|(_, r)| !r.is_empty())
        .map(|(p, reasons)| {
            let why: Vec<String> = reasons
                .iter()
                .map(|r| match r {
                    Reason::Taint(i) => format!("taint `{}`", p.taints[*i].taint.display()),
                    Reason::Selector => "selector".to_string(),
                    Reason::Unschedulable => "cordoned".to_string(),
                })
                .collect();
            format!("{} ({})", p.title(), why.join(", "))
        })
        .collect()
}
