//! Strimzi `KafkaNodePool` (kafka.strimzi.io/v1beta2, v1): a group of Kafka nodes of one
//! `Kafka` (by its `strimzi.io/cluster` label) — not a node pool of the cluster: its pods are
//! workloads. `spec.replicas` of them, placed by `spec.template.pod` (`PodTemplate`), which
//! replaces the Kafka's `spec.kafka.template.pod` whole when written
//! (strimzi/strimzi-kafka-operator
//! cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaPool.java
//! `processTemplate`; api/.../model/nodepool/KafkaNodePoolSpec.java). A pool without its own
//! template takes the Kafka's: those pods are the Kafka's `kafka` role.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kafka-node-pool",
    project: "Strimzi",
    sources: &[
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/nodepool/KafkaNodePoolSpec.java",
        "strimzi/strimzi-kafka-operator cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaPool.java",
    ],
    declaration: r#"
kind: KafkaNodePool
apiVersion: kafka.strimzi.io/*
roles:
  - name: ""
    at: spec.template.pod
    optional: true
    podSpec: .
    resources: /spec.resources
    replicas: /spec.replicas
"#,
    synth: None,
};
