//! `invalid-node-affinity`: what ValidateNodeSelector* rejects
//! (pkg/apis/core/validation/validation.go `ValidateNodeSelector`).

use super::Rule;
use super::node_selection::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-node-affinity",
    summary: "Node affinity the API server rejects (empty terms, bad operators, values, weights)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-node-affinity.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let mut r = Report { ctx, out };
    for spec in &ctx.object.pod_specs {
        let Some(na_part) = &spec.node_affinity else {
            continue;
        };
        let na = na_part.value;
        let na_path = na_part.path.clone();
        // A required block that is not a mapping is a decode error (`yaml-type-mismatch`).
        if let Some((rk, req)) = na.entry("requiredDuringSchedulingIgnoredDuringExecution")
            && req.as_map().is_some()
        {
            let e = join(&na_path, "requiredDuringSchedulingIgnoredDuringExecution");
            let terms = req.get("nodeSelectorTerms");
            let list = terms.and_then(Node::as_seq).unwrap_or_default();
            if list.is_empty() {
                let span = terms.map_or(rk.span, |t| t.span);
                let p = join(&e, "nodeSelectorTerms");
                r.add(
                    span,
                    "required node affinity has no `nodeSelectorTerms`".to_string(),
                    "at least one term required",
                    "add a term with `matchExpressions`, or remove `requiredDuringSchedulingIgnoredDuringExecution`",
                    &p,
                    required(&p, "must have at least one node selector term"),
                );
            }
            for (i, term) in list.iter().enumerate() {
                let tp = format!("{e}.nodeSelectorTerms[{i}]");
                check_term(&mut r, term, &tp, false);
            }
        }
        if let Some(pref) = na
            .get("preferredDuringSchedulingIgnoredDuringExecution")
            .and_then(Node::as_seq)
        {
            let base = join(&na_path, "preferredDuringSchedulingIgnoredDuringExecution");
            for (i, term) in pref.iter().enumerate() {
                let tp = format!("{base}[{i}]");
                let w = term.get("weight").filter(|w| !w.is_null());
                let weight = match w.map(crate::load::yaml11::resolve) {
                    None => 0,
                    // A weight that is not an integer is a decode error (`yaml-type-mismatch`).
                    Some(v) => match v.as_i64() {
                        Some(i) => i,
                        None => continue,
                    },
                };
                if !(1..=100).contains(&weight) {
                    let p = join(&tp, "weight");
                    r.add(
                        w.map_or(term.span, |w| w.span),
                        format!("preferred node affinity weight {weight} is outside 1-100"),
                        "must be 1-100",
                        "give each preferred term a `weight` from 1 to 100",
                        &p,
                        invalid(&p, &weight.to_string(), "must be in the range 1-100"),
                    );
                }
                if let Some(pref) = term.get("preference") {
                    check_term(&mut r, pref, &join(&tp, "preference"), true);
                }
            }
        }
    }
}
