//! `invalid-node-selector`: nodeSelector keys and values must be valid labels
//! (pkg/apis/core/validation/validation.go `ValidateNodeSelector`).

use super::Rule;
use super::node_selection::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-node-selector",
    summary: "`nodeSelector` keys or values that are not valid labels",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-node-selector.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for spec in &ctx.object.pod_specs {
        let Some(sel) = spec.node_selector else {
            continue;
        };
        let Some(entries) = sel.value.as_map() else {
            continue;
        };
        let path = spec.field_path("nodeSelector");
        for (k, v) in entries {
            let Some(key) = k.text() else { continue };
            for msg in label_key_errors(key, ctx.settings) {
                let f = META.finding(format!("nodeSelector key `{key}` is not a valid label key: {msg}"),
                )
                .primary(k.span, "invalid label key")
                .help(super::tolerations::key_help(key))
                .field(join(&path, key));
                push(ctx, out, f, || invalid(&path, &go_quote(key), &msg));
            }
            let value = if v.is_null() {
                ""
            } else {
                v.text().unwrap_or("")
            };
            if v.as_scalar().is_none() {
                continue;
            }
            for msg in label_value_errors(value, ctx.settings) {
                let f = META.finding(format!("nodeSelector value `{value}` for `{key}` is not a valid label value: {msg}"),
                )
                .primary(v.span, "invalid label value")
                .help("node labels can only hold label values: at most 63 characters of `A-Z a-z 0-9 - _ .`, starting and ending alphanumeric; no node can match this")
                .field(join(&path, key));
                push(ctx, out, f, || invalid(&path, &go_quote(value), &msg));
            }
        }
    }
}
