//! `yaml-too-complex`: A document that nests too deeply or expands too many aliases. It has no
//! check of its own: the engine (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "yaml-too-complex",
    summary: "A document nests too deeply or expands too many aliases (a YAML bomb)",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/yaml-too-complex.md"),
};

pub static RULE: Rule = Rule::new(&META);
