//! `shadowed-toleration`: a toleration that can never be the one used, because an earlier
//! one matches every taint it matches. For NoExecute the first match decides the eviction
//! time (SEMANTICS §3.4).

use crate::analysis::matching::{covers, is_well_formed};
use crate::diagnostic::{Finding, Fix, Severity};

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "shadowed-toleration",
    summary: "A toleration that an earlier one already covers (duplicates included)",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/shadowed-toleration.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

fn seconds_text(s: Option<i64>) -> String {
    s.map_or_else(|| "forever".to_string(), |s| format!("{s}s"))
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let gate = ctx.settings.comparison_operators;
    for spec in &ctx.object.pod_specs {
        for (j, later) in spec.tolerations.iter().enumerate() {
            let b = later.tol();
            if !is_well_formed(&b, gate) {
                continue;
            }
            let before = &spec.tolerations[..j];
            // Name an exact duplicate when there is one, else the first that covers it.
            let Some(earlier) = before
                .iter()
                .find(|e| e.tol() == b && e.seconds() == later.seconds())
                .or_else(|| {
                    before
                        .iter()
                        .find(|e| is_well_formed(&e.tol(), gate) && covers(&e.tol(), &b))
                })
            else {
                continue;
            };
            let a = earlier.tol();
            let exact = a == b && earlier.seconds() == later.seconds();
            let can_noexecute = matches!(b.effect, "" | "NoExecute");
            let differs = can_noexecute && earlier.seconds() != later.seconds();
            let message = if exact {
                "duplicate toleration: the same toleration appears earlier in the list".to_string()
            } else if differs {
                format!(
                    "toleration is shadowed: an earlier toleration matches every taint this one does, so NoExecute eviction uses its `tolerationSeconds` ({}), not this one's ({})",
                    seconds_text(earlier.seconds()),
                    seconds_text(later.seconds())
                )
            } else {
                "toleration is shadowed: an earlier toleration already matches every taint this one matches".to_string()
            };
            let help = if differs {
                "the first matching toleration decides when a NoExecute taint evicts the pod; put the one you mean first, or remove the other"
            } else {
                "remove this toleration; it never changes where the pod runs or when it is evicted"
            };
            // RuntimeClass rejects tolerations with the same (key, operator, value, effect)
            // (SEMANTICS §1.1): there it is an API error, not a warning.
            let runtime_class = ctx.is_builtin() && ctx.object.kind == "RuntimeClass";
            let same_list_key = a == b;
            let (severity, api) = if runtime_class && same_list_key {
                (
                    crate::diagnostic::Severity::Error,
                    Some(crate::analysis::validation::duplicate(
                        &later.path,
                        &toleration_struct(later, ctx.settings),
                        "",
                    )),
                )
            } else {
                (META.severity, None)
            };
            let mut finding = META.finding_at(severity, message);
            if let Some(api) = api {
                finding = finding.api_error(api);
            }
            out.push(
                finding
                    .primary(
                        later.node.span,
                        if exact { "duplicate" } else { "never used" },
                    )
                    .secondary(earlier.node.span, "this earlier toleration wins")
                    .help(help)
                    .field(later.path.clone())
                    .fix(
                        spec.tolerations_list
                            .and_then(|l| crate::fix::remove_item(ctx.source, l.value, later.index))
                            .map(|e| {
                                Fix::unsafe_(
                                    if exact {
                                        "remove the duplicate toleration"
                                    } else {
                                        "remove the shadowed toleration"
                                    },
                                    vec![e],
                                )
                            }),
                    ),
            );
        }
    }
}

/// The internal `core.Toleration` as the server prints a bad value: JSON since 1.34, `%#v`
/// before.
fn toleration_struct(
    t: &crate::model::Toleration<'_>,
    settings: &crate::settings::Settings,
) -> String {
    use crate::analysis::validation::{go_quote, json_quote};
    let seconds = t.seconds();
    if settings.minor >= 34 {
        format!(
            "{{\"Key\":{},\"Operator\":{},\"Value\":{},\"Effect\":{},\"TolerationSeconds\":{}}}",
            json_quote(t.key()),
            json_quote(t.operator()),
            json_quote(t.value()),
            json_quote(t.effect()),
            seconds.map_or_else(|| "null".to_string(), |s| s.to_string())
        )
    } else {
        format!(
            "core.Toleration{{Key:{}, Operator:{}, Value:{}, Effect:{}, TolerationSeconds:{}}}",
            go_quote(t.key()),
            go_quote(t.operator()),
            go_quote(t.value()),
            go_quote(t.effect()),
            if seconds.is_some() {
                "(*int64)(0xc000000000)"
            } else {
                "(*int64)(nil)"
            }
        )
    }
}
