//! `toleration-matches-no-taint`: a keyed toleration that matches no taint of any pool and no
//! well-known system taint: dead configuration, or a typo of a real taint.

use crate::analysis::crossref::is_well_known_key;
use crate::analysis::matching::{TaintRef, tolerates};
use crate::diagnostic::{Finding, Related, Severity};
use crate::util::edit_distance;

use super::{Category, CrossCtx, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "toleration-matches-no-taint",
    summary: "A toleration that matches no taint of any known node pool (dead config or a typo)",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/toleration-matches-no-taint.md"),
};

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    if ctx.inventory.is_empty() {
        return;
    }
    let gate = ctx.settings.comparison_operators;
    for w in ctx.workloads {
        for t in &w.tolerations {
            if t.key.is_empty() || is_well_known_key(&t.key) {
                continue;
            }
            if !matches!(t.operator.as_str(), "" | "Equal" | "Exists" | "Lt" | "Gt") {
                continue;
            }
            // Matching by key and value is enough here: a wrong effect is
            // `toleration-effect-mismatch`'s finding.
            let mut loose = t.tol();
            loose.effect = "";
            let matched = ctx.inventory.all_taints().any(|(_, pt)| {
                tolerates(
                    &loose,
                    &TaintRef {
                        key: &pt.taint.key,
                        value: &pt.taint.value,
                        effect: &pt.taint.effect,
                    },
                    gate,
                )
            });
            if matched {
                continue;
            }
            // Did-you-mean: the nearest taint by key (then value), if close.
            let nearest = ctx
                .inventory
                .all_taints()
                .map(|(p, pt)| {
                    let d = edit_distance(
                        &t.key.to_ascii_lowercase(),
                        &pt.taint.key.to_ascii_lowercase(),
                    );
                    (d, p, pt)
                })
                .filter(|(d, _, pt)| *d <= 3.max(pt.taint.key.len() / 5) || pt.taint.key == t.key)
                .min_by(|a, b| a.0.cmp(&b.0).then(a.2.taint.cmp(&b.2.taint)));
            let mut f = Finding::new(
                META.name,
                META.severity,
                format!(
                    "toleration `{}` matches no taint of any known node pool",
                    t.display()
                ),
            )
            .primary(t.span, "matches nothing")
            .field(t.path.clone())
            .in_file(&w.source);
            match nearest {
                Some((_, pool, pt)) => {
                    f = f.help(format!(
                        "did you mean the taint `{}` of {}? (key, value and effect must all match)",
                        pt.taint.display(),
                        pool.title()
                    ));
                    if let Some(loc) = &pt.loc {
                        f.related.push(Related {
                            source: loc.source.clone(),
                            span: loc.span,
                            message: format!("taint `{}`", pt.taint.display()),
                        });
                    }
                }
                None => {
                    f = f.help("no pool has this taint: remove the toleration, or pass the inventory that declares it (`--inventory`)");
                }
            }
            f.object = Some(w.object.clone());
            out.push(f);
        }
    }
}
