//! `toleration-effect-mismatch`: key and value match a pool's taint but the effect does not,
//! so the taint still repels (NoSchedule) or evicts (NoExecute) the pod.

use crate::analysis::judgements::schedule::first_tolerating;
use crate::analysis::semantics::matching::tolerates;
use crate::diagnostic::{Edit, Finding, Fix, Related, Severity};

use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "toleration-effect-mismatch",
    summary: "A toleration matches a pool's taint by key and value but not by effect",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/toleration-effect-mismatch.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    let gate = ctx.settings.comparison_operators;
    for w in ctx.workloads {
        // Whether another toleration of the pod tolerates a taint, once per distinct taint
        // (not once per toleration and pool: thousands of each made it cubic).
        let mut covered: std::collections::HashMap<std::sync::Arc<_>, bool> =
            std::collections::HashMap::new();
        for t in w.tolerations.iter().filter(|t| t.written()) {
            if t.effect.is_empty() || t.key.is_empty() {
                continue;
            }
            // The same toleration without its effect: what it would match by key and value.
            let mut loose = t.tol();
            loose.effect = "";
            let mut seen = std::collections::HashSet::new();
            // `Equal` matches its value only: the taints of that key and value.
            let taints: Box<dyn Iterator<Item = (usize, usize)>> = match &*t.operator {
                "" | "Equal" => Box::new(
                    ctx.inventory
                        .taint_indices_with(&t.key, &t.value)
                        .iter()
                        .copied(),
                ),
                _ => Box::new(ctx.inventory.taint_indices(&t.key).iter().copied()),
            };
            for (p, ti) in taints {
                let pool = &*ctx.inventory.pools[p];
                let pt = &pool.taints[ti];
                if *pt.taint.effect == *t.effect || pt.startup {
                    continue;
                }
                let taint = pt.taint.taint_ref();
                if !tolerates(&loose, &taint, gate) {
                    continue;
                }
                // Another toleration of the pod may cover this taint.
                let other = *covered
                    .entry(std::sync::Arc::clone(&pt.taint))
                    .or_insert_with(|| first_tolerating(&w.tolerations, &pt.taint, gate).is_some());
                if other {
                    continue;
                }
                if !seen.insert(&pt.taint) {
                    continue;
                }
                let consequence = match &*pt.taint.effect {
                    "NoExecute" => "the taint still keeps the pod off these nodes and evicts it",
                    "NoSchedule" => "the taint still keeps the pod off these nodes",
                    _ => "the scheduler still prefers other nodes",
                };
                let mut f = META.finding(format!(
                        "toleration `{}` has effect `{}`, but the taint `{}` of {} is `{}`: {consequence}",
                        t.display(),
                        t.effect,
                        pt.taint.display(),
                        pool.title(),
                        pt.taint.effect
                    ),
                )
                .primary(t.span, "effect does not match the taint")
                .help(format!(
                    "set `effect: {}`, or remove `effect` to tolerate every effect of this key",
                    pt.taint.effect
                ))
                .field(t.path.to_string())
                // Unsafe: the taint's effect may be the one that is wrong.
                .fix(t.scalars.effect.map(|span| {
                    Fix::unsafe_(
                        format!("set `effect: {}`", pt.taint.effect),
                        vec![Edit::new(&w.source, span, pt.taint.effect.to_string())],
                    )
                }))
                .in_file(&w.source);
                if let Some(loc) = pt.loc.as_ref().and_then(|p| ctx.inventory.loc(p)) {
                    f.related.push(Related {
                        source: loc.source,
                        span: loc.span,
                        message: format!("taint `{}`", pt.taint.display()),
                    });
                }
                f.object = Some(w.object.clone());
                out.push(f);
            }
        }
    }
}
