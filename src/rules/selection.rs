//! Which rules run and at what severity: `--select`/`--ignore` (rule names, categories,
//! `all`) and the configuration's `rules:` levels.

use crate::diagnostic::Severity;

use super::{Aggregate, Category, CheckFn, CrossFn, RULES, RuleMeta};

/// A rule's configured level: a severity, or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
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
            .any(|(r, on)| *on && (r.cross.is_some() || r.aggregate.is_some() || r.needs_workloads))
    }

    /// Does a decode rule run (one that reads [`super::decoding::walk`])?
    pub fn decodes(&self) -> bool {
        RULES
            .iter()
            .zip(&self.enabled)
            .any(|(r, on)| *on && r.decode.is_some())
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
