//! Prometheus Operator `Prometheus` (monitoring.coreos.com/v1): `spec.replicas` pods (1 when
//! unset) placed by `spec.tolerations`, `spec.nodeSelector`, `spec.affinity`,
//! `spec.topologySpreadConstraints` and `spec.priorityClassName`, named as in a pod's spec,
//! with `spec.resources` (prometheus-operator/prometheus-operator
//! pkg/apis/monitoring/v1/prometheus_types.go).
//! A Prometheus with `spec.shards` runs that many StatefulSets of `replicas` pods each.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "prometheus",
    project: "Prometheus Operator",
    sources: &[
        "prometheus-operator/prometheus-operator pkg/apis/monitoring/v1/prometheus_types.go",
    ],
    declaration: r#"
kind: Prometheus
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
