//! Confluent for Kubernetes `ControlCenter` (platform.confluent.io/v1beta1): Control Center, `spec.replicas`
//! pods placed by `spec.podTemplate`, one per node with `spec.oneReplicaPerNode: true`, as a
//! CFK `Kafka`'s (see `confluent_kafka.rs`; the Helm chart's
//! crds/platform.confluent.io_controlcenters.yaml).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "confluent-control-center",
    project: "Confluent for Kubernetes",
    sources: &[
        "mamonteiro-kafkaops/eks-confluent-operator crds/platform.confluent.io_controlcenters.yaml",
    ],
    declaration: confluent_component!("ControlCenter"),
    synth: Some(super::confluent_kafka::one_replica_per_node),
};
