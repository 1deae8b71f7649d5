//! KubeRay `RayCronJob` (ray.io/v1): the pods of each `RayJob` it starts from
//! `spec.jobTemplate`, a `RayJobSpec` (ray-project/kuberay
//! ray-operator/apis/ray/v1/raycronjob_types.go), placed as a `RayJob`'s (see `ray_job.rs`):
//! the Ray head pod, the workers of each `workerGroupSpecs[]` item and the submitter pod.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "ray-cron-job",
    project: "KubeRay",
    sources: &[
        "ray-project/kuberay ray-operator/apis/ray/v1/raycronjob_types.go",
        "ray-project/kuberay ray-operator/apis/ray/v1/raycluster_types.go",
    ],
    declaration: r#"
kind: RayCronJob
apiVersion: ray.io/*
roles:
  - name: head
    at: spec.jobTemplate.rayClusterSpec.headGroupSpec.template.spec
    optional: true
    podSpec: .
    replicas: 1
  - name: workerGroup
    at: spec.jobTemplate.rayClusterSpec.workerGroupSpecs[*].template.spec
    namedBy: groupName
    optional: true
    podSpec: .
  - name: submitter
    at: spec.jobTemplate.submitterPodTemplate.spec
    optional: true
    podSpec: .
    replicas: 1
"#,
    synth: None,
};
