//! `toleration-seconds-evicts-immediately`: a NoExecute toleration with `tolerationSeconds`
//! ≤ 0 evicts the pod as soon as the taint appears (pkg/controller/tainteviction).

use crate::diagnostic::{Finding, Severity};

use super::default_toleration_suppressed::{NOT_READY, UNREACHABLE};
use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "toleration-seconds-evicts-immediately",
    summary: "`tolerationSeconds` of zero or less evicts the pod immediately",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/toleration-seconds-evicts-immediately.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let daemon_set = ctx.object.kind == "DaemonSet" && ctx.is_builtin();
    for (spec, tol) in tolerations::each(ctx) {
        if tol.effect() != "NoExecute" {
            continue;
        }
        // The DaemonSet controller replaces a toleration identical to one of its defaults
        // (key, operator, value, effect) by that default, which tolerates forever (§4.2),
        // unless the list already holds the default itself (then it changes nothing).
        let is_default = |t: &crate::model::Toleration<'_>| {
            t.key() == tol.key()
                && t.operator() == "Exists"
                && t.value().is_empty()
                && t.effect() == "NoExecute"
        };
        if daemon_set
            && matches!(tol.key(), NOT_READY | UNREACHABLE)
            && is_default(tol)
            && !spec
                .tolerations
                .iter()
                .any(|t| is_default(t) && !t.has_seconds())
        {
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
            META.finding(format!("`tolerationSeconds: {secs}` evicts the pod as soon as {what} appears, as if it were not tolerated"),
            )
            .primary(field.span(), "0 or less means evict now")
            .help("give the grace period you mean in seconds (the default for not-ready/unreachable is 300), or remove `tolerationSeconds` to tolerate forever")
            .field(tol.field_path("tolerationSeconds")),
        );
    }
}
