//! `nodename-bypasses-taint`: `nodeName` binds a pod to a node whose NoSchedule taint it does
//! not tolerate; the kubelet only checks NoExecute taints, so the taint is silently bypassed
//! (the kubelet's admission, pkg/kubelet/lifecycle/predicate.go).

use crate::diagnostic::{Finding, Severity};

use super::nodename_untolerated_noexecute::check_effect;
use super::{Category, CrossCtx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "nodename-bypasses-taint",
    summary: "`nodeName` silently bypasses a NoSchedule taint of its node",
    category: Category::Scheduling,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/nodename-bypasses-taint.md"),
};

pub static RULE: Rule = Rule::new(&META).cross(check);

pub fn check(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    check_effect(ctx, out, "NoSchedule", &META);
}
