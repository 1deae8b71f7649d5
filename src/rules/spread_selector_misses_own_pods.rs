//! `spread-selector-misses-own-pods`: a topology spread constraint whose `labelSelector` does
//! not select the workload's own pods. The PodTopologySpread plugin counts, per domain, the
//! pods its selector matches, and counts the incoming pod only when it matches too
//! (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go in kubernetes/kubernetes:
//! `selfMatchNum`); a selector that misses the pod's own labels (a typo, a label of another
//! app, a selector copied from elsewhere) spreads nothing.

use crate::analysis::types::pod_affinity::{Selects, pod_labels, selects};
use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "spread-selector-misses-own-pods",
    summary: "A topology spread constraint whose label selector does not select the workload's own pods, so they are not spread",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/spread-selector-misses-own-pods.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Built-in kinds only: a custom resource's pod labels are its operator's business.
    if !ctx.is_builtin() {
        return;
    }
    for spec in &ctx.object.pod_specs {
        let list = spec.spread_constraints();
        if list.is_empty() {
            continue;
        }
        let labels = pod_labels(ctx.object, &spec.path);
        for (i, c) in list.iter().enumerate() {
            let Some((key, sel)) = c.entry("labelSelector").filter(|(_, s)| s.as_map().is_some())
            else {
                continue;
            };
            // `matchLabelKeys` narrows with the pod's own values: only the selector can miss.
            let Selects::No(miss) = selects(sel, &labels) else {
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
