//! `default-toleration-suppressed`: the DefaultTolerationSeconds admission plugin skips its
//! 300 s not-ready/unreachable toleration when any toleration has that key (or no key) and
//! effect NoExecute (or none), whatever its operator and value. A toleration that does so but
//! does not itself match the real taint (which has no value) leaves the pod with none: it is
//! evicted at once when its node fails (plugin/pkg/admission/defaulttolerationseconds).

use crate::analysis::semantics::matching::{TaintRef, tolerates};
use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "default-toleration-suppressed",
    summary: "A not-ready/unreachable toleration that blocks the 300 s default but does not match the real taint",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/default-toleration-suppressed.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // The DaemonSet controller adds its own forever tolerations for both.
    if ctx.object.kind == "DaemonSet" && ctx.is_builtin() {
        return;
    }
    let gate = ctx.settings.comparison_operators;
    for (spec, tol) in tolerations::each(ctx) {
        let key = tol.key();
        if key != NOT_READY && key != UNREACHABLE {
            continue;
        }
        if !matches!(tol.effect(), "" | "NoExecute") {
            continue;
        }
        let real = TaintRef {
            key,
            value: "",
            effect: "NoExecute",
        };
        // Does any toleration of this spec tolerate the real taint?
        if spec
            .tolerations
            .iter()
            .any(|t| tolerates(&t.tol(), &real, gate))
        {
            continue;
        }
        let span = tol
            .value
            .map(|v| v.span())
            .or(tol.operator.map(|o| o.span()))
            .unwrap_or(tol.span());
        out.push(
            META.finding(format!(
                    "this `{key}` toleration stops Kubernetes from adding its default 300 s toleration, but does not match the real taint (which has no value): the pod is evicted immediately when its node fails"
                ),
            )
            .primary(span, "never matches the real taint")
            .help(format!(
                "use `key: {key}, operator: Exists, effect: NoExecute` with the `tolerationSeconds` you want"
            ))
            .field(tol.path.clone()),
        );
    }
}
