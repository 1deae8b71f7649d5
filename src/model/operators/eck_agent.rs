//! Elastic Cloud on Kubernetes `Agent` (agent.k8s.elastic.co/v1alpha1): a DaemonSet
//! (`spec.daemonSet.podTemplate`, one pod per node), a Deployment (`spec.deployment`) or a
//! StatefulSet (`spec.statefulSet`) with `replicas`; each `podTemplate` a
//! `corev1.PodTemplateSpec` (elastic/cloud-on-k8s pkg/apis/agent/v1alpha1/agent_types.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "eck-agent",
    project: "Elastic Cloud on Kubernetes",
    sources: &["elastic/cloud-on-k8s pkg/apis/agent/v1alpha1/agent_types.go"],
    declaration: r#"
kind: Agent
apiVersion: agent.k8s.elastic.co/*
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
  - name: statefulSet
    at: spec.statefulSet
    optional: true
    podSpec: podTemplate.spec
    replicas: replicas
"#,
    synth: None,
};
