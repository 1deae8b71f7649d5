//! Confluent for Kubernetes `SchemaRegistry` (platform.confluent.io/v1beta1): the Schema Registry servers, `spec.replicas`
//! pods placed by `spec.podTemplate`, one per node with `spec.oneReplicaPerNode: true`, as a
//! CFK `Kafka`'s (see `confluent_kafka.rs`; the Helm chart's
//! crds/platform.confluent.io_schemaregistries.yaml).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "confluent-schema-registry",
    project: "Confluent for Kubernetes",
    sources: &[
        "mamonteiro-kafkaops/eks-confluent-operator crds/platform.confluent.io_schemaregistries.yaml",
    ],
    declaration: confluent_component!("SchemaRegistry"),
    synth: Some(super::confluent_kafka::one_replica_per_node),
};
