//! Rook `CephCluster` (ceph.rook.io/v1): the mon, mgr and OSD pods.
//!
//! `spec.placement.<role>` holds `nodeAffinity`, `podAffinity`, `podAntiAffinity`,
//! `tolerations` and `topologySpreadConstraints` directly (rook/rook
//! pkg/apis/ceph.rook.io/v1/types.go `Placement`). Rook merges `placement.all` into each role
//! (pkg/apis/ceph.rook.io/v1/placement.go `GetMonPlacement`… = `All().Merge(p[role])`):
//! the role's `nodeAffinity`, `podAffinity`, `podAntiAffinity` and
//! `topologySpreadConstraints` replace `all`'s when written, its tolerations are appended to
//! `all`'s (`Merge`, `mergeTolerations`); `ApplyToPodSpec` puts the result in the pod. The
//! OSD placement so merged decides which nodes get OSDs (pkg/operator/ceph/cluster/osd
//! `GetValidNodes`). Priority classes come from `spec.priorityClassNames.<role>` or `.all`
//! (priorityclasses.go), resources from `spec.resources.<role>`.
//!
//! Counts: `spec.mon.count` mons (3 by default: pkg/operator/ceph/cluster/mon/mon.go
//! `DefaultMonCount`), `spec.mgr.count` mgrs (1 when unset: mgr/mgr.go `getReplicas`). Mons
//! require anti-affinity on the hostname unless `spec.mon.allowMultiplePerNode` (and no host
//! network: mon.go `requiredDuringScheduling`); mgrs do when there is more than one and
//! `spec.mgr.allowMultiplePerNode` is not set (mgr/spec.go, `SetNodeAntiAffinityForPod`).
//! Placement keys of other daemons (`prepareosd`, `cleanup`, `crashcollector`, `arbiter`, …)
//! are not modelled.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "ceph-cluster",
    project: "Rook",
    sources: &[
        "rook/rook pkg/apis/ceph.rook.io/v1/placement.go",
        "rook/rook pkg/apis/ceph.rook.io/v1/types.go",
        "rook/rook pkg/operator/ceph/cluster/mon/mon.go",
        "rook/rook pkg/operator/ceph/cluster/mgr/spec.go",
    ],
    declaration: r#"
kind: CephCluster
apiVersion: ceph.rook.io/*
roles:
  - name: mon
    at: spec.placement.mon
    tolerations: {from: [/spec.placement.all.tolerations, tolerations], merge: append}
    nodeAffinity: [/spec.placement.all.nodeAffinity, nodeAffinity]
    podAffinity: [/spec.placement.all.podAffinity, podAffinity]
    podAntiAffinity: [/spec.placement.all.podAntiAffinity, podAntiAffinity]
    topologySpreadConstraints: [/spec.placement.all.topologySpreadConstraints, topologySpreadConstraints]
    priorityClassName: [/spec.priorityClassNames.all, /spec.priorityClassNames.mon]
    resources: /spec.resources.mon
    replicas: /spec.mon.count
    defaultReplicas: 3
  - name: mgr
    at: spec.placement.mgr
    tolerations: {from: [/spec.placement.all.tolerations, tolerations], merge: append}
    nodeAffinity: [/spec.placement.all.nodeAffinity, nodeAffinity]
    podAffinity: [/spec.placement.all.podAffinity, podAffinity]
    podAntiAffinity: [/spec.placement.all.podAntiAffinity, podAntiAffinity]
    topologySpreadConstraints: [/spec.placement.all.topologySpreadConstraints, topologySpreadConstraints]
    priorityClassName: [/spec.priorityClassNames.all, /spec.priorityClassNames.mgr]
    resources: /spec.resources.mgr
    replicas: /spec.mgr.count
    defaultReplicas: 1
  - name: osd
    at: spec.placement.osd
    tolerations: {from: [/spec.placement.all.tolerations, tolerations], merge: append}
    nodeAffinity: [/spec.placement.all.nodeAffinity, nodeAffinity]
    podAffinity: [/spec.placement.all.podAffinity, podAffinity]
    podAntiAffinity: [/spec.placement.all.podAntiAffinity, podAntiAffinity]
    topologySpreadConstraints: [/spec.placement.all.topologySpreadConstraints, topologySpreadConstraints]
    priorityClassName: [/spec.priorityClassNames.all, /spec.priorityClassNames.osd]
    resources: /spec.resources.osd
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: anchor(h, &["spec.placement.all"]),
        ..Synth::default()
    };
    let host_network = text(h.get("spec.network.provider")) == Some("host")
        || truthy(h.get("spec.network.hostNetwork")) == Some(true);
    match h.role {
        "mon" => {
            s.span = anchor(h, &["spec.mon.count", "spec.mon"]).or(s.span);
            if host_network || truthy(h.get("spec.mon.allowMultiplePerNode")) != Some(true) {
                s.one_per_node = true;
                s.notes.push("one mon per node: required anti-affinity on `kubernetes.io/hostname` unless `spec.mon.allowMultiplePerNode` (rook/rook pkg/operator/ceph/cluster/mon/mon.go `requiredDuringScheduling`)".to_string());
            }
        }
        "mgr" => {
            s.span = anchor(h, &["spec.mgr.count", "spec.mgr"]).or(s.span);
            if int(h.get("spec.mgr.count")).is_some_and(|n| n > 1)
                && truthy(h.get("spec.mgr.allowMultiplePerNode")) != Some(true)
            {
                s.one_per_node = true;
                s.notes.push("one mgr per node: required anti-affinity on `kubernetes.io/hostname` with more than one mgr unless `spec.mgr.allowMultiplePerNode` (rook/rook pkg/operator/ceph/cluster/mgr/spec.go)".to_string());
            }
        }
        _ => {}
    }
    if h.get("spec.placement.all").is_some() {
        s.notes.push(format!(
            "`spec.placement.all` merged in: its tolerations before the {}'s, its affinities and spread constraints unless the {} writes its own (rook/rook pkg/apis/ceph.rook.io/v1/placement.go `Merge`)",
            h.role, h.role
        ));
    }
    s
}
