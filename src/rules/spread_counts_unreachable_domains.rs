//! `spread-counts-unreachable-domains`: a hard topology spread constraint whose domains include
//! ones the pod can never run in. The PodTopologySpread filter counts, per domain of the
//! `topologyKey`, the matching pods on the nodes its inclusion policies keep
//! (`nodeAffinityPolicy`, default Honor; `nodeTaintsPolicy`, default Ignore: a node whose taints
//! the pod does not tolerate still counts), and admits a node only while that domain's count,
//! plus one, minus the smallest count stays within `maxSkew`
//! (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go in kubernetes/kubernetes).
//! A counted domain the pod cannot reach stays at zero pods, so every reachable domain takes
//! at most `maxSkew` pods and the rest of the replicas stay Pending ("node(s) didn't match pod
//! topology spread constraints"). Judged only against a closed world (declared pools, or
//! Node objects): other pools could make those domains reachable.

use std::collections::BTreeSet;

use crate::analysis::judgements::spread::{Block, domains};
use crate::diagnostic::{Finding, Related, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "spread-counts-unreachable-domains",
    summary: "A hard topology spread counts domains the pod cannot reach: replicas past maxSkew per reachable domain stay Pending",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/spread-counts-unreachable-domains.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    if !ctx.inventory.closed() {
        return;
    }
    let pools = &ctx.inventory.pools;
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        let Some(replicas) = w.replicas() else {
            continue;
        };
        if w.spreads().is_empty() || w.node_name.is_some() || !fits.any() {
            continue;
        }
        for spread in w.spreads() {
            let Some(d) = domains(ctx.inventory, w, fits, spread) else {
                continue;
            };
            if let Some(f) = too_few_domains(w, spread, &d, replicas) {
                out.push(f);
                continue;
            }
            let Some(capacity) = d.capacity(spread) else {
                continue;
            };
            if replicas as usize <= capacity {
                continue;
            }
            let (reachable, blocked) = (&d.reachable, &d.blocked);
            let domains = d.unreachable();
            let shown: Vec<String> = domains.iter().take(3).map(|v| format!("`{v}`")).collect();
            let more = domains.len().saturating_sub(3);
            let by_taints = blocked.iter().any(|(_, _, b)| *b == Block::Taints);
            let by_selector = blocked.iter().any(|(_, _, b)| *b == Block::Selector);
            let policy = match (by_taints, by_selector) {
                (true, false) => "tainted nodes count: `nodeTaintsPolicy` is Ignore",
                (false, true) => "`nodeAffinityPolicy: Ignore` counts nodes its selector rejects",
                _ => "`nodeTaintsPolicy: Ignore` and `nodeAffinityPolicy: Ignore` count them",
            };
            let pending = replicas as usize - capacity;
            let mut f = META
                .finding(format!(
                    "this spread over `{}` counts {} {}{} where the pod cannot run ({policy}): with `maxSkew: {}`, {} it can reach takes at most {} pod{}, so {pending} of {replicas} replicas {} Pending (node(s) didn't match pod topology spread constraints)",
                    spread.topology_key,
                    if domains.len() == 1 { "domain" } else { "domains" },
                    shown.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() },
                    spread.max_skew,
                    if reachable.len() == 1 { "the one domain".to_string() } else { format!("each of the {} domains", reachable.len()) },
                    spread.max_skew,
                    if spread.max_skew == 1 { "" } else { "s" },
                    if pending == 1 { "stays" } else { "stay" },
                ))
                .primary(spread.span, "counts unreachable domains")
                .help(match (by_taints, by_selector) {
                    (true, false) => "add `nodeTaintsPolicy: Honor` to the constraint, so nodes whose taints the pod does not tolerate are not domains".to_string(),
                    (false, true) => "remove `nodeAffinityPolicy: Ignore` (Honor is the default), so nodes the pod's selector rejects are not domains".to_string(),
                    _ => "add `nodeTaintsPolicy: Honor` and remove `nodeAffinityPolicy: Ignore`, so only nodes the pod can use are domains".to_string(),
                })
                .field(w.spec_path.to_string())
                .in_file(&w.source);
            let mut seen = BTreeSet::new();
            for (v, p, _) in blocked {
                if !seen.insert(*p) || seen.len() > 3 {
                    continue;
                }
                if let Some(loc) = ctx.inventory.loc(&pools[*p].loc) {
                    f.related.push(Related {
                        source: loc.source,
                        span: loc.span,
                        message: format!("{}: `{}={v}`, counted", pools[*p].title(), spread.topology_key),
                    });
                }
            }
            f.object = Some(w.object.clone());
            out.push(f);
        }
    }
}

/// `minDomains` above the number of domains the constraint counts: the PodTopologySpread
/// filter then takes the global minimum as 0 (`minMatchNum` in
/// pkg/scheduler/framework/plugins/podtopologyspread/filtering.go in kubernetes/kubernetes),
/// so each domain the pod can reach takes at most `maxSkew` pods and the rest stay Pending.
fn too_few_domains(
    w: &crate::analysis::types::Workload,
    spread: &crate::analysis::types::pod_affinity::Spread,
    d: &crate::analysis::judgements::spread::Domains,
    replicas: u32,
) -> Option<Finding> {
    let min = spread.min_domains?;
    let counted = d.reachable.len() + d.unreachable().len();
    if counted >= min as usize || d.reachable.is_empty() {
        return None;
    }
    let capacity = spread.max_skew as usize * d.reachable.len();
    if replicas as usize <= capacity {
        return None;
    }
    let pending = replicas as usize - capacity;
    let mut f = META
        .finding(format!(
            "`minDomains: {min}` is more than the {counted} domain{} of `{}` the nodes offer, so the global minimum counts as 0: with `maxSkew: {}`, {} takes at most {} pod{}, and {pending} of {replicas} replicas {} Pending (node(s) didn't match pod topology spread constraints)",
            if counted == 1 { "" } else { "s" },
            spread.topology_key,
            spread.max_skew,
            if d.reachable.len() == 1 { "the one domain it can reach".to_string() } else { format!("each of the {} domains it can reach", d.reachable.len()) },
            spread.max_skew,
            if spread.max_skew == 1 { "" } else { "s" },
            if pending == 1 { "stays" } else { "stay" },
        ))
        .primary(spread.span, "fewer domains than minDomains")
        .help(format!(
            "lower `minDomains` to the number of `{}` domains (or add nodes in more domains), or raise `maxSkew`",
            spread.topology_key
        ))
        .field(w.spec_path.to_string())
        .in_file(&w.source);
    f.object = Some(w.object.clone());
    Some(f)
}
