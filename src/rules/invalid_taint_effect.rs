//! `invalid-taint-effect`: missing (Required value) or unsupported effects
//! (pkg/apis/core/validation/validation.go `validateNodeTaints`).

use super::Rule;
use super::taints::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-taint-effect",
    summary: "A taint effect that is missing or not `NoSchedule`, `PreferNoSchedule` or `NoExecute`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-effect.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for t in each(ctx) {
        if t.effect.is_some_and(|e| e.str().is_none()) {
            continue;
        }
        let effect = t.effect();
        let path = format!("{}.effect", t.api_path);
        if effect.is_empty() {
            let f = META.finding("taint has no effect",
            )
            .primary(
                t.effect.map_or(t.node.span, |e| e.span()),
                "effect required",
            )
            .help("add `effect: NoSchedule`, `PreferNoSchedule` or `NoExecute`")
            .field(format!("{}.effect", t.path));
            push(ctx, out, f, || required(&path, ""));
        } else if !EFFECTS.contains(&effect) {
            let span = t.effect.map_or(t.node.span, |e| e.span());
            let f = META.finding(format!("unsupported taint effect `{effect}`"),
            )
            .primary(span, "not a taint effect")
            .help(effect_help(effect))
            .field(format!("{}.effect", t.path));
            let bad = named_value(effect, ctx.settings);
            push(ctx, out, f, || not_supported(&path, &bad, EFFECTS));
        }
    }
}
