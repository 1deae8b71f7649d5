//! Elastic Cloud on Kubernetes `Beat` (beat.k8s.elastic.co/v1beta1): a DaemonSet
//! (`spec.daemonSet.podTemplate`, one pod per node) or a Deployment
//! (`spec.deployment.podTemplate`, `spec.deployment.replicas`); each `podTemplate` a
//! `corev1.PodTemplateSpec` (elastic/cloud-on-k8s pkg/apis/beat/v1beta1/beat_types.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "eck-beat",
    project: "Elastic Cloud on Kubernetes",
    sources: &["elastic/cloud-on-k8s pkg/apis/beat/v1beta1/beat_types.go"],
    declaration: r#"
kind: Beat
apiVersion: beat.k8s.elastic.co/*
roles:
  - name: daemonSet
    at: spec.daemonSet
    optional: true
    podSpec: podTemplate.spec
    replicas: perNode
  - name: deployment
    at: spec.deployment
    optional: true
    podSpec: podTemplate.spec
    replicas: replicas
"#,
    synth: None,
};
