//! Volcano `Job` (batch.volcano.sh/v1alpha1): one role per task of `spec.tasks[]`, its
//! `replicas` pods made from the task's `template`, a `v1.PodTemplateSpec` (volcano-sh/apis
//! pkg/apis/batch/v1alpha1/job.go `TaskSpec`). The job controller gives a pod whose template
//! names no priority class the job's `spec.priorityClassName` (volcano-sh/volcano
//! pkg/controllers/job/job_controller_util.go `createJobPod`). The admission webhook names an
//! unnamed task `default<index>` but does not default `replicas`
//! (pkg/webhooks/admission/jobs/mutate/mutate_job.go `mutateSpec`): a task that leaves it out
//! makes no pods, and its count is not known here.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "volcano-job",
    project: "Volcano",
    sources: &[
        "volcano-sh/apis pkg/apis/batch/v1alpha1/job.go",
        "volcano-sh/volcano pkg/controllers/job/job_controller_util.go",
    ],
    declaration: volcano_job!("Job", "batch.volcano.sh", "spec"),
    synth: None,
};
