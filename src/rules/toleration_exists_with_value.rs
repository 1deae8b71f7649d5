//! `toleration-exists-with-value`: `operator: Exists` with a non-empty `value`, which the API
//! server rejects (pkg/apis/core/validation/validation.go `ValidateTolerations`). The error is
//! reported on `.operator`.

use crate::analysis::semantics::validation::{go_quote, invalid};
use crate::diagnostic::{Finding, Fix, Severity};

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "toleration-exists-with-value",
    summary: "A toleration with `operator: Exists` must not set a `value`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/toleration-exists-with-value.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for spec in &ctx.object.pod_specs {
        for tol in &spec.tolerations {
            if tol.operator() != "Exists" {
                continue;
            }
            let (Some(value), Some(op)) = (tol.value, tol.operator) else {
                continue;
            };
            let Some(text) = value.str() else { continue };
            if text.is_empty() {
                continue;
            }
            let path = tol.field_path("operator");
            let bad = if ctx.settings.minor >= 32 {
                go_quote(text)
            } else {
                legacy_struct(tol, ctx)
            };
            let f = META.finding(format!(
                    "toleration has `operator: Exists` and `value: {text}`; {}",
                    ctx.rejected_by()
                ),
            )
            .primary(value.span(), "a value is not allowed here")
            .secondary(op.span(), "`Exists` matches every value of the key")
            .help(if tol.key().is_empty() {
                "remove `value`: `operator: Exists` with an empty key tolerates every taint".to_string()
            } else {
                format!(
                    "remove `value` to tolerate every value of `{}`, or use `operator: Equal` to tolerate only `{text}`",
                    tol.key()
                )
            })
            .field(tol.field_path("value"))
            .fix(
                crate::fix::remove_entry(ctx.source, tol.node, value.key)
                    .map(|edits| Fix::safe("remove `value`", edits)),
            );
            out.push(ctx.with_api(f, || {
                invalid(
                    &path,
                    &bad,
                    "value must be empty when `operator` is 'Exists'",
                )
            }));
        }
    }
}

/// Up to 1.31 the bad value was the whole internal toleration struct, printed with `%#v`.
fn legacy_struct(tol: &crate::model::Toleration<'_>, _ctx: &Ctx<'_>) -> String {
    let seconds = if tol.has_seconds() {
        "(*int64)(0xc000000000)"
    } else {
        "(*int64)(nil)"
    };
    format!(
        "core.Toleration{{Key:{}, Operator:{}, Value:{}, Effect:{}, TolerationSeconds:{seconds}}}",
        go_quote(tol.key()),
        go_quote(tol.operator()),
        go_quote(tol.value()),
        go_quote(tol.effect()),
    )
}
