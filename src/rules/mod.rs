//! Rules: one file per rule, each with its metadata (`META`) and its check; this module holds
//! the registry (`RULES`), the context a check receives, and rule selection.

use crate::diagnostic::{Finding, Severity};
use crate::load::SourceFile;
use crate::load::yaml::Document;
use crate::model::{Object, Schema};
use crate::settings::Settings;

mod decoding;
mod node_selection;
mod taints;
pub mod tolerations;

pub use internal_error::META as INTERNAL_ERROR;
pub use invalid_config::META as INVALID_CONFIG;
pub use invalid_encoding::META as INVALID_ENCODING;
pub use template_not_rendered::META as TEMPLATE_NOT_RENDERED;
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

/// A rule's configured level: a severity, or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
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

/// What a check sees: one object of one document, and the run's settings.
pub struct Ctx<'a> {
    pub object: &'a Object<'a>,
    pub document: &'a Document,
    pub source: &'a SourceFile,
    pub settings: &'a Settings,
}

impl Ctx<'_> {
    /// The server's message for a field error at `path`, when the server validates this
    /// object (a built-in kind); `None` for custom resources.
    pub fn api(&self, text: impl FnOnce() -> String) -> Option<String> {
        match &self.object.schema {
            Schema::Builtin { .. } => Some(text()),
            Schema::Custom => None,
        }
    }

    /// A DaemonSet, or a static or mirror pod: node agents that are meant to run everywhere.
    pub fn is_node_agent(&self) -> bool {
        let o = self.object;
        if !self.is_builtin() {
            return false;
        }
        if o.kind == "DaemonSet" {
            return true;
        }
        if o.kind != "Pod" {
            return false;
        }
        let mirror = o.annotations.is_some_and(|a| {
            a.get("kubernetes.io/config.mirror").is_some()
                || a.get("kubernetes.io/config.source").is_some()
        });
        let owned_by_ds = o
            .node
            .path(&["metadata", "ownerReferences"])
            .and_then(crate::load::yaml::Node::as_seq)
            .is_some_and(|refs| {
                refs.iter().any(|r| {
                    matches!(
                        r.get("kind").and_then(crate::load::yaml::Node::text),
                        Some("DaemonSet" | "Node")
                    )
                })
            });
        mirror || owned_by_ds
    }

    /// Host-network or system-critical pods: infrastructure that must run on any node.
    pub fn is_system_pod(&self) -> bool {
        self.object.pod_specs.iter().any(|s| {
            s.host_network
                || matches!(
                    s.node
                        .get("priorityClassName")
                        .and_then(crate::load::yaml::Node::text),
                    Some("system-node-critical" | "system-cluster-critical")
                )
        })
    }

    pub fn is_builtin(&self) -> bool {
        matches!(self.object.schema, Schema::Builtin { .. })
    }

    /// Words for where this spec's pods come from, for messages about custom resources.
    pub fn rejected_by(&self) -> &'static str {
        if self.is_builtin() {
            "the API server rejects this object"
        } else {
            "pods created from this resource would be rejected by the API server"
        }
    }
}

pub type CheckFn = fn(&Ctx<'_>, &mut Vec<Finding>);

/// Reports `f`, with the server's message from `api` when the server validates this object.
pub(crate) fn push(
    ctx: &Ctx<'_>,
    out: &mut Vec<Finding>,
    f: Finding,
    api: impl FnOnce() -> String,
) {
    out.push(match ctx.api(api) {
        Some(a) => f.api_error(a),
        None => f,
    });
}

/// What a cross-reference check sees: every workload and node pool of the run.
pub struct CrossCtx<'a> {
    pub inventory: &'a crate::analysis::Inventory,
    pub workloads: &'a [crate::analysis::Workload],
    pub eval: &'a crate::analysis::Evaluation,
    pub settings: &'a Settings,
}

pub type CrossFn = fn(&CrossCtx<'_>, &mut Vec<Finding>);

/// What a whole-run rule sees once every file is linted.
pub struct RunCtx<'a> {
    pub inventory: &'a crate::analysis::Inventory,
    pub evaluator: &'a crate::analysis::Evaluator<'a>,
    pub settings: &'a Settings,
}

/// The accumulator of a whole-run rule. Files are linted in parallel: each gets an
/// accumulator of its own, merged into the run's as it finishes; the run's reports at the end.
pub trait Aggregate: Send {
    /// One file's workloads (never an `--inventory` file's).
    fn add(&mut self, workloads: &[crate::analysis::Workload]);
    /// Takes in what another accumulator of the same rule gathered.
    fn merge(&mut self, other: Box<dyn Aggregate>);
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
    /// The rule's findings for the whole run.
    fn report(self: Box<Self>, ctx: &RunCtx<'_>, out: &mut Vec<Finding>);
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
        }
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
    daemonset_misses_pools,
    dedicated_toleration_without_affinity,
    default_toleration_suppressed,
    deprecated_taint_key,
    duplicate_key,
    duplicate_taint,
    internal_error,
    invalid_config,
    invalid_encoding,
    invalid_node_affinity,
    invalid_node_selector,
    invalid_taint_effect,
    invalid_taint_key,
    invalid_taint_spec,
    invalid_taint_value,
    invalid_toleration_effect,
    invalid_toleration_key,
    invalid_toleration_operator,
    invalid_toleration_value,
    nodename_bypasses_taint,
    nodename_untolerated_noexecute,
    pool_tolerated_by_nothing,
    shadowed_toleration,
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
    unknown_field,
    unreadable_file,
    unschedulable_workload,
    unused_suppression,
    yaml_syntax_error,
    yaml_too_complex,
    yaml_type_mismatch,
];

pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.meta.name == name).copied()
}

/// Which rules run, resolved from `--select`/`--ignore`.
#[derive(Clone, Debug)]
pub struct RuleSet {
    enabled: Vec<bool>,
    /// Severities set by the config.
    severity: Vec<Option<Severity>>,
}

impl RuleSet {
    pub fn defaults() -> Self {
        RuleSet {
            enabled: RULES.iter().map(|r| r.meta.enabled).collect(),
            severity: vec![None; RULES.len()],
        }
    }

    /// `select` replaces the default set when non-empty; `ignore` removes from it. A token is
    /// a rule name, a category name or `all`.
    pub fn resolve(select: &[String], ignore: &[String]) -> Result<Self, String> {
        let mut set = if select.is_empty() {
            Self::defaults()
        } else {
            let mut s = RuleSet {
                enabled: vec![false; RULES.len()],
                severity: vec![None; RULES.len()],
            };
            for tok in select {
                s.apply(tok, true)?;
            }
            s
        };
        for tok in ignore {
            set.apply(tok, false)?;
        }
        Ok(set)
    }

    fn apply(&mut self, token: &str, on: bool) -> Result<(), String> {
        let token = token.trim();
        if token == "all" {
            for (i, r) in RULES.iter().enumerate() {
                // `all` means every default-on rule plus opt-in ones only when named.
                if r.meta.enabled || !on {
                    self.enabled[i] = on;
                }
            }
            return Ok(());
        }
        if let Some(cat) = Category::ALL.iter().find(|c| c.as_str() == token) {
            for (i, r) in RULES.iter().enumerate() {
                if r.meta.category == *cat && (r.meta.enabled || !on) {
                    self.enabled[i] = on;
                }
            }
            return Ok(());
        }
        match RULES.iter().position(|r| r.meta.name == token) {
            Some(i) => {
                self.enabled[i] = on;
                Ok(())
            }
            None => Err(unknown_rule_message(token)),
        }
    }

    /// Applies the config's `rules:` levels. A rule named in `--select` stays on even when
    /// the config turns it off.
    pub fn configure(&mut self, levels: &[(String, Level)], select: &[String], ignore: &[String]) {
        for (name, level) in levels {
            let Some(i) = RULES.iter().position(|r| r.meta.name == name) else {
                continue;
            };
            match level {
                Level::Off => {
                    if !select.iter().any(|s| s == name) {
                        self.enabled[i] = false;
                    }
                }
                Level::On(sev) => {
                    // `--ignore` on the command line beats a level in the config.
                    let ignored = ignore.iter().any(|s| {
                        s == name || s == "all" || s.as_str() == RULES[i].meta.category.as_str()
                    });
                    if !ignored && (select.is_empty() || select.iter().any(|s| s == name)) {
                        self.enabled[i] = true;
                    }
                    self.severity[i] = Some(*sev);
                }
            }
        }
    }

    pub fn severity_override(&self, name: &str) -> Option<Severity> {
        RULES
            .iter()
            .position(|r| r.meta.name == name)
            .and_then(|i| self.severity[i])
    }

    pub fn is_enabled(&self, name: &str) -> bool {
        RULES
            .iter()
            .position(|r| r.meta.name == name)
            .is_some_and(|i| self.enabled[i])
    }

    /// The cross-reference checks that run.
    pub fn enabled_cross(&self) -> impl Iterator<Item = (&'static RuleMeta, CrossFn)> + '_ {
        RULES
            .iter()
            .zip(&self.enabled)
            .filter(|(_, on)| **on)
            .filter_map(|(r, _)| r.cross.map(|c| (r.meta, c)))
    }

    /// The whole-run rules that run, each with a fresh accumulator.
    pub fn new_aggregates(&self) -> Vec<Box<dyn Aggregate>> {
        RULES
            .iter()
            .zip(&self.enabled)
            .filter(|(_, on)| **on)
            .filter_map(|(r, _)| r.aggregate.map(|make| make()))
            .collect()
    }

    /// Does the run need the inventory and workload signatures?
    pub fn needs_inventory(&self) -> bool {
        RULES
            .iter()
            .zip(&self.enabled)
            .any(|(r, on)| *on && (r.cross.is_some() || r.aggregate.is_some()))
    }

    pub fn enabled_checks(&self) -> impl Iterator<Item = (&'static RuleMeta, CheckFn)> + '_ {
        RULES
            .iter()
            .zip(&self.enabled)
            .filter(|(_, on)| **on)
            .filter_map(|(r, _)| r.check.map(|c| (r.meta, c)))
    }
}

/// Is this rule a heuristic that gives way to the inventory?
pub fn superseded_by_inventory(name: &str) -> bool {
    find(name).is_some_and(|r| r.superseded_by_inventory)
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

/// `unknown rule `x``, with the nearest name suggested.
pub fn unknown_rule_message(token: &str) -> String {
    let best = RULES
        .iter()
        .map(|r| (crate::util::edit_distance(token, r.meta.name), r.meta.name))
        .min();
    match best {
        Some((d, name)) if d <= 4 || name.contains(token) => {
            format!("unknown rule `{token}` (did you mean `{name}`?)")
        }
        _ => format!("unknown rule `{token}` (see `taintlint rules`)"),
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
