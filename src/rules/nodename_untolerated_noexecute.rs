//! `nodename-untolerated-noexecute`: a pod bound with `nodeName` to a known node whose NoExecute
//! taint it does not tolerate: the kubelet rejects it (the kubelet's admission,
//! pkg/kubelet/lifecycle/predicate.go).

use crate::analysis::judgements::schedule::{effective_tolerations, first_tolerating};
use crate::analysis::semantics::well_known::is_transient_taint;
use crate::diagnostic::{Finding, Related, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "nodename-untolerated-noexecute",
    summary: "`nodeName` binds the pod to a node whose NoExecute taint it does not tolerate",
    category: Category::Scheduling,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/nodename-untolerated-noexecute.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    check_effect(ctx, out, "NoExecute", &META);
}

/// Shared with `nodename-bypasses-taint`.
pub fn check_effect(
    ctx: &CrossCtx<'_>,
    out: &mut Vec<Finding>,
    effect: &str,
    meta: &'static RuleMeta,
) {
    let gate = ctx.settings.comparison_operators;
    for w in ctx.workloads {
        let Some((node, span)) = &w.node_name else {
            continue;
        };
        let Some(pool) = ctx.inventory.node_pool(node) else {
            continue;
        };
        let tols = effective_tolerations(w);
        for pt in &pool.taints {
            if *pt.taint.effect != *effect || is_transient_taint(&pt.taint.key) {
                continue;
            }
            if first_tolerating(&tols, &pt.taint, gate).is_some() {
                continue;
            }
            let message = if effect == "NoExecute" {
                format!(
                    "`nodeName: {node}` binds the pod to a node with the NoExecute taint `{}`, which it does not tolerate: the kubelet rejects it (Predicate TaintToleration failed)",
                    pt.taint.display()
                )
            } else {
                format!(
                    "`nodeName: {node}` skips the scheduler, so the node's {effect} taint `{}` is silently ignored",
                    pt.taint.display()
                )
            };
            let mut f = meta.finding(message)
                .primary(*span, "bypasses the scheduler")
                .help(format!(
                    "tolerate `{}` if the pod belongs there, or use a nodeSelector (`kubernetes.io/hostname: {node}`) so the scheduler checks taints",
                    pt.taint.display()
                ))
                .field(format!("{}.nodeName", w.spec_path))
                .in_file(&w.source);
            if let Some(loc) = pt.loc.as_ref().and_then(|p| ctx.inventory.loc(p)) {
                f.related.push(Related {
                    source: loc.source,
                    span: loc.span,
                    message: format!("taint `{}` of node {node}", pt.taint.display()),
                });
            }
            f.object = Some(w.object.clone());
            out.push(f);
        }
    }
}
