//! `toleration-empty-key-requires-exists`: an empty key needs `operator: Exists`
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`).

use super::Rule;
use super::tolerations::*;

pub static META: RuleMeta = RuleMeta {
    name: "toleration-empty-key-requires-exists",
    summary: "A toleration with an empty key must use `operator: Exists`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/toleration-empty-key-requires-exists.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        if tol.key.is_some_and(|k| k.str().is_none()) {
            continue; // a non-string key is a type error
        }
        if !tol.key().is_empty() || tol.operator() == "Exists" {
            continue;
        }
        let op = tol.operator();
        let (span, label) = match tol.operator {
            Some(f) => (f.span(), format!("`{op}` needs a key")),
            None => (
                tol.span(),
                "no key and no operator (defaults to `Equal`)".to_string(),
            ),
        };
        let mut f = META.finding(if op.is_empty() {
                "toleration has no key and no `operator: Exists`".to_string()
            } else {
                format!("toleration has no key but `operator: {op}`")
            },
        )
        .primary(span, label)
        .help("an empty key only works with `operator: Exists`, which tolerates every taint; otherwise set the taint's `key`")
        .field(tol.field_path("operator"));
        if let Some(k) = tol.key {
            f = f.secondary(k.span(), "empty key");
        }
        let path = tol.field_path("operator");
        let bad = named_value(op, ctx.settings);
        push(ctx, out, f, || {
            invalid(
                &path,
                &bad,
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            )
        });
    }
}
