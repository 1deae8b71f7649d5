//! OpenShift Logging `ClusterLogForwarder` (observability.openshift.io/v1, Logging 6): its
//! collector, a DaemonSet, placed by `spec.collector` (`nodeSelector`, `tolerations`,
//! `affinity`, `resources`; openshift/cluster-logging-operator
//! api/observability/v1/clusterlogforwarder_types.go `CollectorSpec`). The operator adds its
//! default tolerations and `kubernetes.io/os: linux` as for `ClusterLogging`
//! (internal/collector/collector.go). (With the annotation
//! `observability.openshift.io/deploy-as-deployment` and only a receiver input, the collector
//! is a Deployment instead: internal/api/observability/forwarder.go `DeployAsDeployment`; not
//! modelled.)

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "cluster-log-forwarder",
    project: "OpenShift Logging 6",
    sources: &[
        "openshift/cluster-logging-operator api/observability/v1/clusterlogforwarder_types.go",
        "openshift/cluster-logging-operator internal/collector/collector.go",
    ],
    declaration: r#"
kind: ClusterLogForwarder
apiVersion: observability.openshift.io/*
roles:
  - name: collector
    at: spec.collector
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    resources: resources
    replicas: perNode
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    super::cluster_logging::collector(
        h,
        "openshift/cluster-logging-operator internal/collector/collector.go",
    )
}
