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
        for t in w.tolerations.iter().filter(|t| t.written()) {
            if t.effect.is_empty() || t.key.is_empty() {
                continue;
            }
            // The same toleration without its effect: what it would match by key and value.
            let mut loose = t.tol();
            loose.effect = "";
            let mut seen = Vec::new();
            for (pool, pt) in ctx.inventory.taints_with_key(&t.key) {
                if *pt.taint.effect == *t.effect || pt.startup {
                    continue;
                }
                let taint = pt.taint.taint_ref();
                if !tolerates(&loose, &taint, gate) {
                    continue;
                }
                // Another toleration of the pod may cover this taint.
                if first_tolerating(&w.tolerations, &pt.taint, gate).is_some() {
                    continue;
                }
                if seen.contains(&pt.taint) {
                    continue;
                }
                seen.push(pt.taint.clone());
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
