//! `invalid-toleration-value`: label-value rules for Equal, canonical integers for Lt/Gt
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`; apimachinery `IsValidLabelValue`;
//! `ValidateTolerations` with the TaintTolerationComparisonOperators gate (KEP-5471)).

use super::Rule;
use super::tolerations::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-toleration-value",
    summary: "A toleration value that is not a valid label value (or, for Lt/Gt, not an integer)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-value.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        if tol.value.is_some_and(|v| v.str().is_none()) {
            continue;
        }
        let value = tol.value();
        let span = tol.value.map_or(tol.span(), |v| v.span());
        match tol.operator() {
            "Equal" | "" => {
                let msgs = label_value_errors(value, ctx.settings);
                if msgs.is_empty() {
                    continue;
                }
                let joined = msgs.join(";");
                let mut f = META.finding(format!("toleration value `{value}` is not a valid label value: {}", msgs.join("; ")),
                )
                .primary(span, "invalid label value")
                .help("taint values are label values: at most 63 characters of `A-Z a-z 0-9 - _ .`, starting and ending alphanumeric (the server reports this on `.operator`)")
                .field(tol.field_path("value"));
                if let Some(op) = tol.operator {
                    f = f.secondary(op.span(), "the server reports the error here");
                }
                let path = tol.field_path("operator");
                push(ctx, out, f, || invalid(&path, &go_quote(value), &joined));
            }
            "Lt" | "Gt" if ctx.settings.comparison_operators => {
                for msg in decimal_integer_errors(value) {
                    let f = META.finding(format!(
                            "`operator: {}` needs an integer value, but `{value}` {msg}",
                            tol.operator()
                        ),
                    )
                    .primary(span, "not a canonical integer")
                    .help("write a decimal integer without sign `+`, leading zeros, spaces or decimals, e.g. `950`")
                    .field(tol.field_path("value"));
                    let path = tol.field_path("value");
                    push(ctx, out, f, || invalid(&path, &go_quote(value), &msg));
                }
            }
            _ => {}
        }
    }
}
