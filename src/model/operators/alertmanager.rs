//! Prometheus Operator `Alertmanager` (monitoring.coreos.com/v1): `spec.replicas` pods (1 when
//! unset) placed by `spec.tolerations`, `spec.nodeSelector`, `spec.affinity`,
//! `spec.topologySpreadConstraints` and `spec.priorityClassName`, named as in a pod's spec,
//! with `spec.resources` (prometheus-operator/prometheus-operator
//! pkg/apis/monitoring/v1/alertmanager_types.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "alertmanager",
    project: "Prometheus Operator",
    sources: &[
        "prometheus-operator/prometheus-operator pkg/apis/monitoring/v1/alertmanager_types.go",
    ],
    declaration: r#"
kind: Alertmanager
apiVersion: monitoring.coreos.com/*
roles:
  - name: ""
    at: spec
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    topologySpreadConstraints: topologySpreadConstraints
    priorityClassName: priorityClassName
    resources: resources
    containers: [containers, initContainers]
    replicas: replicas
    defaultReplicas: 1
"#,
    synth: None,
};
