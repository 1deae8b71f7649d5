//! ScyllaDB `ScyllaCluster` (scylla.scylladb.com/v1): one StatefulSet per rack of
//! `spec.datacenter.racks[]`, `members` pods placed by the rack's `placement`
//! (`nodeAffinity`, `podAffinity`, `podAntiAffinity`, `tolerations`), with the rack's
//! `resources` and `agentResources` (scylladb/scylla-operator pkg/api/scylla/v1/types_cluster.go
//! `RackSpec`, `PlacementSpec`; pkg/controller/scylladbdatacenter/resource.go puts them in the
//! pods).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "scylla-cluster",
    project: "Scylla Operator",
    sources: &[
        "scylladb/scylla-operator pkg/api/scylla/v1/types_cluster.go",
        "scylladb/scylla-operator pkg/controller/scylladbdatacenter/resource.go",
    ],
    declaration: r#"
kind: ScyllaCluster
apiVersion: scylla.scylladb.com/*
roles:
  - name: rack
    at: spec.datacenter.racks[*]
    namedBy: name
    tolerations: placement.tolerations
    nodeAffinity: placement.nodeAffinity
    podAffinity: placement.podAffinity
    podAntiAffinity: placement.podAntiAffinity
    resources: [resources, agentResources]
    replicas: members
"#,
    synth: None,
};
