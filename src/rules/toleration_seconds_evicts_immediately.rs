//! `toleration-seconds-evicts-immediately`: a NoExecute toleration with `tolerationSeconds`
//! ≤ 0 evicts the pod as soon as the taint appears (SEMANTICS §3.4).

use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "toleration-seconds-evicts-immediately",
    summary: "`tolerationSeconds` of zero or less evicts the pod immediately",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/toleration-seconds-evicts-immediately.md"),
};

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in tolerations::each(ctx) {
        if tol.effect() != "NoExecute" {
            continue;
        }
        let (Some(field), Some(secs)) = (tol.seconds, tol.seconds()) else {
            continue;
        };
        if secs > 0 {
            continue;
        }
        let what = if tol.key().is_empty() {
            "any NoExecute taint".to_string()
        } else {
            format!("a NoExecute `{}` taint", tol.key())
        };
        out.push(
            Finding::new(
                META.name,
                META.severity,
                format!("`tolerationSeconds: {secs}` evicts the pod as soon as {what} appears, as if it were not tolerated"),
            )
            .primary(field.span(), "0 or less means evict now")
            .help("give the grace period you mean in seconds (the default for not-ready/unreachable is 300), or remove `tolerationSeconds` to tolerate forever")
            .field(tol.field_path("tolerationSeconds")),
        );
    }
}
