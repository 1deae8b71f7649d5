//! OpenTelemetry Operator `OpenTelemetryCollector` (opentelemetry.io/v1beta1, v1alpha1): the
//! collector's pods, made as `spec.mode` says (open-telemetry/opentelemetry-operator
//! apis/v1beta1/opentelemetrycollector_types.go, mode.go): a Deployment (the default) or a
//! StatefulSet of `spec.replicas` pods (1 when unset: apis/v1beta1/collector_webhook.go
//! `Default`), a DaemonSet (one pod per node), or `sidecar` (a container injected into other
//! pods: no pods of its own). Their placement is the common fields `tolerations`,
//! `nodeSelector`, `affinity`, `priorityClassName` and `resources` (apis/v1beta1/common.go
//! `OpenTelemetryCommonFields`); `topologySpreadConstraints` applies to the Deployment and
//! StatefulSet only. The target allocator (`spec.targetAllocator`, when `enabled`) is a
//! Deployment of its own `replicas` (1 when unset), placed by its own fields
//! (`TargetAllocatorEmbedded`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "opentelemetry-collector",
    project: "OpenTelemetry Operator",
    sources: &[
        "open-telemetry/opentelemetry-operator apis/v1beta1/opentelemetrycollector_types.go",
        "open-telemetry/opentelemetry-operator apis/v1beta1/common.go",
        "open-telemetry/opentelemetry-operator apis/v1beta1/collector_webhook.go",
    ],
    declaration: r#"
kind: OpenTelemetryCollector
apiVersion: opentelemetry.io/*
roles:
  - name: collector
    at: spec
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    topologySpreadConstraints: topologySpreadConstraints
    priorityClassName: priorityClassName
    resources: resources
    containers: [additionalContainers, initContainers]
    replicas: replicas
    defaultReplicas: 1
  - name: collector
    at: spec
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    priorityClassName: priorityClassName
    resources: resources
    containers: [additionalContainers, initContainers]
    replicas: perNode
  - name: target allocator
    at: spec.targetAllocator
    if: enabled
    enabled: enabled
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    topologySpreadConstraints: topologySpreadConstraints
    resources: resources
    replicas: replicas
    defaultReplicas: 1
"#,
    synth: Some(synth),
};

/// The collector's two roles are one: a DaemonSet's in `daemonset` mode, a Deployment's or
/// StatefulSet's otherwise; no pods of its own in `sidecar` mode.
fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth::default();
    if h.role != "collector" {
        return s;
    }
    let mode = text(h.get("spec.mode")).unwrap_or("deployment");
    let per_node = h
        .spec
        .role
        .as_ref()
        .is_some_and(|r| r.pods == crate::model::scheduling::PodCount::PerNode);
    s.none = mode == "sidecar" || per_node != (mode == "daemonset");
    s
}
