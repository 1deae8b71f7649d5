//! `invalid-topology-spread`: what the API server rejects in `topologySpreadConstraints`
//! (pkg/apis/core/validation/validation.go in kubernetes/kubernetes:
//! `validateTopologySpreadConstraints`, `ValidateMaxSkew`, `ValidateTopologyKey`,
//! `ValidateWhenUnsatisfiable`, `ValidateSpreadConstraintNotRepeat`, `validateMinDomains`,
//! `validateNodeInclusionPolicy`, `validateMatchLabelKeysInTopologySpread`, and the selector
//! through `ValidateLabelSelector`), in the server's order.

use super::Rule;
use super::label_selectors::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-topology-spread",
    summary: "A topology spread constraint the API server rejects (maxSkew, topologyKey, whenUnsatisfiable, minDomains, node policies, matchLabelKeys, duplicates)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-topology-spread.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

const ACTIONS: &[&str] = &["DoNotSchedule", "ScheduleAnyway"];
const POLICIES: &[&str] = &["Honor", "Ignore"];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let mut r = Reporter {
        ctx,
        out,
        meta: &META,
    };
    for spec in &ctx.object.pod_specs {
        let list = spec.spread_constraints();
        if list.is_empty() {
            continue;
        }
        let base = spec.field_path("topologySpreadConstraints");
        // The label keys its pods get: with the selector merge, a `matchLabelKeys` key is
        // merged only when the pod has that label.
        let pod_label_keys: std::collections::HashSet<&str> =
            crate::analysis::types::pod_affinity::pod_labels(ctx.object, &spec.path)
                .into_iter()
                .map(|(k, _)| k)
                .collect();
        // Whether a later constraint has the same {topologyKey, whenUnsatisfiable}: one pass
        // from the end, not a pass over the rest for each.
        let mut later = std::collections::HashSet::new();
        let mut repeated = vec![false; list.len()];
        for (i, c) in list.iter().enumerate().rev() {
            if c.as_map().is_some() {
                let own = (
                    text_of(c.entry("topologyKey").map(|(_, v)| v)).unwrap_or(""),
                    text_of(c.entry("whenUnsatisfiable").map(|(_, v)| v)).unwrap_or(""),
                );
                repeated[i] = later.contains(&own);
                later.insert((
                    text_of(c.get("topologyKey")).unwrap_or(""),
                    text_of(c.get("whenUnsatisfiable")).unwrap_or(""),
                ));
            }
        }
        for (i, c) in list.iter().enumerate() {
            // (An item that is not a mapping is a decode error: `yaml-type-mismatch`.)
            if c.as_map().is_some() {
                let at = format!("{base}[{i}]");
                let defaulted =
                    spec.generic || spec.synth.as_ref().is_some_and(|s| s.spread_defaults);
                check_constraint(&mut r, c, &at, repeated[i], &pod_label_keys, defaulted);
            }
        }
    }
}

/// Checks one constraint; `repeated`: a later one has its {topologyKey, whenUnsatisfiable}.
/// `custom`: the constraint of a custom resource no catalogue entry describes, which its
/// unknown operator copies into the pods it builds, or of a catalogued operator known to fill
/// them in (`Synth::spread_defaults`): a field left at Go's zero value (`maxSkew: 0`, no `topologyKey`, no
/// `whenUnsatisfiable`) is one operators fill in (Percona's XtraDB and MongoDB operators make
/// them 1, `kubernetes.io/hostname` and `ScheduleAnyway`: percona-xtradb-cluster-operator
/// `pkg/pxc/statefulset.go` `PodTopologySpreadConstraints`), so only values the server
/// refuses whatever the operator adds are reported there.
fn check_constraint(
    r: &mut Reporter<'_, '_>,
    c: &Node,
    p: &str,
    repeated: bool,
    pod_label_keys: &std::collections::HashSet<&str>,
    custom: bool,
) {
    // maxSkew: > 0.
    let skew_node = c.get("maxSkew");
    if let Some(skew) = int_of(skew_node)
        && (skew < 0 || (skew == 0 && !custom))
    {
        let sp = join(p, "maxSkew");
        r.add(Problem {
            span: skew_node.map_or(c.span, |n| n.span),
            message: format!("`maxSkew: {skew}`: the skew must be at least 1"),
            label: "must be > 0",
            help: "`maxSkew: 1` spreads the pods as evenly as possible".to_string(),
            path: &sp,
            api: invalid(&sp, &skew.to_string(), "must be greater than zero"),
        });
    }
    // topologyKey: required (any text is accepted).
    let key_entry = c.entry("topologyKey");
    let key = text_of(key_entry.map(|(_, v)| v)).unwrap_or("");
    if key.is_empty() && !custom {
        let kp = join(p, "topologyKey");
        r.add(Problem {
            span: key_entry.map_or(c.span, |(_, v)| v.span),
            message: "topology spread constraint has no `topologyKey`".to_string(),
            label: "topologyKey required",
            help: "name the node label whose values are the domains, e.g. `topology.kubernetes.io/zone`".to_string(),
            path: &kp,
            api: required(&kp, "can not be empty"),
        });
    }
    // whenUnsatisfiable: DoNotSchedule or ScheduleAnyway.
    let when_entry = c.entry("whenUnsatisfiable");
    let when = text_of(when_entry.map(|(_, v)| v)).unwrap_or("");
    // (An operator fills in an action left out.)
    let filled = custom && when.is_empty();
    if !ACTIONS.contains(&when) && !filled {
        let wp = join(p, "whenUnsatisfiable");
        let fix = enum_fix(r, when_entry, when, ACTIONS);
        r.add_fixed(
            Problem {
                span: when_entry.map_or(c.span, |(_, v)| v.span),
                message: if when.is_empty() {
                    "topology spread constraint has no `whenUnsatisfiable`".to_string()
                } else {
                    format!("`{when}` is not a `whenUnsatisfiable` action")
                },
                label: "DoNotSchedule or ScheduleAnyway",
                help: did_you_mean(when, ACTIONS, "`DoNotSchedule` (a filter) or `ScheduleAnyway` (a preference)"),
                path: &wp,
                api: not_supported(&wp, &named_value(when, r.ctx.settings), ACTIONS),
            },
            fix,
        );
    }
    // {topologyKey, whenUnsatisfiable}: once (an operator may fill in either).
    if repeated && !(custom && (key.is_empty() || when.is_empty())) {
        let dp = join(p, "{topologyKey, whenUnsatisfiable}");
        r.add(Problem {
            span: key_entry.map_or(c.span, |(k, _)| k.span),
            message: format!("another constraint also spreads over `{key}` with `{when}`"),
            label: "duplicate constraint",
            help: "merge the two constraints: one per topology key and action".to_string(),
            path: &dp,
            api: duplicate(&dp, &go_quote(&format!("{{{key}, {when}}}")), ""),
        });
    }
    // minDomains: > 0, and only with DoNotSchedule.
    if let Some((_, v)) = c.entry("minDomains").filter(|(_, v)| !v.is_null())
        && let Some(min) = int_of(Some(v))
    {
        let mp = join(p, "minDomains");
        if min <= 0 {
            r.add(Problem {
                span: v.span,
                message: format!("`minDomains: {min}` must be at least 1"),
                label: "must be > 0",
                help: "remove `minDomains`, or set the number of domains the pods must spread over".to_string(),
                path: &mp,
                api: invalid(&mp, &min.to_string(), "must be greater than zero"),
            });
        }
        if when != "DoNotSchedule" {
            r.add(Problem {
                span: v.span,
                message: format!("`minDomains` only applies with `whenUnsatisfiable: DoNotSchedule`, not `{when}`"),
                label: "needs DoNotSchedule",
                help: "use `whenUnsatisfiable: DoNotSchedule`, or remove `minDomains`".to_string(),
                path: &mp,
                api: invalid(
                    &mp,
                    &min.to_string(),
                    &format!("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}"),
                ),
            });
        }
    }
    // nodeAffinityPolicy, nodeTaintsPolicy: Honor or Ignore when set.
    for field in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
        let Some(entry) = c.entry(field).filter(|(_, v)| !v.is_null()) else {
            continue;
        };
        let Some(policy) = entry.1.text() else { continue };
        if POLICIES.contains(&policy) {
            continue;
        }
        let pp = join(p, field);
        let fix = enum_fix(r, Some(entry), policy, POLICIES);
        r.add_fixed(
            Problem {
                span: entry.1.span,
                message: format!("`{policy}` is not a `{field}`"),
                label: "Honor or Ignore",
                help: did_you_mean(policy, POLICIES, "`Honor` or `Ignore`"),
                path: &pp,
                api: not_supported(&pp, &named_value(policy, r.ctx.settings), POLICIES),
            },
            fix,
        );
    }
    // matchLabelKeys: a selector to narrow, valid keys, none already in the selector.
    let keys = strings_of(c.get("matchLabelKeys"));
    let selector = c.get("labelSelector").filter(|s| !s.is_null());
    if !keys.is_empty() {
        let kp = join(p, "matchLabelKeys");
        let (labels, exprs) = selector.map(selector_keys).unwrap_or_default();
        if selector.is_none() {
            r.add(Problem {
                span: c.entry("matchLabelKeys").map_or(c.span, |(k, _)| k.span),
                message: "`matchLabelKeys` without a `labelSelector`".to_string(),
                label: "needs labelSelector",
                help: "add the `labelSelector` that selects the workload's pods".to_string(),
                path: &kp,
                api: forbidden(&kp, "must not be specified when labelSelector is not set"),
            });
        }
        check_key_list(r, &keys, &kp);
        // A key already in the selector. Before 1.34 (or with the
        // MatchLabelKeysInPodTopologySpreadSelectorMerge gate off) validation rejects it
        // outright, at `…matchLabelKeys[j]` (`validateMatchLabelKeysInTopologySpread`). From
        // 1.34 the gate is on by default: the API server first merges each key the pod has as
        // a label into the selector as `key In (value)` (`applyLabelKeysToLabelSelector`,
        // pkg/registry/core/pod/strategy.go), then `validateMatchLabelKeysAndMismatchLabelKeys`
        // rejects a selector key seen twice, at the constraint's path indexed by the key's
        // place, `…topologySpreadConstraints[i][j]` (pkg/apis/core/validation/validation.go in
        // kubernetes/kubernetes). A key the pod does not have is not merged and not rejected.
        let merge = r.ctx.settings.minor >= 34;
        for (i, (node, key)) in keys.iter().enumerate() {
            if !(labels.contains(key) || exprs.contains(key)) {
                continue;
            }
            if !merge {
                also_in_selector(r, node.span, key, &format!("{kp}[{i}]"));
            } else if pod_label_keys.contains(&**key) {
                also_in_selector(r, node.span, key, &format!("{p}[{i}]"));
            }
        }
    }
    if let Some(sel) = selector {
        check_label_selector(r, sel, &join(p, "labelSelector"), "topology spread label selector");
    }
}

/// `did you mean …?` for an enum typo, else the values.
fn did_you_mean(bad: &str, values: &[&str], otherwise: &str) -> String {
    match crate::util::nearest(bad, values, 3) {
        Some(v) if !bad.is_empty() => format!("did you mean `{v}`? The values are case-sensitive"),
        _ => format!("use {otherwise}"),
    }
}

/// The mechanical fix of an enum typo: a difference of case, or one value within two edits
/// (`Honour` → `Honor`, `DoNotSchedul` → `DoNotSchedule`).
fn enum_fix(
    r: &Reporter<'_, '_>,
    entry: Option<(&Node, &Node)>,
    bad: &str,
    values: &[&str],
) -> Option<crate::diagnostic::Fix> {
    let (k, v) = entry?;
    if bad.is_empty() {
        return None;
    }
    let want = crate::util::nearest(bad, values, 2)?;
    crate::fix::single(
        Applicability::Safe,
        format!("replace `{bad}` with `{want}`"),
        crate::fix::replace_scalar(r.ctx.source, k, v, want),
    )
}
