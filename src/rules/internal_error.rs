//! `internal-error`: A panic while checking a file. It has no check of its own: the engine
//! (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "internal-error",
    summary: "taintlint failed while checking a file (a bug: please report it)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/internal-error.md"),
};

pub static RULE: Rule = Rule::new(&META);
