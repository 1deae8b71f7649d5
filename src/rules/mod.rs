//! Rules: one file per rule, each declaring its metadata (`META`) and its registry entry
//! (`RULE`: its hooks and what the engine must know of it) the same way. This module holds the
//! registry (`RULES`, one line per rule); `ctx` what the hooks see, `selection` which rules
//! run.

use crate::diagnostic::{Finding, Severity};

mod ctx;
mod decoding;
mod label_selectors;
mod node_selection;
mod selection;
mod taints;
pub mod tolerations;

pub use ctx::{Aggregate, CheckFn, CrossCtx, CrossFn, Ctx, RunCtx};
pub(crate) use ctx::{decoded, push, push_server_only};
pub use selection::{Level, RuleSet, unknown_rule_message};

pub use duplicate_key::META as DUPLICATE_KEY;
pub use encrypted_file::META as ENCRYPTED_FILE;
pub use internal_error::META as INTERNAL_ERROR;
pub use invalid_config::META as INVALID_CONFIG;
pub use invalid_encoding::META as INVALID_ENCODING;
pub use pool_tolerated_by_nothing::META as POOL_TOLERATED_BY_NOTHING;
pub use template_not_rendered::META as TEMPLATE_NOT_RENDERED;
pub use unjudged_custom_kind::META as UNJUDGED_CUSTOM_KIND;
pub use unreadable_file::META as UNREADABLE_FILE;
pub use unused_suppression::META as UNUSED_SUPPRESSION;
pub use yaml_syntax_error::META as YAML_SYNTAX_ERROR;
pub use yaml_too_complex::META as YAML_TOO_COMPLEX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// The file could not be read or parsed.
    Input,
    /// The API server (or kubectl before it) rejects the object.
    Correctness,
    /// Accepted, but almost certainly not what the author meant.
    Suspicious,
    /// Found by cross-referencing workloads with the node pools of the inventory.
    Scheduling,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Input => "input",
            Category::Correctness => "correctness",
            Category::Suspicious => "suspicious",
            Category::Scheduling => "scheduling",
        }
    }

    pub const ALL: &'static [Category] = &[
        Category::Input,
        Category::Correctness,
        Category::Suspicious,
        Category::Scheduling,
    ];
}

/// What every rule declares about itself.
#[derive(Debug)]
pub struct RuleMeta {
    /// kebab-case name, the rule's identity everywhere.
    pub name: &'static str,
    pub summary: &'static str,
    pub category: Category,
    pub severity: Severity,
    /// Off-by-default rules run only when selected by name.
    pub enabled: bool,
    /// The rule's page in `rules/`.
    pub docs: &'static str,
}

impl RuleMeta {
    /// A finding of this rule, at its severity: the one way rules (and the engine, for the
    /// rules it raises) make findings.
    pub fn finding(&self, message: impl Into<std::borrow::Cow<'static, str>>) -> Finding {
        Finding::new(self.name, self.severity, message)
    }

    /// A finding of this rule at another severity (an info for node agents, a warning for a
    /// value the server accepts).
    pub fn finding_at(
        &self,
        severity: Severity,
        message: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Finding {
        Finding::new(self.name, severity, message)
    }
}

/// A rule: what it declares about itself and the hooks the engine calls.
pub struct Rule {
    pub meta: &'static RuleMeta,
    /// Per-object check; `None` for rules the engine (reading, parsing) or the
    /// cross-reference reports.
    pub check: Option<CheckFn>,
    /// Check over the workloads of one file against the whole run's inventory.
    pub cross: Option<CrossFn>,
    /// A whole-run rule: one accumulator per run sees every file's workloads, then reports
    /// once against the inventory (see [`Aggregate`]).
    pub aggregate: Option<fn() -> Box<dyn Aggregate>>,
    /// This rule's `api_error` is a decode error (HTTP 400): the server stops decoding at the
    /// first one and never reaches validation (see [`gate_api_errors`]).
    pub decode: Option<Decode>,
    /// A heuristic that gives way to the inventory: its findings are dropped from a run
    /// that knows its node pools (a cross-reference rule checks the same thing for real).
    pub superseded_by_inventory: bool,
    /// The engine reports this rule from the run's workloads (as `admission-rejected`), so
    /// they must be gathered even without a cross-reference rule.
    pub needs_workloads: bool,
}

impl Rule {
    /// A rule with no hooks (one the engine or the configuration reports).
    pub const fn new(meta: &'static RuleMeta) -> Self {
        Rule {
            meta,
            check: None,
            cross: None,
            aggregate: None,
            decode: None,
            superseded_by_inventory: false,
            needs_workloads: false,
        }
    }

    pub const fn needs_workloads(mut self) -> Self {
        self.needs_workloads = true;
        self
    }

    pub const fn check(mut self, check: CheckFn) -> Self {
        self.check = Some(check);
        self
    }

    pub const fn cross(mut self, cross: CrossFn) -> Self {
        self.cross = Some(cross);
        self
    }

    pub const fn aggregate(mut self, make: fn() -> Box<dyn Aggregate>) -> Self {
        self.aggregate = Some(make);
        self
    }

    pub const fn decode(mut self, stage: Decode) -> Self {
        self.decode = Some(stage);
        self
    }

    pub const fn superseded_by_inventory(mut self) -> Self {
        self.superseded_by_inventory = true;
        self
    }
}

/// Which decode error a decode rule reports, in the order the server meets them: a type
/// error before a strict-decoding (unknown field) error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decode {
    Type,
    Strict,
}

/// The registry: one line per rule, sorted by rule name (a unit test keeps it so).
macro_rules! registry {
    ($($rule:ident),* $(,)?) => {
        $(pub mod $rule;)*
        /// Every rule, sorted by name.
        pub static RULES: &[&Rule] = &[$(&$rule::RULE),*];
    };
}

registry![
    admission_rejected,
    anti_affinity_exceeds_nodes,
    control_plane_selector_untolerated,
    daemonset_misses_pools,
    dedicated_toleration_without_affinity,
    default_toleration_suppressed,
    deprecated_taint_key,
    duplicate_key,
    duplicate_taint,
    encrypted_file,
    internal_error,
    invalid_config,
    invalid_encoding,
    invalid_namespace_scheduling_annotation,
    invalid_node_affinity,
    invalid_node_selector,
    invalid_pod_affinity,
    invalid_taint_effect,
    invalid_taint_key,
    invalid_taint_spec,
    invalid_taint_value,
    invalid_toleration_effect,
    invalid_toleration_key,
    invalid_toleration_operator,
    invalid_toleration_value,
    invalid_topology_spread,
    kueue_no_flavor_fits,
    nodename_bypasses_taint,
    nodename_untolerated_noexecute,
    placeholder_toleration_key,
    pod_affinity_matches_nothing,
    pool_tolerated_by_nothing,
    resource_flavor_toleration_mismatch,
    shadowed_toleration,
    spread_counts_unreachable_domains,
    spread_selector_misses_own_pods,
    stateful_eviction_timeout,
    template_not_rendered,
    tolerates_all_effects,
    tolerates_all_taints,
    toleration_effect_mismatch,
    toleration_empty_key_requires_exists,
    toleration_exists_with_value,
    toleration_matches_no_taint,
    toleration_not_allowed,
    toleration_seconds_evicts_immediately,
    toleration_seconds_requires_noexecute,
    topology_key_typo,
    unjudged_custom_kind,
    unknown_field,
    unreadable_file,
    unschedulable_workload,
    unused_suppression,
    well_known_taint_mismatch,
    yaml_syntax_error,
    yaml_too_complex,
    yaml_type_mismatch,
];

/// Does this rule judge a pod by what no pool of its cluster offers (a closed world)? Such a
/// finding needs every node maker of the cluster in the files (see
/// `analysis::sources::provisioners`).
pub fn is_closed_world(name: &str) -> bool {
    [
        toleration_matches_no_taint::META.name,
        unschedulable_workload::META.name,
        pool_tolerated_by_nothing::META.name,
        daemonset_misses_pools::META.name,
    ]
    .contains(&name)
}

pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.meta.name == name).copied()
}

/// Does this rule say nothing about vendored code and test data (`vendor/`, `testdata/`, …
/// below a linted folder)? Every heuristic does (a `suspicious` rule: accepted by the API
/// server, and only probably a mistake): what they look for is often deliberate there, a
/// negative test or another cluster's setup. What the server rejects is still reported.
pub fn quiet_in_fixtures(name: &str) -> bool {
    find(name).is_some_and(|r| r.meta.category == Category::Suspicious)
}

/// Is this rule a heuristic that gives way to the inventory?
pub fn superseded_by_inventory(name: &str) -> bool {
    find(name).is_some_and(|r| r.superseded_by_inventory)
}

/// Does this heuristic finding give way to the run's inventory? A declared inventory is the
/// whole cluster and supersedes every one, and so do the pools of a cluster the files define
/// for its own files (a guess made without pools beside the finding its pools make would
/// contradict it); pools merely found among the linted files only those about a taint one of
/// them has (the cross-reference checks it for real), never one about a taint they do not
/// know (`analysis::judgements::evidence`).
pub fn superseded(f: &Finding, inventory: &crate::analysis::sources::inventory::Inventory) -> bool {
    superseded_by_inventory(f.rule)
        && !inventory.is_empty()
        && (inventory.closed()
            // The file belongs to a cluster the files define: its pools judge the pod.
            || inventory.cluster_of(&f.file).is_some()
            || f.taint_key
                .as_deref()
                .is_none_or(|k| match k.split_once('=') {
                    // (A label key has no `=`: `key=value` is a taint with its value.)
                    // Its taint, or one a slip away: then `toleration-matches-no-taint`
                    // names the near miss, which is the finding.
                    Some((key, value)) => inventory.taints_with_key(key).any(|(_, t)| {
                        &*t.taint.value == value
                            || crate::analysis::judgements::evidence::is_slip(value, &t.taint.value)
                    }),
                    None => inventory.has_taint_key(k),
                }))
}

/// Keeps `api_error` only where the server would really say it: once an object fails to
/// decode, only its first decode error; validation errors are never reached. kubectl's own
/// client-side failure (`error: …`) comes first, then the first type error, then the
/// strict-decoding error.
pub fn gate_api_errors(found: &mut [Finding]) {
    let rank = |f: &Finding| -> Option<u8> {
        let api = f.api_error.as_deref()?;
        let stage = find(f.rule)?.decode?;
        Some(if api.starts_with("error: ") {
            0
        } else {
            match stage {
                Decode::Type => 1,
                Decode::Strict => 2,
            }
        })
    };
    let keep = found
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            rank(f).map(|r| (r, f.primary.as_ref().map_or(0, |l| l.span.start), i))
        })
        .min()
        .map(|(_, _, i)| i);
    if let Some(keep) = keep {
        for (i, f) in found.iter_mut().enumerate() {
            if i != keep {
                f.api_error = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_sorted_and_unique() {
        let names: Vec<_> = RULES.iter().map(|r| r.meta.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }
}
