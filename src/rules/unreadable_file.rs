//! `unreadable-file`: A file that cannot be read (permissions, not a regular file, over the size
//! limit). It has no check of its own: the engine (reading, parsing) or the configuration raises
//! it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "unreadable-file",
    summary: "A file could not be read (permissions, not a regular file, over the size limit)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/unreadable-file.md"),
};

pub static RULE: Rule = Rule::new(&META);
