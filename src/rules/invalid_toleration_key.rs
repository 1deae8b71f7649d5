//! `invalid-toleration-key`: a toleration key that is not a valid label key
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`; apimachinery `IsQualifiedName`).

use super::Rule;
use super::tolerations::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-toleration-key",
    summary: "A toleration key that is not a valid label key (qualified name)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-key.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(field) = tol.key else { continue };
        let Some(key) = field.str() else { continue };
        if key.is_empty() {
            continue;
        }
        for msg in label_key_errors(key, ctx.settings) {
            let f = META.finding(format!("toleration key `{key}` is not a valid label key: {msg}"),
            )
            .primary(field.span(), "invalid key")
            .help(key_help(key))
            .field(tol.field_path("key"));
            let path = tol.field_path("key");
            push(ctx, out, f, || invalid(&path, &go_quote(key), &msg));
        }
    }
}
