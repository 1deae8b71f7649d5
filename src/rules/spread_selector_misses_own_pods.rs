//! `spread-selector-misses-own-pods`: a topology spread constraint whose `labelSelector` does
//! not select the workload's own pods. The PodTopologySpread plugin counts, per domain, the
//! pods its selector matches, and counts the incoming pod only when it matches too
//! (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go in kubernetes/kubernetes:
//! `selfMatchNum`); a selector that misses the pod's own labels (a typo, a label of another
//! app, a selector copied from elsewhere) spreads nothing.

use crate::diagnostic::{Finding, Severity};
use crate::load::yaml::Node;

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "spread-selector-misses-own-pods",
    summary: "A topology spread constraint whose label selector does not select the workload's own pods, so they are not spread",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/spread-selector-misses-own-pods.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check).quiet_in_fixtures();

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Built-in kinds only: a custom resource's pod labels are its operator's business.
    if !ctx.is_builtin() {
        return;
    }
    for spec in &ctx.object.pod_specs {
        let Some(list) = spec
            .node
            .get("topologySpreadConstraints")
            .and_then(Node::as_seq)
        else {
            continue;
        };
        let labels = pod_labels(ctx, &spec.path);
        if labels.iter().any(|(k, v)| templated(k) || templated(v)) {
            continue;
        }
        for (i, c) in list.iter().enumerate() {
            let Some((key, sel)) = c.entry("labelSelector").filter(|(_, s)| s.as_map().is_some())
            else {
                continue;
            };
            // `matchLabelKeys` narrows with the pod's own values: only the selector can miss.
            let Some(miss) = first_miss(sel, &labels) else {
                continue;
            };
            let field = format!("{}[{i}].labelSelector", spec.field_path("topologySpreadConstraints"));
            let own = if labels.is_empty() {
                "has no labels".to_string()
            } else {
                let shown: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("is labelled `{}`", shown.join(", "))
            };
            out.push(
                META.finding(format!(
                    "this topology spread constraint counts pods with {miss}, but this workload's pod {own}: its own pods are not spread"
                ))
                .primary(key.span, "does not select the workload's pods")
                .help("make the selector match the pod template's labels (usually the same as the workload's `selector`), or add `matchLabelKeys: [pod-template-hash]` to spread each rollout's pods")
                .field(field),
            );
        }
    }
}

/// The labels the spec's pods get: the template's `metadata.labels` (the Pod's own for a Pod).
fn pod_labels<'a>(ctx: &Ctx<'a>, spec_path: &str) -> Vec<(&'a str, &'a str)> {
    let mut parts: Vec<&str> = spec_path.split('.').filter(|p| !p.is_empty()).collect();
    // `spec.template.spec` → `spec.template`; `spec` → the object.
    parts.pop();
    parts.extend(["metadata", "labels"]);
    let Some(labels) = ctx.object.node.path(&parts) else {
        return Vec::new();
    };
    labels
        .as_map()
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((k.text()?, if v.is_null() { "" } else { v.text()? })))
        .collect()
}

/// A placeholder the cluster never sees as written (`${VAR}`, `{{ .Values.x }}`, `@VAR@`).
fn templated(s: &str) -> bool {
    s.contains("${") || s.contains("{{") || (s.len() > 2 && s.starts_with('@') && s.ends_with('@'))
}

/// The first requirement of `sel` the labels fail (`labels.SelectorFromSet` plus each
/// expression, as `metav1.LabelSelectorAsSelector` builds them), in words; `None` when the
/// selector matches them, or holds a placeholder or an operator the server rejects.
fn first_miss(sel: &Node, labels: &[(&str, &str)]) -> Option<String> {
    let get = |k: &str| labels.iter().find(|(lk, _)| *lk == k).map(|(_, v)| *v);
    for (k, v) in sel.get("matchLabels").and_then(Node::as_map).unwrap_or_default() {
        let key = k.text()?;
        let want = if v.is_null() { "" } else { v.text()? };
        if templated(key) || templated(want) {
            return None;
        }
        if get(key) != Some(want) {
            return Some(format!("`{key}={want}`"));
        }
    }
    for ex in sel.get("matchExpressions").and_then(Node::as_seq).unwrap_or_default() {
        let key = ex.get("key").and_then(Node::text)?;
        let op = ex.get("operator").and_then(Node::text)?;
        let values: Vec<&str> = ex
            .get("values")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(Node::text)
            .collect();
        if templated(key) || values.iter().any(|v| templated(v)) {
            return None;
        }
        let have = get(key);
        let ok = match op {
            "In" => have.is_some_and(|h| values.contains(&h)),
            "NotIn" => have.is_none_or(|h| !values.contains(&h)),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            // Rejected by the server: `invalid-topology-spread` says so.
            _ => return None,
        };
        if !ok {
            return Some(format!("`{key} {op} [{}]`", values.join(", ")).replace(" []", ""));
        }
    }
    None
}
