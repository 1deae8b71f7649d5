//! Rook `CephFilesystem` (ceph.rook.io/v1): the MDS pods, one Deployment of one pod per
//! daemon, placed by `spec.metadataServer.placement` (`Placement`: `nodeAffinity`,
//! `podAffinity`, `podAntiAffinity`, `tolerations`, `topologySpreadConstraints`; rook/rook
//! pkg/apis/ceph.rook.io/v1/types.go `MetadataServerSpec`, placement.go `ApplyToPodSpec`,
//! pkg/operator/ceph/file/mds/spec.go), with its `priorityClassName` and `resources`. Rook runs
//! `activeCount` daemons, twice as many with `activeStandby: true` (pkg/operator/ceph/file/mds/mds.go);
//! a count that is the product of two fields is not declarable, so `activeCount` is the count
//! here (a lower bound) and the doubling is noted.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "ceph-filesystem",
    project: "Rook",
    sources: &[
        "rook/rook pkg/apis/ceph.rook.io/v1/types.go",
        "rook/rook pkg/apis/ceph.rook.io/v1/placement.go",
        "rook/rook pkg/operator/ceph/file/mds/spec.go",
        "rook/rook pkg/operator/ceph/file/mds/mds.go",
    ],
    declaration: r#"
kind: CephFilesystem
apiVersion: ceph.rook.io/*
roles:
  - name: mds
    at: spec.metadataServer.placement
    tolerations: tolerations
    nodeAffinity: nodeAffinity
    podAffinity: podAffinity
    podAntiAffinity: podAntiAffinity
    topologySpreadConstraints: topologySpreadConstraints
    priorityClassName: /spec.metadataServer.priorityClassName
    resources: /spec.metadataServer.resources
    replicas: /spec.metadataServer.activeCount
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: anchor(h, &["spec.metadataServer.activeStandby"]),
        ..Synth::default()
    };
    if truthy(h.get("spec.metadataServer.activeStandby")) == Some(true) {
        s.notes.push(
            "twice `activeCount` MDS pods: each active daemon has a standby (`activeStandby: true`; rook/rook pkg/operator/ceph/file/mds/mds.go); the count shown is the active ones"
                .to_string(),
        );
    }
    s
}
