//! Istio `IstioOperator` (install.istio.io/v1alpha1): the control plane (`pilot`), the node
//! agents (`cni`, `ztunnel`, DaemonSets: one pod per node) and the gateways of
//! `ingressGateways[]` and `egressGateways[]`. Each component's `k8s` block
//! (`KubernetesResources`: `nodeSelector`, `tolerations`, `affinity`, `priorityClassName`,
//! `replicaCount`, `resources`; istio/istio operator/pkg/apis/types.go) is a strategic merge
//! patch on the chart's Deployment or DaemonSet (operator/pkg/render/postprocess.go): a
//! written `tolerations` replaces the chart's, `nodeSelector` is merged into it. The `cni` and
//! `ztunnel` charts tolerate every `NoSchedule` and `NoExecute` taint and `CriticalAddonsOnly`
//! (manifests/charts/istio-cni/values.yaml, manifests/charts/ztunnel/values.yaml). A component
//! with `enabled: false` makes no pods. (`values:` overrides of the charts are not read.)

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "istio-operator",
    project: "Istio",
    sources: &[
        "istio/istio operator/pkg/apis/types.go",
        "istio/istio operator/pkg/render/postprocess.go",
        "istio/istio manifests/charts/istio-cni/values.yaml",
    ],
    declaration: r#"
kind: IstioOperator
apiVersion: install.istio.io/*
roles:
  - name: pilot
    at: spec.components.pilot
    enabled: enabled
    tolerations: k8s.tolerations
    nodeSelector: k8s.nodeSelector
    affinity: k8s.affinity
    priorityClassName: k8s.priorityClassName
    resources: k8s.resources
    replicas: k8s.replicaCount
    defaultReplicas: 1
  - name: cni
    at: spec.components.cni
    optional: true
    enabled: enabled
    tolerations: k8s.tolerations
    nodeSelector: k8s.nodeSelector
    affinity: k8s.affinity
    priorityClassName: k8s.priorityClassName
    resources: k8s.resources
    replicas: perNode
  - name: ztunnel
    at: spec.components.ztunnel
    optional: true
    enabled: enabled
    tolerations: k8s.tolerations
    nodeSelector: k8s.nodeSelector
    affinity: k8s.affinity
    priorityClassName: k8s.priorityClassName
    resources: k8s.resources
    replicas: perNode
  - name: ingress gateway
    at: spec.components.ingressGateways[*]
    namedBy: name
    enabled: enabled
    tolerations: k8s.tolerations
    nodeSelector: k8s.nodeSelector
    affinity: k8s.affinity
    priorityClassName: k8s.priorityClassName
    resources: k8s.resources
    replicas: k8s.replicaCount
    defaultReplicas: 1
  - name: egress gateway
    at: spec.components.egressGateways[*]
    namedBy: name
    enabled: enabled
    tolerations: k8s.tolerations
    nodeSelector: k8s.nodeSelector
    affinity: k8s.affinity
    priorityClassName: k8s.priorityClassName
    resources: k8s.resources
    replicas: k8s.replicaCount
    defaultReplicas: 1
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: h.at.map(|n| n.span),
        ..Synth::default()
    };
    if !matches!(h.role, "cni" | "ztunnel") || h.here("k8s.tolerations").is_some() {
        return s;
    }
    for (key, effect) in [
        ("", "NoSchedule"),
        ("CriticalAddonsOnly", ""),
        ("", "NoExecute"),
    ] {
        s.tolerations.push(toleration(key, "Exists", "", effect));
    }
    s.notes.push(format!(
        "tolerations of every `NoSchedule` and `NoExecute` taint and `CriticalAddonsOnly`: the {} chart's default (istio/istio manifests/charts/{}/values.yaml)",
        h.role,
        if h.role == "cni" { "istio-cni" } else { "ztunnel" }
    ));
    s
}
