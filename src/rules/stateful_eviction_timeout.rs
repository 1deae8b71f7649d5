//! `stateful-eviction-timeout` (opt-in): a StatefulSet that leaves not-ready/unreachable eviction
//! at the 300 s DefaultTolerationSeconds default (plugin/pkg/admission/defaulttolerationseconds).

use crate::diagnostic::{Finding, Severity};

use super::default_toleration_suppressed::{NOT_READY, UNREACHABLE};
use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "stateful-eviction-timeout",
    summary: "A StatefulSet relies on the default 300 s not-ready/unreachable eviction",
    category: Category::Suspicious,
    severity: Severity::Info,
    enabled: false,
    docs: include_str!("../../rules/stateful-eviction-timeout.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if ctx.object.kind != "StatefulSet" || !ctx.is_builtin() {
        return;
    }
    for spec in &ctx.object.pod_specs {
        // The admission plugin's own test: key (or empty key) and NoExecute (or empty) effect.
        let blocks = |key: &str| {
            spec.tolerations.iter().any(|t| {
                (t.key() == key || t.key().is_empty()) && matches!(t.effect(), "" | "NoExecute")
            })
        };
        let missing: Vec<&str> = [NOT_READY, UNREACHABLE]
            .into_iter()
            .filter(|k| !blocks(k))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let span = spec
            .tolerations_list
            .map(|f| f.key.span)
            .or_else(|| ctx.object.node.entry("kind").map(|(_, v)| v.span))
            .unwrap_or(ctx.object.node.span);
        let list = missing
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(" and ");
        out.push(
            META.finding(format!("StatefulSet pods get the default 300 s toleration for {list}: they are evicted five minutes after their node fails"),
            )
            .primary(span, "no explicit not-ready/unreachable toleration")
            .help("decide how long a replica may wait for its node: add `{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: N}` and the same for `node.kubernetes.io/unreachable`")
            .field(spec.field_path("tolerations")),
        );
    }
}
