//! `JobSet` (jobset.x-k8s.io): the pods of each `spec.replicatedJobs[]` item's Job template,
//! `spec.replicatedJobs[].template.spec.template.spec` (a `batchv1.JobTemplateSpec`:
//! kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go). Kueue builds its Workload's
//! pod sets from them (kubernetes-sigs/kueue pkg/controller/jobs/jobset `PodSets`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "jobset",
    project: "JobSet",
    sources: &["kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go"],
    declaration: r#"
kind: JobSet
apiVersion: jobset.x-k8s.io/*
roles:
  - name: replicatedJob
    at: spec.replicatedJobs[*].template.spec.template.spec
    namedBy: name
    optional: true
    podSpec: .
"#,
    synth: None,
};
