//! Agent Sandbox `Sandbox` (agents.x-k8s.io/v1alpha1): one pod made from
//! `spec.podTemplate.spec`, a `corev1.PodSpec`, while `spec.replicas` is 1 (its default; 0
//! stops it) (kubernetes-sigs/agent-sandbox api/v1alpha1/sandbox_types.go `SandboxSpec`,
//! `PodTemplate`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "agent-sandbox",
    project: "Agent Sandbox",
    sources: &["kubernetes-sigs/agent-sandbox api/v1alpha1/sandbox_types.go"],
    declaration: r#"
kind: Sandbox
apiVersion: agents.x-k8s.io/*
roles:
  - name: ""
    at: spec.podTemplate.spec
    podSpec: .
    replicas: /spec.replicas
    defaultReplicas: 1
"#,
    synth: None,
};
