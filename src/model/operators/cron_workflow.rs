//! Argo Workflows `CronWorkflow` (argoproj.io/v1alpha1): the pods of each run, a `Workflow`
//! of `spec.workflowSpec`.
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
    id: "cron-workflow",
    project: "Argo Workflows",
    sources: &[
        "argoproj/argo-workflows pkg/apis/workflow/v1alpha1/workflow_types.go",
        "argoproj/argo-workflows workflow/controller/workflowpod.go",
    ],
    declaration: argo_workflow!("CronWorkflow", "spec.workflowSpec"),
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    super::workflow::referenced(h, "spec.workflowSpec")
}
