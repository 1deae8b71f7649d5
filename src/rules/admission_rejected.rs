//! `admission-rejected`: an admission plugin refuses the workload's pods — a RuntimeClass
//! whose node selector conflicts with the pod's, a namespace node selector (PodNodeSelector,
//! OpenShift's project node selector) conflicting with it, tolerations outside the
//! namespace's allow list (PodTolerationRestriction). Reported by the engine
//! (`engine::admission`) with the plugin's own message; the pods never reach the scheduler,
//! so the other scheduling rules do not judge them.

use crate::analysis::types::admitted::Rejection;
use crate::diagnostic::Severity;

use super::{Category, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "admission-rejected",
    summary: "An admission plugin rejects the workload's pods (conflicting node selectors, tolerations outside the namespace's allow list)",
    category: Category::Scheduling,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/admission-rejected.md"),
};

pub static RULE: Rule = Rule::new(&META).needs_workloads();

/// What to do about a rejection.
pub fn help(r: &Rejection) -> &'static str {
    match r.plugin.as_str() {
        "RuntimeClass" => {
            "drop the pod's nodeSelector entry the RuntimeClass sets, or give it the RuntimeClass's value"
        }
        "PodTolerationRestriction" => {
            "remove the tolerations the namespace does not allow, or add them to its scheduler.alpha.kubernetes.io/tolerationsWhitelist (tolerations the admission defaults add count too)"
        }
        _ => "drop the pod's nodeSelector entry that differs from the namespace's, or change the namespace's node selector",
    }
}
