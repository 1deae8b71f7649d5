//! `well-known-taint-mismatch`: a toleration of a taint that Kubernetes itself sets, always with
//! the same value and effects (pkg/controller/nodelifecycle;
//! k8s.io/api/core/v1/well_known_taints.go), that asks for another value or effect: it can never
//! match. Typical after a rename (`master` → `control-plane` with `value: "true"`) or a copy from a
//! blog (`memory-pressure` with `NoExecute`).

use crate::analysis::semantics::well_known::{SetTaint, set_taint};
use crate::diagnostic::{Edit, Finding, Fix, Severity};

use super::tolerations::EFFECTS;
use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "well-known-taint-mismatch",
    summary: "A toleration of a taint Kubernetes sets itself, with a value or effect that taint never has",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/well-known-taint-mismatch.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

/// `not-ready`/`unreachable` with effect NoExecute (or none) are `default-toleration-suppressed`'s:
/// such a toleration also removes the 300 s default, which is the worse news.
fn left_to_default_toleration_rule(taint: &SetTaint, effect: &str) -> bool {
    matches!(
        taint.key,
        "node.kubernetes.io/not-ready" | "node.kubernetes.io/unreachable"
    ) && matches!(effect, "" | "NoExecute")
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in tolerations::each(ctx) {
        let Some(taint) = set_taint(tol.key()) else {
            continue;
        };
        let effect = tol.effect();
        if left_to_default_toleration_rule(taint, effect) {
            continue;
        }
        // `Exists` ignores the value; `Lt`/`Gt` compare numbers (another rule's business).
        let operator = tol.operator();
        let value_differs = matches!(operator, "" | "Equal")
            && tol.value.and_then(|v| v.str()).is_some()
            && tol.value() != taint.value;
        // An invalid effect is `invalid-toleration-effect`'s.
        let effect_differs = !effect.is_empty()
            && EFFECTS.contains(&effect)
            && taint.effects.is_some_and(|e| !e.contains(&effect));
        if !value_differs && !effect_differs {
            continue;
        }
        let has = |v: &str| {
            if v.is_empty() {
                "no value".to_string()
            } else {
                format!("the value `{v}`")
            }
        };
        let effects = taint.effects.map(|e| e.join(" or ")).unwrap_or_default();
        let (why, label_span, label) = match (value_differs, effect_differs) {
            (true, false) => (
                format!("has {}", has(taint.value)),
                tol.value.map(|v| v.value.span),
                "the taint never has this value",
            ),
            (false, true) => (
                format!("is only ever {effects}"),
                tol.effect.map(|e| e.value.span),
                "the taint never has this effect",
            ),
            _ => (
                format!("has {} and is only ever {effects}", has(taint.value)),
                tol.value.map(|v| v.value.span),
                "the taint never has this value",
            ),
        };
        // A value another installer sets: right on those clusters, wrong on the others.
        let variant = taint
            .variant
            .filter(|(v, _)| value_differs && !effect_differs && tol.value() == *v);
        let mut f = match variant {
            Some((v, who)) => META.finding_at(
                Severity::Info,
                format!(
                    "this toleration matches `{}` only as {who} set it (`{v}`): the taint {} sets {why}",
                    taint.key, taint.set_by
                ),
            ),
            None => META.finding(format!(
                "this toleration never matches `{}`: the taint {} sets {why}",
                taint.key, taint.set_by
            )),
        }
            .primary(
                label_span.unwrap_or(tol.span()),
                if variant.is_some() {
                    "kubeadm's taint never has this value"
                } else {
                    label
                },
            )
            .field(tol.path.clone());
        if value_differs
            && effect_differs
            && let Some(e) = tol.effect
        {
            f = f.secondary(e.value.span, "nor this effect");
        }
        // The edits that make it match, each with its words; `None` where one cannot be made.
        let mut steps: Vec<(String, Option<Vec<Edit>>)> = Vec::new();
        if value_differs && let Some(v) = tol.value {
            steps.push(if taint.value.is_empty() {
                (
                    "remove `value`".to_string(),
                    crate::fix::remove_entry(ctx.source, tol.node, v.key),
                )
            } else {
                (
                    format!("set `value: \"{}\"`", taint.value),
                    crate::fix::replace_scalar(ctx.source, v.key, v.value, taint.value)
                        .map(|e| vec![e]),
                )
            });
        }
        if effect_differs && let Some(e) = tol.effect {
            if let Some([only]) = taint.effects {
                steps.push((
                    format!("set `effect: {only}`"),
                    crate::fix::replace_scalar(ctx.source, e.key, e.value, only).map(|e| vec![e]),
                ));
            } else {
                steps.push((format!("use effect {effects}"), None));
            }
        }
        let help = format!(
            "to tolerate the taint {} sets, {}{}; if your nodes carry a taint of your own with this key, suppress this finding",
            taint.set_by,
            steps
                .iter()
                .map(|(words, _)| words.as_str())
                .collect::<Vec<_>>()
                .join(" and "),
            if value_differs && taint.value.is_empty() {
                " (or use `operator: Exists`)"
            } else {
                ""
            }
        );
        f = f.help(help);
        // A fix only when every step has its edits.
        let title: Vec<&str> = steps.iter().map(|(words, _)| words.as_str()).collect();
        let title = title.join(", ");
        let edits: Option<Vec<Vec<Edit>>> = steps.into_iter().map(|(_, e)| e).collect();
        if let Some(edits) = edits {
            f = f.fix(Some(Fix::unsafe_(title, edits.into_iter().flatten().collect())));
        }
        out.push(f);
    }
}
