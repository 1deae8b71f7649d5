//! `unjudged-custom-kind`: A custom resource of a kind taintlint does not catalogue holds
//! `tolerations`, `nodeSelector` or `affinity` outside a complete pod spec, so nothing in the
//! files shows they reach a pod. It has no check of its own: the model marks such an object
//! (`model::Object::unproven`), and a run folds the notices into one per kind (see
//! `engine::folds`).

use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "unjudged-custom-kind",
    summary: "A custom resource's scheduling fields that are not shown to reach a pod; not judged",
    category: Category::Input,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/unjudged-custom-kind.md"),
};

pub static RULE: Rule = Rule::new(&META);
