//! OpenShift Logging `ClusterLogging` (logging.openshift.io/v1, Logging 5.x; the v1 API was
//! removed in Logging 6): the log collector, a DaemonSet, and the Elasticsearch log store.
//!
//! - The collector's `nodeSelector`, `tolerations` and `resources` are in `spec.collection`
//!   (`CollectionSpec` inlines `CollectorSpec`); the deprecated
//!   `spec.collection.logs.fluentd` ones win over them when written (the operator migrates
//!   them: internal/migrations/clusterlogging/migrate_collection.go).
//! - The operator adds its default tolerations (`node-role.kubernetes.io/master` and
//!   `node.kubernetes.io/disk-pressure`, both `Exists`/`NoSchedule`) before the user's, and
//!   `kubernetes.io/os: linux` to the node selector (internal/collector/collector.go,
//!   internal/constants/constants.go `DefaultTolerations`, internal/utils/utils.go
//!   `EnsureLinuxNodeSelector`).
//! - The log store's pods: `spec.logStore.elasticsearch` (`nodeSelector`, `tolerations`,
//!   `resources`, `nodeCount`).
//!
//! Types: openshift/cluster-logging-operator api/logging/v1/clusterlogging_types.go (at
//! f52d0c84af^, before its removal).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "cluster-logging",
    project: "OpenShift Logging 5",
    sources: &[
        "openshift/cluster-logging-operator api/logging/v1/clusterlogging_types.go (Logging 5.x)",
        "openshift/cluster-logging-operator internal/collector/collector.go",
        "openshift/cluster-logging-operator internal/migrations/clusterlogging/migrate_collection.go",
    ],
    declaration: r#"
kind: ClusterLogging
apiVersion: logging.openshift.io/*
roles:
  - name: collector
    at: spec.collection
    optional: true
    tolerations: [tolerations, logs.fluentd.tolerations]
    nodeSelector: [nodeSelector, logs.fluentd.nodeSelector]
    resources: [resources, logs.fluentd.resources]
    replicas: perNode
  - name: elasticsearch
    at: spec.logStore.elasticsearch
    optional: true
    tolerations: tolerations
    nodeSelector: nodeSelector
    resources: resources
    replicas: nodeCount
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    if h.role != "collector" {
        return Synth::default();
    }
    collector(
        h,
        "openshift/cluster-logging-operator internal/collector/collector.go",
    )
}

/// The collector's defaults, shared with `ClusterLogForwarder`.
pub(super) fn collector(h: &Hook<'_, '_>, source: &str) -> Synth {
    let mut s = Synth {
        span: h.at.map(|n| n.span),
        ..Synth::default()
    };
    s.tolerations.push(toleration(
        "node-role.kubernetes.io/master",
        "Exists",
        "",
        "NoSchedule",
    ));
    s.tolerations.push(toleration(
        "node.kubernetes.io/disk-pressure",
        "Exists",
        "",
        "NoSchedule",
    ));
    s.notes.push(format!(
        "tolerations `node-role.kubernetes.io/master:NoSchedule` and `node.kubernetes.io/disk-pressure:NoSchedule` (`Exists`): the operator's defaults, before the resource's own ({source}, `DefaultTolerations`)"
    ));
    s.notes.push(format!(
        "nodeSelector `kubernetes.io/os: linux`, added to the resource's ({source}, `EnsureLinuxNodeSelector`; on every Linux node, not judged)"
    ));
    s
}
