//! Confluent for Kubernetes `Connect` (platform.confluent.io/v1beta1): the Connect workers, `spec.replicas`
//! pods placed by `spec.podTemplate`, one per node with `spec.oneReplicaPerNode: true`, as a
//! CFK `Kafka`'s (see `confluent_kafka.rs`; the Helm chart's
//! crds/platform.confluent.io_connects.yaml).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "confluent-connect",
    project: "Confluent for Kubernetes",
    sources: &[
        "mamonteiro-kafkaops/eks-confluent-operator crds/platform.confluent.io_connects.yaml",
    ],
    declaration: confluent_component!("Connect"),
    synth: Some(super::confluent_kafka::one_replica_per_node),
};
