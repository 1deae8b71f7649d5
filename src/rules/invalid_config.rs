//! `invalid-config`: A mistake in the configuration file. It has no check of its own: the engine
//! (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "invalid-config",
    summary: "A mistake in `.taintlint.yaml`: unknown key or rule, bad severity, unmatched glob",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-config.md"),
};

pub static RULE: Rule = Rule::new(&META);
