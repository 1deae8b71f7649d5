//! `duplicate-taint`: taints unique by (key, effect); Karpenter across taints and startupTaints
//! (pkg/apis/core/validation/validation.go `validateNodeTaints`; the pool sources' own validation
//! (Karpenter, eksctl, kubeadm)).

use super::Rule;
use super::taints::*;

pub static META: RuleMeta = RuleMeta {
    name: "duplicate-taint",
    summary: "Two taints with the same key and effect (the value does not matter)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/duplicate-taint.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Karpenter checks (key, effect) across `taints` and `startupTaints` together.
    let karpenter: Vec<&Taint<'_>> = ctx
        .object
        .taints
        .iter()
        .filter(|l| matches!(l.origin, TaintOrigin::Karpenter { .. }))
        .flat_map(|l| l.taints.iter())
        .collect();
    // The first taint of each (key, effect), found by lookup: a list of 100,000 taints is
    // not compared pair by pair.
    let mut firsts = std::collections::HashMap::new();
    for &t in &karpenter {
        let first: &Taint<'_> = firsts.entry((t.key(), t.effect())).or_insert(t);
        if std::ptr::eq(first, t) {
            continue;
        }
        out.push(
            META.finding(format!(
                    "duplicate taint Key/Effect pair {}={}; Karpenter rejects the NodePool",
                    t.key(),
                    t.effect()
                ),
            )
            .primary(t.node.span, "duplicate")
            .secondary(first.node.span, "first taint with this key and effect")
            .help("Karpenter requires (key, effect) pairs to be unique across `taints` and `startupTaints`: remove one")
            .field(t.path.clone()),
        );
    }
    for list in &ctx.object.taints {
        if matches!(list.origin, TaintOrigin::Karpenter { .. }) {
            continue;
        }
        let mut firsts = std::collections::HashMap::new();
        for t in &list.taints {
            let first = *firsts.entry((t.key(), t.effect())).or_insert(t);
            if std::ptr::eq(first, t) {
                continue;
            }
            let f = META.finding(format!(
                    "duplicate taint `{}:{}`; taints must be unique by key and effect",
                    t.key(),
                    t.effect()
                ),
            )
            .primary(t.node.span, "duplicate")
            .secondary(first.node.span, "first taint with this key and effect")
            .help("remove one of them; to change the value, edit the first one (the value does not make taints distinct)")
            .field(t.path.clone());
            let rendered = render_taint(t, ctx);
            push(ctx, out, f, || {
                duplicate(
                    &t.api_path,
                    &rendered,
                    "taints must be unique by key and effect pair",
                )
            });
        }
    }
}

/// The internal `core.Taint` struct as the server prints it: JSON since 1.34, `%#v` before.
fn render_taint(t: &Taint<'_>, ctx: &Ctx<'_>) -> String {
    let time = t
        .node
        .get("timeAdded")
        .filter(|n| !n.is_null())
        .and_then(|n| n.text());
    if ctx.settings.minor >= 34 {
        format!(
            "{{\"Key\":{},\"Value\":{},\"Effect\":{},\"TimeAdded\":{}}}",
            json_quote(t.key()),
            json_quote(t.value()),
            json_quote(t.effect()),
            time.map_or_else(|| "null".to_string(), json_quote)
        )
    } else {
        format!(
            "core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{}}}",
            go_quote(t.key()),
            go_quote(t.value()),
            go_quote(t.effect()),
            if time.is_some() {
                "(*v1.Time)(0xc000000000)"
            } else {
                "<nil>"
            }
        )
    }
}
