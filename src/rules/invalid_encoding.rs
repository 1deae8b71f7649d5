//! `invalid-encoding`: A file that is not UTF-8 text. It has no check of its own: the engine
//! (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "invalid-encoding",
    summary: "A file is not UTF-8 text (invalid bytes, NUL bytes, UTF-16)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-encoding.md"),
};

pub static RULE: Rule = Rule::new(&META);
