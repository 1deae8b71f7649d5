//! Volcano `CronJob` (batch.volcano.sh/v1alpha1): the pods of each `Job` it starts from
//! `spec.jobTemplate.spec` (volcano-sh/apis pkg/apis/batch/v1alpha1/job.go `CronJobSpec`,
//! `JobTemplateSpec`), placed as a `Job`'s (see `volcano_job.rs`): one role per task.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "volcano-cron-job",
    project: "Volcano",
    sources: &[
        "volcano-sh/apis pkg/apis/batch/v1alpha1/job.go",
        "volcano-sh/volcano pkg/controllers/job/job_controller_util.go",
    ],
    declaration: volcano_job!("CronJob", "batch.volcano.sh", "spec.jobTemplate.spec"),
    synth: None,
};
