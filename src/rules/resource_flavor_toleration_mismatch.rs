//! `resource-flavor-toleration-mismatch`: a toleration of a Kueue `ResourceFlavor` that
//! tolerates none of the flavor's own `nodeTaints`. Kueue adds the flavor's tolerations to the
//! pods it admits to the flavor, so that they run on its nodes, which carry `nodeTaints`; a
//! toleration that matches none of them lets the pods onto nothing, and the taint it was meant
//! for still keeps them off (Kueue's ResourceFlavor API: "when this ResourceFlavor has also set
//! the matching tolerations, the nodeTaints are not considered during admission").

use crate::analysis::types::TaintSpec;
use crate::analysis::semantics::matching::{TaintRef, tolerates};
use crate::diagnostic::{Finding, Severity};
use crate::load::yaml::Node;
use crate::util::edit_distance;

use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "resource-flavor-toleration-mismatch",
    summary: "A Kueue ResourceFlavor toleration that tolerates none of the flavor's own nodeTaints",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/resource-flavor-toleration-mismatch.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

/// The taints of the flavor's `nodeTaints` (entries with a key and an effect).
fn node_taints(object: &Node) -> Vec<TaintSpec> {
    object
        .get("spec")
        .and_then(|s| s.get("nodeTaints"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|t| {
            let text = |k: &str| t.get(k).and_then(Node::text);
            Some(TaintSpec::new(
                text("key")?,
                text("value").unwrap_or(""),
                text("effect")?,
            ))
        })
        .collect()
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if (ctx.object.kind, ctx.object.group) != ("ResourceFlavor", "kueue.x-k8s.io") {
        return;
    }
    let taints = node_taints(ctx.object.node);
    if taints.is_empty() {
        return;
    }
    let gate = ctx.settings.comparison_operators;
    for (_, tol) in tolerations::each(ctx) {
        // Operators and effects the API rejects are other rules' findings.
        if !crate::analysis::semantics::matching::is_well_formed(&tol.tol(), gate) {
            continue;
        }
        let matched = taints.iter().any(|t| {
            let taint = TaintRef {
                key: &t.key,
                value: &t.value,
                effect: &t.effect,
            };
            tolerates(&tol.tol(), &taint, gate)
        });
        if matched {
            continue;
        }
        // The taint it was most likely meant for: the same key first, then the nearest key.
        let nearest = taints
            .iter()
            .min_by_key(|t| {
                (
                    edit_distance(tol.key(), &t.key),
                    edit_distance(tol.value(), &t.value),
                    !tol.effect().is_empty() && tol.effect() != &*t.effect,
                )
            })
            .map(|t| format!("`{}`", t.display()))
            .unwrap_or_default();
        let all: Vec<String> = taints.iter().map(|t| format!("`{}`", t.display())).collect();
        out.push(
            META.finding(format!(
                "this toleration of ResourceFlavor `{}` tolerates none of its nodeTaints ({}): the pods Kueue admits to the flavor get it, and still do not tolerate its nodes",
                ctx.object.id.name.as_deref().unwrap_or("?"),
                all.join(", ")
            ))
            .primary(tol.span(), "matches no nodeTaint")
            .help(format!(
                "make it tolerate the taint it is meant for, {nearest} (key, value and effect must all match); or, if the flavor's nodes carry this taint too, list it in `nodeTaints`"
            ))
            .field(tol.path.clone()),
        );
    }
}
