//! Datadog `DatadogAgent` (datadoghq.com/v2alpha1): the node Agent (a DaemonSet: one pod per
//! node), the Cluster Agent and the Cluster Checks Runner (Deployments), each placed by its
//! `spec.override.<component>` (`DatadogAgentComponentOverride`: `tolerations`,
//! `nodeSelector`, `affinity`, `priorityClassName`, `runtimeClassName`, `replicas`,
//! `containers.<name>.resources`; DataDog/datadog-operator
//! api/datadoghq/v2alpha1/datadogagent_types.go). The operator appends the override's
//! tolerations and merges its node selector into its defaults
//! (internal/controller/datadogagent/override/podtemplatespec.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "datadog-agent",
    project: "Datadog Operator",
    sources: &[
        "DataDog/datadog-operator api/datadoghq/v2alpha1/datadogagent_types.go",
        "DataDog/datadog-operator internal/controller/datadogagent/override/podtemplatespec.go",
    ],
    declaration: r#"
kind: DatadogAgent
apiVersion: datadoghq.com/*
roles:
  - name: nodeAgent
    at: spec.override.nodeAgent
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    priorityClassName: priorityClassName
    runtimeClassName: runtimeClassName
    containers: containers
    replicas: perNode
  - name: clusterAgent
    at: spec.override.clusterAgent
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    priorityClassName: priorityClassName
    runtimeClassName: runtimeClassName
    containers: containers
    replicas: replicas
    defaultReplicas: 1
  - name: clusterChecksRunner
    at: spec.override.clusterChecksRunner
    optional: true
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    priorityClassName: priorityClassName
    runtimeClassName: runtimeClassName
    containers: containers
    replicas: replicas
"#,
    synth: None,
};
