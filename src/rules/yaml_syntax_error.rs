//! `yaml-syntax-error`: A file that does not parse. It has no check of its own: the engine
//! (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "yaml-syntax-error",
    summary: "A file that does not parse; kubectl (or, for a `.tf` file, Terraform) cannot read it either",
    category: Category::Input,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/yaml-syntax-error.md"),
};

pub static RULE: Rule = Rule::new(&META);
