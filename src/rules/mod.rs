//! Rules: one file per rule, each with its metadata (`META`) and its check; this module holds
//! the registry (`RULES`), the context a check receives, and rule selection.

use crate::diagnostic::{Finding, Severity};
use crate::load::SourceFile;
use crate::load::yaml::Document;
use crate::model::{Object, Schema};
use crate::settings::Settings;

mod daemonset_misses_pools;
mod decoding;
mod dedicated_toleration_without_affinity;
mod default_toleration_suppressed;
mod deprecated_taint_key;
mod duplicate_key;
mod duplicate_taint;
mod input;
mod invalid_node_affinity;
mod invalid_node_selector;
mod invalid_taint_effect;
mod invalid_taint_key;
pub mod invalid_taint_spec;
mod invalid_taint_value;
mod invalid_toleration_effect;
mod invalid_toleration_key;
mod invalid_toleration_operator;
mod invalid_toleration_value;
mod node_selection;
mod nodename_bypasses_taint;
mod nodename_untolerated_noexecute;
pub mod pool_tolerated_by_nothing;
mod shadowed_toleration;
mod stateful_eviction_timeout;
mod taints;
mod tolerates_all_effects;
mod tolerates_all_taints;
mod toleration_effect_mismatch;
mod toleration_empty_key_requires_exists;
mod toleration_exists_with_value;
mod toleration_matches_no_taint;
mod toleration_not_allowed;
mod toleration_seconds_evicts_immediately;
mod toleration_seconds_requires_noexecute;
pub mod tolerations;
mod unknown_field;
mod unschedulable_workload;
mod yaml_type_mismatch;

/// The heuristic rule the cross-reference replaces when an inventory exists.
pub const DEDICATED_HEURISTIC: &str = "dedicated-toleration-without-affinity";

pub use input::{
    INTERNAL_ERROR, INVALID_CONFIG, INVALID_ENCODING, TEMPLATE_NOT_RENDERED, UNREADABLE_FILE,
    UNUSED_SUPPRESSION, YAML_SYNTAX_ERROR, YAML_TOO_COMPLEX,
};

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
    pub inventory: &'a crate::analysis::crossref::Inventory,
    pub workloads: &'a [crate::analysis::inventory::Workload],
    pub eval: &'a crate::analysis::crossref::Evaluation,
    pub settings: &'a Settings,
}

pub type CrossFn = fn(&CrossCtx<'_>, &mut Vec<Finding>);

pub struct Rule {
    pub meta: &'static RuleMeta,
    /// Per-object check; `None` for rules the loader or the cross-reference reports.
    pub check: Option<CheckFn>,
    /// Check over the whole run's inventory and workloads.
    pub cross: Option<CrossFn>,
}

/// Every rule, sorted by name.
pub static RULES: &[Rule] = &[
    Rule {
        meta: &daemonset_misses_pools::META,
        check: None,
        cross: Some(daemonset_misses_pools::check),
    },
    Rule {
        meta: &dedicated_toleration_without_affinity::META,
        check: Some(dedicated_toleration_without_affinity::check),
        cross: Some(dedicated_toleration_without_affinity::check_inventory),
    },
    Rule {
        meta: &default_toleration_suppressed::META,
        check: Some(default_toleration_suppressed::check),
        cross: None,
    },
    Rule {
        meta: &deprecated_taint_key::META,
        check: Some(deprecated_taint_key::check),
        cross: None,
    },
    Rule {
        meta: &duplicate_key::DUPLICATE_KEY,
        check: Some(duplicate_key::check_duplicate_key),
        cross: None,
    },
    Rule {
        meta: &duplicate_taint::DUPLICATE,
        check: Some(duplicate_taint::check_duplicate),
        cross: None,
    },
    Rule {
        meta: &input::INTERNAL_ERROR,
        check: None,
        cross: None,
    },
    Rule {
        meta: &input::INVALID_CONFIG,
        check: None,
        cross: None,
    },
    Rule {
        meta: &input::INVALID_ENCODING,
        check: None,
        cross: None,
    },
    Rule {
        meta: &invalid_node_affinity::INVALID_NODE_AFFINITY,
        check: Some(invalid_node_affinity::check_node_affinity),
        cross: None,
    },
    Rule {
        meta: &invalid_node_selector::INVALID_NODE_SELECTOR,
        check: Some(invalid_node_selector::check_node_selector),
        cross: None,
    },
    Rule {
        meta: &invalid_taint_effect::INVALID_EFFECT,
        check: Some(invalid_taint_effect::check_effect),
        cross: None,
    },
    Rule {
        meta: &invalid_taint_key::INVALID_KEY,
        check: Some(invalid_taint_key::check_key),
        cross: None,
    },
    Rule {
        meta: &invalid_taint_spec::META,
        check: Some(invalid_taint_spec::check),
        cross: None,
    },
    Rule {
        meta: &invalid_taint_value::INVALID_VALUE,
        check: Some(invalid_taint_value::check_value),
        cross: None,
    },
    Rule {
        meta: &invalid_toleration_effect::INVALID_EFFECT,
        check: Some(invalid_toleration_effect::check_effect),
        cross: None,
    },
    Rule {
        meta: &invalid_toleration_key::INVALID_KEY,
        check: Some(invalid_toleration_key::check_key),
        cross: None,
    },
    Rule {
        meta: &invalid_toleration_operator::INVALID_OPERATOR,
        check: Some(invalid_toleration_operator::check_operator),
        cross: None,
    },
    Rule {
        meta: &invalid_toleration_value::INVALID_VALUE,
        check: Some(invalid_toleration_value::check_value),
        cross: None,
    },
    Rule {
        meta: &nodename_bypasses_taint::META,
        check: None,
        cross: Some(nodename_bypasses_taint::check),
    },
    Rule {
        meta: &nodename_untolerated_noexecute::META,
        check: None,
        cross: Some(nodename_untolerated_noexecute::check),
    },
    Rule {
        meta: &pool_tolerated_by_nothing::META,
        check: None,
        cross: Some(pool_tolerated_by_nothing::check),
    },
    Rule {
        meta: &shadowed_toleration::META,
        check: Some(shadowed_toleration::check),
        cross: None,
    },
    Rule {
        meta: &stateful_eviction_timeout::META,
        check: Some(stateful_eviction_timeout::check),
        cross: None,
    },
    Rule {
        meta: &input::TEMPLATE_NOT_RENDERED,
        check: None,
        cross: None,
    },
    Rule {
        meta: &tolerates_all_effects::META,
        check: Some(tolerates_all_effects::check),
        cross: None,
    },
    Rule {
        meta: &tolerates_all_taints::META,
        check: Some(tolerates_all_taints::check),
        cross: None,
    },
    Rule {
        meta: &toleration_effect_mismatch::META,
        check: None,
        cross: Some(toleration_effect_mismatch::check),
    },
    Rule {
        meta: &toleration_empty_key_requires_exists::EMPTY_KEY,
        check: Some(toleration_empty_key_requires_exists::check_empty_key),
        cross: None,
    },
    Rule {
        meta: &toleration_exists_with_value::META,
        check: Some(toleration_exists_with_value::check),
        cross: None,
    },
    Rule {
        meta: &toleration_matches_no_taint::META,
        check: None,
        cross: Some(toleration_matches_no_taint::check),
    },
    Rule {
        meta: &toleration_not_allowed::META,
        check: Some(toleration_not_allowed::check),
        cross: None,
    },
    Rule {
        meta: &toleration_seconds_evicts_immediately::META,
        check: Some(toleration_seconds_evicts_immediately::check),
        cross: None,
    },
    Rule {
        meta: &toleration_seconds_requires_noexecute::SECONDS,
        check: Some(toleration_seconds_requires_noexecute::check_seconds),
        cross: None,
    },
    Rule {
        meta: &unknown_field::UNKNOWN_FIELD,
        check: Some(unknown_field::check_unknown_field),
        cross: None,
    },
    Rule {
        meta: &input::UNREADABLE_FILE,
        check: None,
        cross: None,
    },
    Rule {
        meta: &unschedulable_workload::META,
        check: None,
        cross: Some(unschedulable_workload::check),
    },
    Rule {
        meta: &input::UNUSED_SUPPRESSION,
        check: None,
        cross: None,
    },
    Rule {
        meta: &input::YAML_SYNTAX_ERROR,
        check: None,
        cross: None,
    },
    Rule {
        meta: &input::YAML_TOO_COMPLEX,
        check: None,
        cross: None,
    },
    Rule {
        meta: &yaml_type_mismatch::TYPE_MISMATCH,
        check: Some(yaml_type_mismatch::check_type_mismatch),
        cross: None,
    },
];

pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.meta.name == name)
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
    pub fn configure(
        &mut self,
        levels: &[(String, crate::config::Level)],
        select: &[String],
        ignore: &[String],
    ) {
        for (name, level) in levels {
            let Some(i) = RULES.iter().position(|r| r.meta.name == name) else {
                continue;
            };
            match level {
                crate::config::Level::Off => {
                    if !select.iter().any(|s| s == name) {
                        self.enabled[i] = false;
                    }
                }
                crate::config::Level::On(sev) => {
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

    /// Does the run need the inventory and workload signatures?
    pub fn needs_inventory(&self) -> bool {
        self.enabled_cross().next().is_some()
    }

    pub fn enabled_checks(&self) -> impl Iterator<Item = (&'static RuleMeta, CheckFn)> + '_ {
        RULES
            .iter()
            .zip(&self.enabled)
            .filter(|(_, on)| **on)
            .filter_map(|(r, _)| r.check.map(|c| (r.meta, c)))
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
