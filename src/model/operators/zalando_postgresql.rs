//! Zalando Postgres Operator `postgresql` (acid.zalan.do/v1): the Spilo pods of the database
//! and its connection poolers (zalando/postgres-operator
//! pkg/apis/acid.zalan.do/v1/postgresql_type.go `PostgresSpec`).
//!
//! - `postgres`: `spec.numberOfInstances` pods of a StatefulSet, with `spec.tolerations`,
//!   `spec.nodeAffinity` (a `NodeAffinity`, the pods' `affinity.nodeAffinity`),
//!   `spec.topologySpreadConstraints`, `spec.podPriorityClassName`, `spec.resources` and the
//!   `sidecars` and `initContainers` (pkg/cluster/k8sres.go `generateStatefulSet`,
//!   `generatePodTemplate`).
//! - `connection pooler`: a Deployment when `enableConnectionPooler` is true, or when it is
//!   unset and `connectionPooler` is written; `replica connection pooler` when
//!   `enableReplicaConnectionPooler` is true (pkg/cluster/connection_pooler.go
//!   `needMasterConnectionPoolerWorker`, `needReplicaConnectionPoolerWorker`). Each has
//!   `connectionPooler.numberOfInstances` pods (the operator's
//!   `connection_pooler_number_of_instances`, 2 by default, when unset:
//!   pkg/util/config/config.go) with the cluster's tolerations and node affinity
//!   (`generateConnectionPoolerPodTemplate`).
//!
//! The logical backup job (`enableLogicalBackup`) is not modelled: its pod takes the cluster's
//! tolerations but not its node affinity, only the operator's (k8sres.go
//! `generateLogicalBackupJob`), so what pins it is no field of the resource. The operator's own
//! configuration is not read: its `toleration` applies when
//! `spec.tolerations` is empty, its `node_readiness_label` adds a required node-affinity
//! term, `enable_pod_antiaffinity` (off by default) adds anti-affinity among the pods, and its
//! default resources fill `spec.resources`.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "zalando-postgresql",
    project: "Zalando Postgres Operator",
    sources: &[
        "zalando/postgres-operator pkg/apis/acid.zalan.do/v1/postgresql_type.go",
        "zalando/postgres-operator pkg/cluster/k8sres.go",
        "zalando/postgres-operator pkg/cluster/connection_pooler.go",
        "zalando/postgres-operator pkg/util/config/config.go",
    ],
    declaration: r#"
kind: postgresql
apiVersion: acid.zalan.do/*
roles:
  - name: postgres
    at: spec
    tolerations: tolerations
    nodeAffinity: nodeAffinity
    topologySpreadConstraints: topologySpreadConstraints
    priorityClassName: podPriorityClassName
    resources: resources
    containers: [sidecars, initContainers]
    replicas: numberOfInstances
  - name: connection pooler
    at: spec
    if: [enableConnectionPooler, connectionPooler]
    enabled: enableConnectionPooler
    tolerations: tolerations
    nodeAffinity: nodeAffinity
    resources: connectionPooler.resources
    replicas: connectionPooler.numberOfInstances
    defaultReplicas: 2
  - name: replica connection pooler
    at: spec
    if: enableReplicaConnectionPooler
    enabled: enableReplicaConnectionPooler
    tolerations: tolerations
    nodeAffinity: nodeAffinity
    resources: connectionPooler.resources
    replicas: connectionPooler.numberOfInstances
    defaultReplicas: 2
"#,
    synth: None,
};
