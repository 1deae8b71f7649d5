//! `unused-suppression`: A `taintlint: ignore` that suppresses nothing. It has no check of its own:
//! the engine (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "unused-suppression",
    summary: "A `taintlint: ignore` comment or annotation that suppresses nothing",
    category: Category::Input,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/unused-suppression.md"),
};

pub static RULE: Rule = Rule::new(&META);
