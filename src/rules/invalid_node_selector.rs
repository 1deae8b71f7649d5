//! `invalid-node-selector`: nodeSelector keys and values must be valid labels
//! (pkg/apis/core/validation/validation.go `ValidateNodeSelector`). An operator's node
//! selector written as a label selector is held to `ValidateLabelSelector`
//! (k8s.io/apimachinery/pkg/apis/meta/v1/validation), and one the operator turns into a
//! pod's `nodeSelector` with `metav1.LabelSelectorAsMap`
//! (k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go) may only use `matchLabels` and
//! single-valued `In` expressions: any other makes the operator refuse the resource.

use super::Rule;
use super::node_selection::*;
use crate::model::SelectorShape;

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
        for sel in &spec.node_selectors {
            match sel.shape {
                SelectorShape::Map => check_map(ctx, out, &sel.part),
                shape => check_label_selector_shaped(ctx, out, &sel.part, shape),
            }
        }
    }
}

/// A label selector an operator reads as a node selector.
fn check_label_selector_shaped(
    ctx: &Ctx<'_>,
    out: &mut Vec<Finding>,
    part: &crate::model::Part<'_>,
    shape: SelectorShape,
) {
    let mut r = super::label_selectors::Reporter {
        ctx,
        out,
        meta: &META,
    };
    super::label_selectors::check_label_selector(&mut r, part.value, &part.path, "node selector");
    if shape != SelectorShape::LabelSelectorAsMap {
        return;
    }
    let exprs = part
        .value
        .get("matchExpressions")
        .and_then(Node::as_seq)
        .unwrap_or_default();
    for (i, ex) in exprs.iter().enumerate() {
        let op = ex.get("operator").and_then(Node::text).unwrap_or("");
        let values = ex.get("values").and_then(Node::as_seq).map_or(0, <[Node]>::len);
        if op == "In" && values == 1 {
            continue;
        }
        let why = if op == "In" {
            format!("`operator: In` with {values} values")
        } else {
            format!("`operator: {op}`")
        };
        let path = format!("{}.matchExpressions[{i}]", part.path);
        out.push(
            META.finding(format!(
                "the operator turns this label selector into a pod's nodeSelector (metav1.LabelSelectorAsMap), which cannot hold {why}: it refuses this resource"
            ))
            .primary(ex.get("operator").map_or(ex.span, |o| o.span), "not a nodeSelector entry")
            .help("use `matchLabels` (or `operator: In` with one value); a pod's nodeSelector can only require exact label values")
            .field(path),
        );
    }
}

/// A pod's `nodeSelector` map.
fn check_map(ctx: &Ctx<'_>, out: &mut Vec<Finding>, part: &crate::model::Part<'_>) {
    {
        let Some(entries) = part.value.as_map() else {
            return;
        };
        let path = &part.path;
        for (k, v) in entries {
            let Some(key) = k.text() else { continue };
            if crate::model::scheduling::is_patch_directive(key) {
                // `$patch: replace` of a kustomize patch: merged away, not a label.
                continue;
            }
            for msg in label_key_errors(key, ctx.settings) {
                let f = META.finding(format!("nodeSelector key `{key}` is not a valid label key: {msg}"),
                )
                .primary(k.span, "invalid label key")
                .help(super::tolerations::key_help(key))
                .field(join(path, key));
                push(ctx, out, f, || invalid(path, &go_quote(key), &msg));
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
                .field(join(path, key));
                push(ctx, out, f, || invalid(path, &go_quote(value), &msg));
            }
        }
    }
}
