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
    let mut usage = Usage::new(ctx.inventory);
    usage.add(ctx);
    usage.report(ctx.inventory, out);
}

/// Which tainted pools some workload (other than a DaemonSet) uses, gathered over one or
/// several batches of workloads (a streamed run sees them file by file).
pub struct Usage {
    used: Vec<bool>,
    /// Some workload other than a DaemonSet was seen.
    any: bool,
    /// Verdicts already counted (workloads with one signature share them).
    seen: std::collections::HashSet<usize>,
}

impl Usage {
    pub fn new(inventory: &crate::analysis::crossref::Inventory) -> Self {
        Usage {
            used: vec![false; inventory.pools.len()],
            any: false,
            seen: std::collections::HashSet::new(),
        }
    }

    pub fn add(&mut self, ctx: &CrossCtx<'_>) {
        for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
            if w.daemonset {
                continue;
            }
            self.any = true;
            // A pod bound with `nodeName` to one of its nodes uses the pool too.
            if let Some((n, _)) = &w.node_name {
                for &p in ctx.inventory.node_pools(n) {
                    if let Some(u) = self.used.get_mut(p) {
                        *u = true;
                    }
                }
            }
            if self.seen.insert(std::sync::Arc::as_ptr(fits) as usize) {
                for (p, u) in self.used.iter_mut().enumerate() {
                    *u |= fits.admits(p);
                }
            }
        }
    }

    /// Adds another batch's usage.
    pub fn merge(&mut self, other: Usage) {
        for (u, o) in self.used.iter_mut().zip(other.used) {
            *u |= o;
        }
        self.any |= other.any;
        self.seen.extend(other.seen);
    }

    /// Can more workloads change the report? Not once some workload other than a DaemonSet
    /// was seen and every tainted pool is used.
    pub fn settled(&self, inventory: &crate::analysis::crossref::Inventory) -> bool {
        self.any
            && inventory.pools.iter().enumerate().all(|(p, pool)| {
                pool.blocking_taints().next().is_none() || self.used.get(p).copied().unwrap_or(true)
            })
    }

    pub fn report(&self, inventory: &crate::analysis::crossref::Inventory, out: &mut Vec<Finding>) {
        // Only meaningful when the run includes workloads other than node agents.
        if !self.any {
            return;
        }
        for (p, pool) in inventory.pools.iter().enumerate() {
            if pool.blocking_taints().next().is_none() || self.used.get(p).copied().unwrap_or(true)
            {
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
}
