//! Confluent for Kubernetes `Zookeeper` (platform.confluent.io/v1beta1): the ZooKeeper servers, `spec.replicas`
//! pods placed by `spec.podTemplate`, one per node with `spec.oneReplicaPerNode: true`, as a
//! CFK `Kafka`'s (see `confluent_kafka.rs`; the Helm chart's
//! crds/platform.confluent.io_zookeepers.yaml).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "confluent-zookeeper",
    project: "Confluent for Kubernetes",
    sources: &[
        "mamonteiro-kafkaops/eks-confluent-operator crds/platform.confluent.io_zookeepers.yaml",
    ],
    declaration: confluent_component!("Zookeeper"),
    synth: Some(super::confluent_kafka::one_replica_per_node),
};
