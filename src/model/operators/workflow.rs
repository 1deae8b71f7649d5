//! Argo Workflows `Workflow` (argoproj.io/v1alpha1): its pods, one per step.
//!
//! Each template that runs a pod (`container`, `script`, `containerSet`, `resource`) is a
//! role. Its pod's `nodeSelector`, `affinity` and `tolerations` are the template's when it
//! writes them (non-empty), else those of the template that calls it, else the workflow's
//! (argoproj/argo-workflows workflow/controller/workflowpod.go `addSchedulingConstraints`;
//! the caller — the steps or DAG template, the "boundary" — is not modelled);
//! `spec.templateDefaults` fills a template's unwritten fields first
//! (workflow/controller/operator.go `mergedTemplateDefaultsInto`, a strategic merge taken
//! here field by field). `priorityClassName` is the template's or the workflow's
//! `podPriorityClassName`. The pods of templates taken from a `WorkflowTemplate` (`templateRef`)
//! get the workflow's placement (role `referenced templates`). Types:
//! pkg/apis/workflow/v1alpha1/workflow_types.go.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "workflow",
    project: "Argo Workflows",
    sources: &[
        "argoproj/argo-workflows pkg/apis/workflow/v1alpha1/workflow_types.go",
        "argoproj/argo-workflows workflow/controller/workflowpod.go",
    ],
    declaration: argo_workflow!("Workflow", "spec"),
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    referenced(h, "spec")
}

/// The pods of templates a step or task takes from a `WorkflowTemplate` (`templateRef`) get
/// the workflow's placement unless their template writes its own: a role only when some step
/// or task of `base.templates` has a `templateRef`.
pub(super) fn referenced(h: &Hook<'_, '_>, base: &str) -> Synth {
    let mut s = Synth::default();
    if h.role != "referenced templates" {
        return s;
    }
    let templates = h
        .get(&format!("{base}.templates"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    let refers = templates.iter().any(|t| {
        let steps = t
            .get("steps")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .flat_map(|group| group.as_seq().unwrap_or_default());
        let tasks = t
            .path(&["dag", "tasks"])
            .and_then(Node::as_seq)
            .unwrap_or_default();
        steps
            .chain(tasks)
            .any(|step| step.get("templateRef").is_some())
    });
    if refers {
        s.notes.push("the workflow's placement, for the pods of the templates its steps take from a WorkflowTemplate (`templateRef`) unless those write their own (argoproj/argo-workflows workflow/controller/workflowpod.go `addSchedulingConstraints`)".to_string());
    } else {
        s.none = true;
    }
    s
}
