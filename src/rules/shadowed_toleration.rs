//! `shadowed-toleration`: a toleration that can never be the one used, because an earlier
//! one matches every taint it matches. For NoExecute the first match decides the eviction
//! time (pkg/controller/tainteviction).

use std::collections::HashMap;

use crate::analysis::semantics::matching::{covers, is_well_formed};
use crate::diagnostic::{Finding, Fix, Severity};
use crate::model::{Tol, Toleration};

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "shadowed-toleration",
    summary: "A toleration that an earlier one already covers (duplicates included)",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/shadowed-toleration.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

fn seconds_text(s: Option<i64>) -> String {
    s.map_or_else(|| "forever".to_string(), |s| format!("{s}s"))
}

/// How an operator compares values, for [`Earlier`]: `Equal` and the empty operator alike.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Compare {
    Equal,
    Lt,
    Gt,
}

fn compare(operator: &str) -> Option<Compare> {
    match operator {
        "" | "Equal" => Some(Compare::Equal),
        "Lt" => Some(Compare::Lt),
        "Gt" => Some(Compare::Gt),
        _ => None,
    }
}

/// The first well-formed tolerations of one (key, effect), as [`covers`] reads them: the
/// first `Exists`, and the first of each compared value.
#[derive(Default)]
struct Bucket<'a> {
    exists: Option<usize>,
    by_value: HashMap<(Compare, &'a str), usize>,
}

/// The tolerations seen so far, indexed so that the first one covering (or duplicating) a
/// later one is found without comparing every pair: a list of 100,000 tolerations costs
/// what 100,000 lookups cost. `covers` only lets a toleration with the same key or none
/// and the same effect or none cover another, so the candidates are in at most four buckets.
#[derive(Default)]
struct Earlier<'a> {
    buckets: HashMap<(&'a str, &'a str), Bucket<'a>>,
    /// The first toleration of each (key, operator, value, effect, seconds).
    exact: HashMap<(Tol<'a>, Option<i64>), usize>,
}

impl<'a> Earlier<'a> {
    fn add(&mut self, i: usize, t: Tol<'a>, seconds: Option<i64>, well_formed: bool) {
        self.exact.entry((t, seconds)).or_insert(i);
        if !well_formed {
            return;
        }
        let bucket = self.buckets.entry((t.key, t.effect)).or_default();
        if t.operator == "Exists" {
            bucket.exists.get_or_insert(i);
        } else if let Some(c) = compare(t.operator) {
            bucket.by_value.entry((c, t.value)).or_insert(i);
        }
    }

    /// The first earlier toleration that covers `b` (well-formed).
    fn first_covering(&self, b: &Tol<'a>) -> Option<usize> {
        let keys: &[&str] = if b.key.is_empty() { &[""] } else { &[b.key, ""] };
        let effects: &[&str] = if b.effect.is_empty() {
            &[""]
        } else {
            &[b.effect, ""]
        };
        let mut first: Option<usize> = None;
        let mut consider = |i: Option<usize>| {
            if let Some(i) = i {
                first = Some(first.map_or(i, |f| f.min(i)));
            }
        };
        for &key in keys {
            for &effect in effects {
                let Some(bucket) = self.buckets.get(&(key, effect)) else {
                    continue;
                };
                consider(bucket.exists);
                if let Some(c) = compare(b.operator) {
                    consider(bucket.by_value.get(&(c, b.value)).copied());
                }
            }
        }
        first
    }
}

/// For each toleration, the earlier one that makes it useless: an exact duplicate (with the
/// same `tolerationSeconds`) when there is one, else the first well-formed one that covers
/// it; `None` for a toleration that is not well-formed itself. A short list is compared pair
/// by pair; a long one through an index ([`Earlier`]), with the same answers.
fn shadowing(tolerations: &[Toleration<'_>], gate: bool) -> Vec<Option<usize>> {
    if tolerations.len() <= 16 {
        pairwise(tolerations, gate)
    } else {
        indexed(tolerations, gate)
    }
}

/// [`shadowing`] by comparing every pair.
fn pairwise(tolerations: &[Toleration<'_>], gate: bool) -> Vec<Option<usize>> {
    tolerations
        .iter()
        .enumerate()
        .map(|(j, later)| {
            let b = later.tol();
            if !is_well_formed(&b, gate) {
                return None;
            }
            let before = &tolerations[..j];
            before
                .iter()
                .position(|e| e.tol() == b && e.seconds() == later.seconds())
                .or_else(|| {
                    before
                        .iter()
                        .position(|e| is_well_formed(&e.tol(), gate) && covers(&e.tol(), &b))
                })
        })
        .collect()
}

/// [`shadowing`] through an index of the earlier tolerations.
fn indexed(tolerations: &[Toleration<'_>], gate: bool) -> Vec<Option<usize>> {
    let mut earlier = Earlier::default();
    let mut out = Vec::with_capacity(tolerations.len());
    for (j, later) in tolerations.iter().enumerate() {
        let b = later.tol();
        let seconds = later.seconds();
        let well_formed = is_well_formed(&b, gate);
        out.push(if well_formed {
            earlier
                .exact
                .get(&(b, seconds))
                .copied()
                .or_else(|| earlier.first_covering(&b))
        } else {
            None
        });
        earlier.add(j, b, seconds, well_formed);
    }
    out
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let gate = ctx.settings.comparison_operators;
    for spec in &ctx.object.pod_specs {
        // Only a later toleration can be shadowed: one alone never is.
        if spec.tolerations.len() < 2 {
            continue;
        }
        let shadowed = shadowing(&spec.tolerations, gate);
        out.reserve(shadowed.iter().flatten().count());
        // Each list checked once for all its removals (not once per finding); an operator's
        // role may gather its tolerations from a few lists (Rook's `all` and the role's own).
        let mut lists: Vec<(usize, Option<crate::fix::SeqItems<'_>>)> = Vec::new();
        for (later, earlier) in spec.tolerations.iter().zip(shadowed) {
            // Name an exact duplicate when there is one, else the first that covers it.
            let Some(earlier) = earlier.and_then(|i| spec.tolerations.get(i)) else {
                continue;
            };
            let b = later.tol();
            let a = earlier.tol();
            let exact = a == b && earlier.seconds() == later.seconds();
            let can_noexecute = matches!(b.effect, "" | "NoExecute");
            let differs = can_noexecute && earlier.seconds() != later.seconds();
            let message: std::borrow::Cow<'static, str> = if exact {
                "duplicate toleration: the same toleration appears earlier in the list".into()
            } else if differs {
                format!(
                    "toleration is shadowed: an earlier toleration matches every taint this one does, so NoExecute eviction uses its `tolerationSeconds` ({}), not this one's ({})",
                    seconds_text(earlier.seconds()),
                    seconds_text(later.seconds())
                ).into()
            } else {
                "toleration is shadowed: an earlier toleration already matches every taint this one matches".into()
            };
            let help = if differs {
                "the first matching toleration decides when a NoExecute taint evicts the pod; put the one you mean first, or remove the other"
            } else {
                "remove this toleration; it never changes where the pod runs or when it is evicted"
            };
            // RuntimeClass rejects tolerations with the same (key, operator, value, effect)
            // (pkg/apis/core/validation/validation.go `ValidatePodSpec` paths): there it is an API
            // error, not a warning.
            let runtime_class = ctx.is_builtin() && ctx.object.kind == "RuntimeClass";
            let same_list_key = a == b;
            let (severity, api) = if runtime_class && same_list_key {
                (
                    crate::diagnostic::Severity::Error,
                    Some(crate::analysis::semantics::validation::duplicate(
                        &later.path,
                        &toleration_struct(later, ctx.settings),
                        "",
                    )),
                )
            } else {
                (META.severity, None)
            };
            let at = later.list.span.start;
            let list = match lists.iter().position(|(start, _)| *start == at) {
                Some(i) => i,
                None => {
                    lists.push((at, crate::fix::SeqItems::new(ctx.source, later.list)));
                    lists.len() - 1
                }
            };
            let removal = lists[list]
                .1
                .as_ref()
                .and_then(|items| items.remove(later.index));
            let mut finding = META.finding_at(severity, message);
            if let Some(api) = api {
                finding = finding.api_error(api);
            }
            out.push(
                finding
                    .primary(
                        later.node.span,
                        if exact { "duplicate" } else { "never used" },
                    )
                    .secondary(earlier.node.span, "this earlier toleration wins")
                    .help(help)
                    .field(later.path.clone())
                    .fix(
                        removal
                            .map(|e| {
                                Fix::unsafe_(
                                    if exact {
                                        "remove the duplicate toleration"
                                    } else {
                                        "remove the shadowed toleration"
                                    },
                                    vec![e],
                                )
                            }),
                    ),
            );
        }
    }
}

/// The internal `core.Toleration` as the server prints a bad value: JSON since 1.34, `%#v`
/// before.
fn toleration_struct(
    t: &crate::model::Toleration<'_>,
    settings: &crate::settings::Settings,
) -> String {
    use crate::analysis::semantics::validation::{go_quote, json_quote};
    let seconds = t.seconds();
    if settings.minor >= 34 {
        format!(
            "{{\"Key\":{},\"Operator\":{},\"Value\":{},\"Effect\":{},\"TolerationSeconds\":{}}}",
            json_quote(t.key()),
            json_quote(t.operator()),
            json_quote(t.value()),
            json_quote(t.effect()),
            seconds.map_or_else(|| "null".to_string(), |s| s.to_string())
        )
    } else {
        format!(
            "core.Toleration{{Key:{}, Operator:{}, Value:{}, Effect:{}, TolerationSeconds:{}}}",
            go_quote(t.key()),
            go_quote(t.operator()),
            go_quote(t.value()),
            go_quote(t.effect()),
            if seconds.is_some() {
                "(*int64)(0xc000000000)"
            } else {
                "(*int64)(nil)"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index names the same earlier toleration as comparing every pair, over lists
    /// mixing every operator, empty keys and effects, values, seconds and malformed items.
    #[test]
    fn index_equals_pairwise() {
        let keys = ["", "a", "b"];
        let ops = ["", "Equal", "Exists", "Lt", "Gt", "In"];
        let values = ["", "1", "2"];
        let effects = ["", "NoSchedule", "NoExecute", "Bad"];
        let seconds = ["", "tolerationSeconds: 5, ", "tolerationSeconds: 9, "];
        // A small deterministic generator: every list is a different walk over the choices.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap()
        };
        for round in 0..300 {
            let len = 1 + next(40);
            let mut text = String::from("apiVersion: v1\nkind: Pod\nspec:\n  tolerations:\n");
            for _ in 0..len {
                text.push_str(&format!(
                    "  - {{{}key: \"{}\", operator: \"{}\", value: \"{}\", effect: \"{}\"}}\n",
                    seconds[next(seconds.len())],
                    keys[next(keys.len())],
                    ops[next(ops.len())],
                    values[next(values.len())],
                    effects[next(effects.len())],
                ));
            }
            let stream = crate::load::yaml::parse(&text, crate::load::yaml::Limits::default());
            let doc = &stream.documents[0];
            let objects = crate::model::objects(doc, &[]);
            let spec = &objects[0].pod_specs[0];
            assert_eq!(spec.tolerations.len(), len);
            for gate in [false, true] {
                assert_eq!(
                    indexed(&spec.tolerations, gate),
                    pairwise(&spec.tolerations, gate),
                    "round {round}, gate {gate}:\n{text}"
                );
            }
        }
    }
}
