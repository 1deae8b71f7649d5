//! `invalid-taint-spec`: a taint written as `key=value:Effect` (taintlint Inventory files and
//! the config's inline pools) that `kubectl taint` would reject, with kubectl's message
//! (kubectl `taint` (staging/src/k8s.io/kubectl/pkg/cmd/taint)).

use crate::analysis::sources::parse_taint_spec;
use crate::diagnostic::{Finding, Severity};
use crate::load::yaml::Node;

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "invalid-taint-spec",
    summary: "A `key=value:Effect` taint string that `kubectl taint` would reject",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-spec.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if ctx.object.kind != "Inventory" || ctx.object.group != "taintlint.dev" {
        return;
    }
    if let Some(pools) = ctx.object.node.get("pools") {
        out.extend(check_pools(pools));
    }
}

/// Findings (without a file) for every bad taint string of a `pools:` list.
pub fn check_pools(pools: &Node) -> Vec<Finding> {
    let mut out = Vec::new();
    for (p, pool) in pools.as_seq().unwrap_or_default().iter().enumerate() {
        for (i, t) in pool
            .get("taints")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let Some(spec) = t.text() else { continue };
            if let Err(msg) = parse_taint_spec(spec) {
                out.push(
                    META.finding(format!("`{spec}` is not a valid taint: {msg}"))
                        .primary(t.span, "invalid taint")
                        .help("write taints as `key=value:Effect` or `key:Effect`, with Effect one of NoSchedule, PreferNoSchedule, NoExecute")
                        .field(format!("pools[{p}].taints[{i}]"))
                        .api_error(msg),
                );
            }
        }
    }
    out
}
