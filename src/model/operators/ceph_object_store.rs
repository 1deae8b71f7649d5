//! Rook `CephObjectStore` (ceph.rook.io/v1): the RGW gateway pods, `spec.gateway.instances` of
//! them (1 when unset or less: pkg/operator/ceph/object/rgw.go `startRGWPods`), placed by
//! `spec.gateway.placement` (`Placement`: `nodeAffinity`, `podAffinity`, `podAntiAffinity`,
//! `tolerations`, `topologySpreadConstraints`; rook/rook pkg/apis/ceph.rook.io/v1/types.go
//! `GatewaySpec`, placement.go `ApplyToPodSpec`), with the gateway's `priorityClassName` and
//! `resources`. Rook then adds anti-affinity among the gateways on `kubernetes.io/hostname`
//! (pkg/operator/ceph/object/spec.go, pkg/operator/k8sutil/pod.go
//! `SetNodeAntiAffinityForPod`): required with host networking (`spec.gateway.hostNetwork`,
//! else the CephCluster's network), preferred otherwise.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "ceph-object-store",
    project: "Rook",
    sources: &[
        "rook/rook pkg/apis/ceph.rook.io/v1/types.go",
        "rook/rook pkg/apis/ceph.rook.io/v1/placement.go",
        "rook/rook pkg/operator/ceph/object/spec.go",
        "rook/rook pkg/operator/ceph/object/rgw.go",
    ],
    declaration: r#"
kind: CephObjectStore
apiVersion: ceph.rook.io/*
roles:
  - name: rgw
    at: spec.gateway.placement
    tolerations: tolerations
    nodeAffinity: nodeAffinity
    podAffinity: podAffinity
    podAntiAffinity: podAntiAffinity
    topologySpreadConstraints: topologySpreadConstraints
    priorityClassName: /spec.gateway.priorityClassName
    resources: /spec.gateway.resources
    replicas: /spec.gateway.instances
    defaultReplicas: 1
"#,
    synth: Some(synth),
};

const SOURCE: &str = "rook/rook pkg/operator/k8sutil/pod.go `SetNodeAntiAffinityForPod`";

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: anchor(h, &["spec.gateway.hostNetwork", "spec.gateway.instances"]),
        ..Synth::default()
    };
    if truthy(h.get("spec.gateway.hostNetwork")) == Some(true) {
        s.notes.push(format!(
            "required pod anti-affinity among the gateways on `kubernetes.io/hostname`: host networking ({SOURCE})"
        ));
        s.one_per_node = true;
    } else {
        s.notes.push(format!(
            "preferred pod anti-affinity among the gateways on `kubernetes.io/hostname` (required when the CephCluster uses host networking) ({SOURCE})"
        ));
    }
    s
}
