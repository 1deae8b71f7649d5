//! Volcano `JobTemplate` (flow.volcano.sh/v1alpha1): the `JobSpec` a `JobFlow` makes its
//! `Job`s from (volcano-sh/apis pkg/apis/flow/v1alpha1/jobtemplate_types.go), placed as a
//! `Job`'s (see `volcano_job.rs`): one role per task.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "volcano-job-template",
    project: "Volcano",
    sources: &[
        "volcano-sh/apis pkg/apis/flow/v1alpha1/jobtemplate_types.go",
        "volcano-sh/apis pkg/apis/batch/v1alpha1/job.go",
        "volcano-sh/volcano pkg/controllers/job/job_controller_util.go",
    ],
    declaration: volcano_job!("JobTemplate", "flow.volcano.sh", "spec"),
    synth: None,
};
