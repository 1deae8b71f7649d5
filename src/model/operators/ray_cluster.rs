//! KubeRay `RayCluster` (ray.io/v1): the Ray head pod (`headGroupSpec.template`) and the
//! workers of each `workerGroupSpecs[]` item (`template`, `replicas` of them), both
//! `corev1.PodTemplateSpec`, under `spec` (ray-project/kuberay
//! ray-operator/apis/ray/v1/raycluster_types.go; rayjob_types.go, rayservice_types.go; a
//! RayJob's submitter pod is `spec.submitterPodTemplate`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "ray-cluster",
    project: "KubeRay",
    sources: &["ray-project/kuberay ray-operator/apis/ray/v1/raycluster_types.go"],
    declaration: r#"
kind: RayCluster
apiVersion: ray.io/*
roles:
  - name: head
    at: spec.headGroupSpec.template.spec
    optional: true
    podSpec: .
    replicas: 1
  - name: workerGroup
    at: spec.workerGroupSpecs[*].template.spec
    namedBy: groupName
    optional: true
    podSpec: .
"#,
    synth: None,
};
