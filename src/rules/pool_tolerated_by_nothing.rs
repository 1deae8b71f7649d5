//! `pool-tolerated-by-nothing`: a tainted node pool that no linted workload can use.

use crate::diagnostic::{Finding, Severity};

use super::{Category, CrossCtx, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "pool-tolerated-by-nothing",
    summary: "A tainted node pool that no linted workload can run on",
    category: Category::Scheduling,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/pool-tolerated-by-nothing.md"),
};

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    // Only meaningful when the run includes workloads other than node agents.
    if !ctx.workloads.iter().any(|w| !w.daemonset) {
        return;
    }
    for (p, pool) in ctx.inventory.pools.iter().enumerate() {
        if pool.blocking_taints().next().is_none() {
            continue;
        }
        // A pod bound with `nodeName` to one of its nodes uses the pool too.
        let used = ctx.workloads.iter().zip(&ctx.eval.fits).any(|(w, fits)| {
            !w.daemonset
                && (fits.admits(p)
                    || w.node_name
                        .as_ref()
                        .is_some_and(|(n, _)| pool.nodes.iter().any(|m| m == n)))
        });
        if used {
            continue;
        }
        let taints: Vec<String> = pool
            .blocking_taints()
            .map(|(_, t)| format!("`{}`", t.taint.display()))
            .collect();
        let mut f = Finding::new(
            META.name,
            META.severity,
            format!(
                "no linted workload (other than DaemonSets) can run on {}, tainted {}",
                pool.title(),
                taints.join(", ")
            ),
        )
        .primary(pool.loc.span, "unused pool")
        .help("the workloads meant for it are elsewhere, or their tolerations do not match these taints")
        .in_file(&pool.loc.source);
        f.object = None;
        out.push(f);
    }
}
