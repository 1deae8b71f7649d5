//! `invalid-toleration-effect`: effects other than NoSchedule/PreferNoSchedule/NoExecute
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`).

use super::Rule;
use super::tolerations::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-toleration-effect",
    summary: "A toleration effect other than `NoSchedule`, `PreferNoSchedule` or `NoExecute`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-effect.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(field) = tol.effect else { continue };
        let Some(effect) = field.str() else { continue };
        if effect.is_empty() || EFFECTS.contains(&effect) {
            continue;
        }
        let f = META.finding(format!("unsupported toleration effect `{effect}`"),
        )
        .primary(field.span(), "not a taint effect")
        .help(effect_help(effect))
        .field(tol.field_path("effect"))
        .fix(canonical_case(ctx, field, effect, EFFECTS));
        let path = tol.field_path("effect");
        let bad = named_value(effect, ctx.settings);
        push(ctx, out, f, || not_supported(&path, &bad, EFFECTS));
    }
}
