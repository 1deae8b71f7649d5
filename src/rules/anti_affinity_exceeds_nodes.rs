//! `anti-affinity-exceeds-nodes`: a workload that keeps its pods one per node (required
//! `podAntiAffinity` to itself on `kubernetes.io/hostname`) and asks for more replicas than
//! the node pools it can run on have nodes. The InterPodAffinity filter turns every node that
//! already runs one of its pods away ("node(s) didn't match pod anti-affinity rules",
//! pkg/scheduler/framework/plugins/interpodaffinity/filtering.go in kubernetes/kubernetes), so
//! the replicas past the node count stay Pending. Pools of unknown size (an autoscaled group
//! without a limit in the files) say nothing.

use crate::diagnostic::{Finding, Related, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "anti-affinity-exceeds-nodes",
    summary: "More replicas than nodes, with required anti-affinity to itself per node: the rest stay Pending",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/anti-affinity-exceeds-nodes.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    let pools = &ctx.inventory.pools;
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        let Some(anti) = w.self_anti_affinity() else {
            continue;
        };
        // Running nowhere is `unschedulable-workload`'s finding.
        if w.node_name.is_some() || !fits.any() {
            continue;
        }
        let admitting: Vec<usize> = (0..pools.len()).filter(|&p| fits.admits(p)).collect();
        let mut nodes = 0usize;
        let mut sized = true;
        for &p in &admitting {
            match pools[p].size() {
                Some(n) => nodes += n,
                None => sized = false,
            }
        }
        if !sized || nodes == 0 || anti.replicas as usize <= nodes {
            continue;
        }
        let pending = anti.replicas as usize - nodes;
        let names: Vec<String> = admitting.iter().take(3).map(|&p| pools[p].title()).collect();
        let more = admitting.len().saturating_sub(3);
        let mut f = META
            .finding(format!(
                "{} replicas with required anti-affinity to each other on `kubernetes.io/hostname`, but the node pools this pod can run on{} have {nodes} node{}: {pending} {} Pending (node(s) didn't match pod anti-affinity rules)",
                anti.replicas,
                if ctx.inventory.declared() { "" } else { " (found in the linted files)" },
                if nodes == 1 { "" } else { "s" },
                if pending == 1 { "pod stays" } else { "pods stay" },
            ))
            .primary(anti.span, "one pod per node")
            .help(format!(
                "lower `replicas` to {nodes}, add nodes to {}{}, or make the term `preferredDuringSchedulingIgnoredDuringExecution` (spread when possible), or use a `topologySpreadConstraints` entry with `maxSkew: 1`",
                names.join(", "),
                if more > 0 { format!(" (or {more} more)") } else { String::new() },
            ))
            .field(w.spec_path.to_string())
            .in_file(&w.source);
        if anti.replicas_span != anti.span {
            f = f.secondary(anti.replicas_span, format!("{} replicas", anti.replicas));
        }
        for &p in admitting.iter().take(3) {
            if let Some(loc) = ctx.inventory.loc(&pools[p].loc) {
                f.related.push(Related {
                    source: loc.source,
                    span: loc.span,
                    message: if pools[p].nodes.is_empty() {
                        let n = pools[p].size().unwrap_or(0);
                        let s = if n == 1 { "" } else { "s" };
                        format!("{}: {n} node{s} at most", pools[p].title())
                    } else {
                        pools[p].title()
                    },
                });
            }
        }
        f.object = Some(w.object.clone());
        out.push(f);
    }
}
