//! `invalid-toleration-operator`: operators other than Equal/Exists (Lt/Gt with the gate)
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`).

use super::Rule;
use super::tolerations::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-toleration-operator",
    summary: "A toleration operator other than `Equal` or `Exists` (or `Lt`/`Gt` with the gate on)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-operator.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(field) = tol.operator else { continue };
        let Some(op) = field.str() else { continue };
        let supported: &[&str] = match op {
            "Equal" | "Exists" | "" => continue,
            "Lt" | "Gt" if ctx.settings.comparison_operators => continue,
            "Lt" | "Gt" if ctx.settings.minor >= 35 => &["Equal", "Exists", "Lt", "Gt"],
            _ => &["Equal", "Exists"],
        };
        let help = if matches!(op, "Lt" | "Gt") {
            if ctx.settings.minor >= 35 {
                format!(
                    "`{op}` is alpha in Kubernetes 1.35+ behind the `TaintTolerationComparisonOperators` feature gate; if your cluster enables it, pass `--feature-gates TaintTolerationComparisonOperators=true`"
                )
            } else {
                format!(
                    "`{op}` tolerations need Kubernetes 1.35+ with the `TaintTolerationComparisonOperators` feature gate"
                )
            }
        } else if let Some(s) = nearest(op, &["Equal", "Exists"], 2) {
            format!("did you mean `{s}`? Operators are case-sensitive")
        } else {
            "use `Exists` (any value of the key) or `Equal` (one value)".to_string()
        };
        // `exists` → `Exists`: only a difference of case is certain.
        let canonical: &[&str] = if ctx.settings.comparison_operators {
            &["Equal", "Exists", "Lt", "Gt"]
        } else {
            &["Equal", "Exists"]
        };
        let fix = canonical_case(ctx, field, op, canonical);
        let f = META.finding(format!("unsupported toleration operator `{op}`"),
        )
        .primary(field.span(), "not a toleration operator")
        .help(help)
        .field(tol.field_path("operator"))
        .fix(fix);
        let path = tol.field_path("operator");
        let bad = named_value(op, ctx.settings);
        push(ctx, out, f, || not_supported(&path, &bad, supported));
    }
}
