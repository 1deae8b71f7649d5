//! `pool-tolerated-by-nothing`: a tainted node pool that no linted workload can use.

use crate::analysis::crossref::signature;
use crate::analysis::inventory::Workload;
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

/// Which tainted pools some workload (other than a DaemonSet) uses.
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
        .primary(pool.loc.span(), "unused pool")
        .help("the workloads meant for it are elsewhere, or their tolerations do not match these taints");
            // Not read back: the run fails (`Inventory::failure`).
            let Some(loc) = inventory.loc(&pool.loc) else {
                continue;
            };
            f = f.in_file(&loc.source);
            f.object = None;
            out.push(f);
        }
    }
}

/// The workloads that decide which pools are used: one per scheduling signature and
/// `nodeName`, DaemonSets left out. Workloads with one signature get one verdict, so these
/// give [`Usage`] the same answer as all of them; a streamed run gathers them file by file
/// instead of reading every workload back.
#[derive(Default)]
pub struct Users(std::collections::BTreeMap<UserKey, Workload>);

type UserKey = (crate::analysis::crossref::Signature, Option<String>);

impl Users {
    pub fn add(&mut self, workloads: &[Workload]) {
        for w in workloads.iter().filter(|w| !w.daemonset) {
            let key = (signature(w), w.node_name.as_ref().map(|(n, _)| n.clone()));
            self.0.entry(key).or_insert_with(|| w.clone());
        }
    }

    pub fn merge(&mut self, other: Users) {
        for (key, w) in other.0 {
            self.0.entry(key).or_insert(w);
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// One workload per signature and `nodeName`, in no particular order.
    pub fn into_workloads(self) -> Vec<Workload> {
        self.0.into_values().collect()
    }
}
