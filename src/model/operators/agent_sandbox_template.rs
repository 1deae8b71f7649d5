//! Agent Sandbox `SandboxTemplate` (extensions.agents.x-k8s.io/v1alpha1): the pod of each
//! sandbox a `SandboxClaim` or `SandboxWarmPool` makes from it, `spec.podTemplate.spec`, a
//! `corev1.PodSpec` (kubernetes-sigs/agent-sandbox
//! extensions/api/v1alpha1/sandboxtemplate_types.go). How many are made is the claims' and
//! warm pools' business, not known here.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "agent-sandbox-template",
    project: "Agent Sandbox",
    sources: &[
        "kubernetes-sigs/agent-sandbox extensions/api/v1alpha1/sandboxtemplate_types.go",
        "kubernetes-sigs/agent-sandbox api/v1alpha1/sandbox_types.go",
    ],
    declaration: r#"
kind: SandboxTemplate
apiVersion: extensions.agents.x-k8s.io/*
roles:
  - name: ""
    at: spec.podTemplate.spec
    podSpec: .
"#,
    synth: None,
};
