//! `toleration-matches-no-taint`: a keyed toleration that matches no taint of any pool and no
//! well-known system taint: dead configuration, or a typo of a real taint.

use crate::analysis::judgements::evidence;
use crate::analysis::semantics::well_known::is_well_known_key;
use crate::analysis::semantics::matching::tolerates;
use crate::diagnostic::{Edit, Finding, Fix, Related, Severity};
use crate::util::edit_distance;

use std::collections::HashMap;

use crate::analysis::types::Pool;
use crate::analysis::types::{PoolTaint, WorkloadToleration};

use super::{Category, CrossCtx, Rule, RuleMeta};

/// The taint a dead toleration most likely meant, with its pool.
type Nearest<'a> = Option<(&'a Pool, &'a PoolTaint)>;

pub static META: RuleMeta = RuleMeta {
    name: "toleration-matches-no-taint",
    summary: "A toleration that matches no taint of any known node pool (dead config or a typo)",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/toleration-matches-no-taint.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    if ctx.inventory.is_empty() {
        return;
    }
    let gate = ctx.settings.comparison_operators;
    // Keyed by effect too: the nearest taint prefers the toleration's effect.
    let mut memo: HashMap<(&str, &str, &str, &str), Option<Nearest<'_>>> = HashMap::new();
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        // In a cluster the files define, a pod that lands on its pools tolerates for nothing
        // a taint key none of them has (`evidence::lands_on_cluster`); asked once per pod.
        let mut lands: Option<bool> = None;
        // An operator's tolerations are not the author's to fix.
        for t in w.tolerations.iter().filter(|t| t.written()) {
            if t.key.is_empty() || is_well_known_key(&t.key) {
                continue;
            }
            if !matches!(&*t.operator, "" | "Equal" | "Exists" | "Lt" | "Gt") {
                continue;
            }
            // Tolerations repeat across replicas of one spec: answer once per toleration.
            // A pool may have a taint of this key that is not known (a Terraform value or
            // `dynamic` block): the toleration may match it.
            let answer = *memo
                .entry((&*t.key, &*t.operator, &*t.value, &*t.effect))
                .or_insert_with(|| {
                    let unknown = ctx.inventory.may_have_unknown_taint(&t.key);
                    if unknown { None } else { lookup(ctx, t, gate) }
                });
            // A declared inventory whose only unknown taints are those of groups the files
            // do not show (`Pool::stands_for_unknown_groups`) proves the key absent too.
            let declared_absent = ctx.inventory.closed()
                && ctx.inventory.may_have_unknown_taint(&t.key);
            let absent = answer.is_none()
                && !ctx.inventory.has_taint_key(&t.key)
                && !ctx.inventory.shown_may_have_unknown_taint(&t.key)
                && (declared_absent
                    || !ctx.inventory.closed() && *lands.get_or_insert_with(|| {
                    // The file decides the cluster; the signature (the memo's key) the rest.
                    ctx.inventory.cluster_of(&w.source.name).is_some()
                        && ctx.eval.memo.get_or(META.name, fits, "lands", || {
                            evidence::lands_on_cluster(ctx.inventory, w, fits)
                        })
                }));
            let cluster = ctx.inventory.cluster().filter(|_| absent);
            let Some(nearest) = answer.or(absent.then_some(None)) else {
                continue;
            };
            let mut f = META.finding(format!(
                    "toleration `{}` matches no taint of {}",
                    t.display(),
                    if ctx.inventory.declared() {
                        "any known node pool".to_string()
                    } else if let Some(def) = cluster {
                        format!("any node pool of {}", def.describe())
                    } else {
                        "the node pools found in the linted files".to_string()
                    }
                ),
            )
            .primary(t.span, "matches nothing")
            .field(t.path.to_string())
            .in_file(&w.source);
            match nearest {
                Some((pool, pt)) => {
                    f = f
                        .help(format!(
                            "did you mean the taint `{}` of {}? (key, value and effect must all match)",
                            pt.taint.display(),
                            pool.title()
                        ))
                        .fix(one_scalar_fix(w, t, &pt.taint));
                    if let Some(loc) = pt.loc.as_ref().and_then(|p| ctx.inventory.loc(p)) {
                        f.related.push(Related {
                            source: loc.source,
                            span: loc.span,
                            message: format!("taint `{}`", pt.taint.display()),
                        });
                    }
                }
                None if cluster.is_some() => {
                    f = f.help(format!(
                        "no pool of the cluster has a taint with key `{}` (its pools were found in {}), and this pod runs on them: remove the toleration, or taint the pool it is meant for",
                        crate::util::text::escape(&t.key),
                        ctx.inventory.found_in()
                    ));
                }
                None if ctx.inventory.declared() => {
                    f = f.help("no pool has this taint: remove the toleration, or pass the inventory that declares it (`--inventory`)");
                }
                None => {
                    f = f.help(format!(
                        "no pool found in the linted files has this taint (they were found in {}): remove the toleration, or declare the pools that have it (`--inventory`)",
                        ctx.inventory.found_in()
                    ));
                }
            }
            f.object = Some(w.object.clone());
            out.push(f);
        }
    }
}

/// When the toleration differs from the nearest taint in one scalar only — the key (a typo) or,
/// for `Equal`, the value — the edit that makes it match; unsafe: the taint may be the one that
/// is wrong.
fn one_scalar_fix(
    w: &crate::analysis::types::Workload,
    t: &WorkloadToleration,
    taint: &crate::analysis::types::TaintSpec,
) -> Option<Fix> {
    let exists = &*t.operator == "Exists";
    let (field, span, new) = if *t.key != *taint.key && (exists || *t.value == *taint.value) {
        ("key", t.scalars.key?, taint.key.to_string())
    } else if *t.key == *taint.key && !exists && *t.value != *taint.value {
        ("value", t.scalars.value?, format!("\"{}\"", taint.value))
    } else {
        return None;
    };
    Some(Fix::unsafe_(
        format!("set `{field}: {new}`"),
        vec![Edit::new(&w.source, span, new)],
    ))
}

/// `None` when the toleration matches a taint; otherwise the nearest taint, if any is close.
fn lookup<'a>(ctx: &CrossCtx<'a>, t: &WorkloadToleration, gate: bool) -> Option<Nearest<'a>> {
    // Matching by key and value is enough here: a wrong effect is
    // `toleration-effect-mismatch`'s finding.
    let mut loose = t.tol();
    loose.effect = "";
    // `Equal` matches the taints of its key and value only.
    let candidates = match &*t.operator {
        "" | "Equal" => ctx.inventory.taint_indices_with(&t.key, &t.value),
        _ => ctx.inventory.taint_indices(&t.key),
    };
    let matched = candidates.iter().any(|&(p, i)| {
        tolerates(
            &loose,
            &ctx.inventory.pools[p].taints[i].taint.taint_ref(),
            gate,
        )
    });
    if matched {
        return None;
    }
    // Found pools are not the whole cluster (`analysis::judgements::evidence`): a toleration matching none
    // of their taints is a mistake only as a near miss of one of them — their key with
    // another value, or a slip of their key.
    if !ctx.inventory.closed() {
        return slip_of_found(ctx, t).map(Some);
    }
    // Did-you-mean: the nearest taint key, if close (a taint with the same key but another
    // value is nearest of all); of keys as near, the first in order.
    let nearest_key = ctx
        .inventory
        .nearest_taint_keys(&t.key, |len| 3.max(len / 5))
        .and_then(|(_, keys)| keys.first().copied());
    // Among the key's taints, the one whose value is nearest (a case or one-letter typo), then
    // one with the toleration's effect.
    Some(nearest_key.and_then(|k| {
        let (_, places) = ctx.inventory.nearest_taint_values(k, &t.value)?;
        places
            .into_iter()
            .filter_map(|i| ctx.inventory.taint_at(k, i))
            .min_by_key(|(_, pt)| {
                (
                    !t.effect.is_empty() && *t.effect != *pt.taint.effect,
                    &pt.taint,
                )
            })
    }))
}

/// Against found pools: the taint this toleration nearly matches — one with its key and
/// another value, or one whose key its key is a slip of (see [`evidence::is_slip`]) — the
/// closest first; `None` when it is near none (a taint of pools no linted file describes).
fn slip_of_found<'a>(ctx: &CrossCtx<'a>, t: &WorkloadToleration) -> Option<(&'a Pool, &'a PoolTaint)> {
    let exists = &*t.operator == "Exists";
    let slip = |a: &str, b: &str| {
        evidence::is_slip(a, b).then(|| edit_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase()))
    };
    // The nearest first, then one with the toleration's effect.
    let mut best: Option<((usize, bool), &'a Pool, &'a PoolTaint)> = None;
    let mut consider = |d: usize, pool: &'a Pool, pt: &'a PoolTaint| {
        let rank = (d, !t.effect.is_empty() && *t.effect != *pt.taint.effect);
        if best.as_ref().is_none_or(|(br, _, _)| rank < *br) {
            best = Some((rank, pool, pt));
        }
    };
    if ctx.inventory.has_taint_key(&t.key) {
        if exists {
            return None;
        }
        // The key of a found taint with another value (or none, `operator: Equal` alone):
        // a near miss of what the pools declare, the most similar value first.
        let (d, places) = ctx.inventory.nearest_taint_values(&t.key, &t.value)?;
        for i in places {
            if let Some((pool, pt)) = ctx.inventory.taint_at(&t.key, i) {
                consider(d, pool, pt);
            }
        }
    } else {
        // A slip is at most two edits apart (in lowercase): only the keys that near are
        // compared, in key order.
        for (key, _) in ctx.inventory.taint_keys_within(&t.key, 2) {
            let Some(d) = slip(&t.key, key) else { continue };
            for (pool, pt) in ctx.inventory.taints_with_key(key) {
                // The rest must match: a slip is one mistake.
                if exists || *t.value == *pt.taint.value {
                    consider(d, pool, pt);
                }
            }
        }
    }
    best.map(|(_, pool, pt)| (pool, pt))
}
