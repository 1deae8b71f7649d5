//! `tolerates-all-taints`: an empty key with `operator: Exists` tolerates every taint
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`; k8s.io/api/core/v1/toleration.go
//! `ToleratesTaint`). Deliberate in DaemonSets and static pods, so info there.

use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "tolerates-all-taints",
    summary: "A toleration with no key and `operator: Exists` tolerates every taint",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/tolerates-all-taints.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let agent = ctx.is_node_agent() || ctx.is_system_pod();
    for (spec, tol) in tolerations::each(ctx) {
        // An operator's node agent runs everywhere as a DaemonSet does.
        let agent = agent || spec.per_node();
        let severity = if agent { Severity::Info } else { META.severity };
        if !tol.key().is_empty()
            || tol.operator() != "Exists"
            || tol.key.is_some_and(|k| k.str().is_none())
        {
            continue;
        }
        let effect = tol.effect();
        let (message, meaning) = match effect {
            "" => (
                "toleration tolerates every taint of every effect".to_string(),
                "the pod ignores every NoSchedule and NoExecute taint — control-plane and dedicated nodes included — and is never evicted by a NoExecute taint, not even when its node is not ready or unreachable",
            ),
            "NoExecute" => (
                "toleration tolerates every NoExecute taint".to_string(),
                "the pod can be placed on nodes whose only taints are NoExecute and is never evicted by a NoExecute taint, not even when its node is not ready or unreachable",
            ),
            "NoSchedule" => (
                "toleration tolerates every NoSchedule taint".to_string(),
                "the pod can be scheduled onto control-plane, dedicated and cordoned nodes (NoExecute taints still apply)",
            ),
            "PreferNoSchedule" => (
                "toleration tolerates every PreferNoSchedule taint".to_string(),
                "the scheduler no longer steers the pod away from any node that prefers not to run it",
            ),
            _ => continue,
        };
        let span = tol.operator.map_or(tol.span(), |o| o.entry_span());
        let help = if agent {
            "usual for a node agent that must run everywhere; list the taints explicitly if it should not".to_string()
        } else {
            "tolerate the specific taints this workload needs (`key: …, operator: Exists`) instead of all of them".to_string()
        };
        out.push(
            META.finding_at(severity, message)
                .primary(span, "no key: matches every taint")
                .help(format!("{meaning}; {help}"))
                .field(tol.path.clone()),
        );
    }
}
