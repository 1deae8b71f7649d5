//! `toleration-seconds-requires-noexecute`: `tolerationSeconds` needs `effect: NoExecute`
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`).

use super::Rule;
use super::tolerations::*;

pub static META: RuleMeta = RuleMeta {
    name: "toleration-seconds-requires-noexecute",
    summary: "`tolerationSeconds` is only allowed with `effect: NoExecute`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/toleration-seconds-requires-noexecute.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(secs) = tol.seconds else { continue };
        if secs.value.is_null() || tol.effect() == "NoExecute" {
            continue;
        }
        let effect = tol.effect();
        let mut f = META.finding(if effect.is_empty() {
                "`tolerationSeconds` is set but the toleration has no effect".to_string()
            } else {
                format!("`tolerationSeconds` is set but the effect is `{effect}`")
            },
        )
        .primary(secs.span(), "only allowed for NoExecute")
        .help(if effect.is_empty() {
            "set `effect: NoExecute` (an empty effect is not enough), or remove `tolerationSeconds`"
        } else {
            "set `effect: NoExecute`, or remove `tolerationSeconds`: only NoExecute taints evict"
        })
        // The finding is about `tolerationSeconds`: its field is the one it points at and the
        // fix removes (the server's message, in `api_error`, names `.effect`).
        .field(tol.field_path("tolerationSeconds"))
        .fix(
            crate::fix::remove_entry(ctx.source, tol.node, secs.key)
                .map(|edits| Fix::unsafe_("remove `tolerationSeconds`", edits)),
        );
        if let Some(e) = tol.effect {
            f = f.secondary(e.span(), "not NoExecute");
        }
        let path = tol.field_path("effect");
        let bad = named_value(effect, ctx.settings);
        push(ctx, out, f, || {
            invalid(
                &path,
                &bad,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            )
        });
    }
}
