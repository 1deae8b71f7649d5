//! `pool-tolerated-by-nothing`: a tainted node pool that no linted workload can use.

use std::sync::Arc;

use crate::analysis::judgements::admission::Admission;
use crate::analysis::judgements::schedule::{Evaluator, Signature, signature};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::Workload;
use crate::diagnostic::{Finding, Severity};
use crate::settings::Settings;

use super::{Aggregate, Category, CrossCtx, Rule, RuleMeta, RunCtx};

pub static META: RuleMeta = RuleMeta {
    name: "pool-tolerated-by-nothing",
    summary: "A tainted node pool that no linted workload can run on",
    category: Category::Scheduling,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/pool-tolerated-by-nothing.md"),
};

pub static RULE: Rule = Rule::new(&META).aggregate(|| Box::<Users>::default());

/// Which tainted pools some workload (other than a DaemonSet) uses.
pub struct Usage {
    used: Vec<bool>,
    /// Some workload other than a DaemonSet was seen.
    any: bool,
    /// Verdicts already counted (workloads with one signature share them).
    seen: std::collections::HashSet<usize>,
}

impl Usage {
    pub fn new(inventory: &Inventory) -> Self {
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
            if let Some((n, _)) = &w.node_name {
                self.add_bound(ctx.inventory, n);
            }
            if self.seen.insert(std::sync::Arc::as_ptr(fits) as usize) {
                // The pools of the classes that admit it.
                let classes = fits.classes();
                for c in fits.admitting_classes() {
                    for &p in classes.members.get(c).into_iter().flatten() {
                        if let Some(u) = self.used.get_mut(p as usize) {
                            *u = true;
                        }
                    }
                }
            }
        }
    }

    /// A pod bound with `nodeName` to one of a pool's nodes uses the pool too.
    pub fn add_bound(&mut self, inventory: &Inventory, node: &str) {
        for &p in inventory.node_pools(node) {
            if let Some(u) = self.used.get_mut(p) {
                *u = true;
            }
        }
    }

    pub fn report(&self, inventory: &Inventory, out: &mut Vec<Finding>) {
        // Only meaningful when the run includes workloads other than node agents.
        if !self.any {
            return;
        }
        for (p, pool) in inventory.pools.iter().enumerate() {
            if pool.blocking_taints().next().is_none() || self.used.get(p).copied().unwrap_or(true) {
                continue;
            }
            let taints: Vec<String> = pool
                .blocking_taints()
                .map(|(_, t)| format!("`{}`", t.taint.display()))
                .collect();
            let mut f = META.finding(format!(
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

/// What decides which pools are used, DaemonSets left out: one workload per scheduling
/// signature (workloads with one signature get one verdict) and the node names workloads
/// are bound to. These give [`Usage`] the same answer as all the workloads; a streamed run
/// gathers them file by file instead of reading every workload back. Both are bounded by
/// what is distinct (specs, nodes), not by the number of workloads.
#[derive(Default)]
pub struct Users {
    /// One workload per signature (and RuntimeClass and namespace, which admission reads),
    /// without its `nodeName`. Boxed: a run whose clusters are inferred from its folders
    /// keeps one of these per folder (`engine::run`), most with one workload, and a map's
    /// first node has room for eleven entries (11 workloads' size, 4.7 KB, per folder;
    /// boxed, 11 pointers).
    by_signature: std::collections::BTreeMap<UserKey, Box<Workload>>,
    /// The `nodeName`s of the workloads.
    bound: std::collections::BTreeSet<String>,
}

/// What decides a workload's verdicts: its signature, and what admission reads (its
/// RuntimeClass, its namespace).
type UserKey = (Signature, Option<Arc<str>>, Namespace);

/// A workload's namespace, compared as such (its object is shared: nothing is copied).
#[derive(Clone, Debug)]
struct Namespace(Arc<crate::diagnostic::ObjectId>);

impl PartialEq for Namespace {
    fn eq(&self, other: &Self) -> bool {
        self.0.namespace == other.0.namespace
    }
}

impl Eq for Namespace {}

impl PartialOrd for Namespace {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Namespace {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.namespace.cmp(&other.0.namespace)
    }
}

impl Users {
    pub fn add(&mut self, workloads: &[Workload]) {
        for w in workloads.iter().filter(|w| !w.daemonset) {
            let key = (
                signature(w),
                w.runtime_class.clone(),
                Namespace(Arc::clone(&w.object)),
            );
            self.by_signature.entry(key).or_insert_with(|| {
                let mut w = Box::new(w.clone());
                w.node_name = None;
                w
            });
            if let Some((n, _)) = &w.node_name
                && !self.bound.contains(n)
            {
                self.bound.insert(n.clone());
            }
        }
    }

    pub fn merge(&mut self, other: Users) {
        for (key, w) in other.by_signature {
            self.by_signature.entry(key).or_insert(w);
        }
        self.bound.extend(other.bound);
    }

    /// Distinct signatures.
    pub fn signatures(&self) -> usize {
        self.by_signature.len()
    }

    /// Distinct node names.
    pub fn bound(&self) -> usize {
        self.bound.len()
    }

    /// The pools these workloads use.
    pub fn usage(
        self,
        inventory: &Inventory,
        evaluator: &Evaluator<'_>,
        settings: &Settings,
        admission: &Admission,
    ) -> Usage {
        let mut workloads: Vec<Workload> = self.by_signature.into_values().map(|w| *w).collect();
        // The pods as admission leaves them; those it refuses use no pool.
        admission.apply(&mut workloads);
        workloads.retain(|w| w.admission.as_ref().is_none_or(|a| a.rejection.is_none()));
        let eval = evaluator.evaluate(&workloads);
        let mut usage = Usage::new(inventory);
        usage.add(&CrossCtx {
            inventory,
            workloads: &workloads,
            eval: &eval,
            settings,
            kueue: &crate::analysis::types::kueue::NO_KUEUE,
        });
        for node in &self.bound {
            usage.add_bound(inventory, node);
        }
        usage
    }
}

/// The rule looks at every workload of the run at once: the engine gives it each file's
/// workloads as they come and asks for its findings at the end.
impl Aggregate for Users {
    fn add(&mut self, workloads: &[Workload]) {
        Users::add(self, workloads);
    }

    fn merge(&mut self, other: Box<dyn Aggregate>) {
        if let Ok(other) = other.into_any().downcast::<Users>() {
            Users::merge(self, *other);
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }

    fn report(self: Box<Self>, ctx: &RunCtx<'_>, out: &mut Vec<Finding>) {
        // Nothing to find without a tainted pool (and no verdict worth working out).
        if !ctx
            .inventory
            .pools
            .iter()
            .any(|p| p.blocking_taints().next().is_some())
        {
            return;
        }
        // The verdicts depend on the signature only: one workload per signature answers
        // for all, and no workload is read back.
        let usage = self.usage(ctx.inventory, ctx.evaluator, ctx.settings, ctx.admission);
        usage.report(ctx.inventory, out);
    }
}
