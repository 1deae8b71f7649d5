//! `tolerates-all-effects`: a keyed toleration with no effect also tolerates that key's NoExecute
//! taints, so the pod is never evicted by them (k8s.io/api/core/v1/toleration.go `ToleratesTaint`;
//! pkg/controller/tainteviction).

use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "tolerates-all-effects",
    summary: "A keyed toleration without `effect` also tolerates NoExecute: the pod is never evicted",
    category: Category::Suspicious,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/tolerates-all-effects.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in tolerations::each(ctx) {
        let key = tol.key();
        if key.is_empty() || !tol.effect().is_empty() {
            continue;
        }
        if !matches!(tol.operator(), "" | "Equal" | "Exists") || tol.has_seconds() {
            continue;
        }
        let Some(k) = tol.key else { continue };
        out.push(
            META.finding(format!("toleration of `{key}` has no effect, so it tolerates NoSchedule, PreferNoSchedule and NoExecute taints of that key alike"),
            )
            .primary(k.entry_span().cover(tol.operator.map_or(k.span(), |o| o.span())), "no `effect`: all effects")
            .help(format!("a NoExecute `{key}` taint will never evict this pod; add `effect: NoSchedule` if only scheduling should be allowed"))
            .field(tol.path.clone()),
        );
    }
}
