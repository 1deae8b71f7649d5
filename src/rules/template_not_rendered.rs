//! `template-not-rendered`: A Helm/Go template that is not YAML yet. It has no check of its own:
//! the engine (reading, parsing) or the configuration raises it.

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "template-not-rendered",
    summary: "A Helm/Go template that is not YAML yet; lint the rendered output instead",
    category: Category::Input,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/template-not-rendered.md"),
};

pub static RULE: Rule = Rule::new(&META);
