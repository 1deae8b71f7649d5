//! Strimzi `Kafka` (kafka.strimzi.io/v1beta2, v1): the pods of its components, placed by each
//! component's `template.pod` (`PodTemplate`: `affinity`, `tolerations`,
//! `topologySpreadConstraints`, `priorityClassName`, named as in a pod's spec;
//! strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/common/template/PodTemplate.java).
//!
//! - Kafka nodes: `spec.kafka.template.pod` (KafkaClusterTemplate.java). With node pools, each
//!   `KafkaNodePool`'s own `spec.template.pod` replaces it whole for that pool
//!   (cluster-operator/.../model/KafkaPool.java `processTemplate`), and the pools say how
//!   many nodes there are; without, `spec.kafka.replicas` (removed in Strimzi 1.0). With rack
//!   awareness (`spec.kafka.rack.topologyKey`), the operator requires that label on the
//!   broker nodes: `Exists` added to every required node-affinity term
//!   (cluster-operator/.../model/ModelUtils.java `affinityWithRackLabelSelector`).
//! - ZooKeeper (Strimzi before 1.0): `spec.zookeeper.template.pod`, `spec.zookeeper.replicas`
//!   (api/.../model/zookeeper/ZookeeperClusterSpec.java, ZookeeperClusterTemplate.java at
//!   7534f970d5^).
//! - Entity Operator, Cruise Control, Kafka Exporter: one pod each, from
//!   `spec.entityOperator.template.pod` (EntityOperatorTemplate.java),
//!   `spec.cruiseControl.template.pod`, `spec.kafkaExporter.template.pod`.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kafka",
    project: "Strimzi",
    sources: &[
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/common/template/PodTemplate.java",
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/kafka/KafkaClusterTemplate.java",
        "strimzi/strimzi-kafka-operator cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaPool.java",
        "strimzi/strimzi-kafka-operator cluster-operator/src/main/java/io/strimzi/operator/cluster/model/ModelUtils.java",
    ],
    declaration: r#"
kind: Kafka
apiVersion: kafka.strimzi.io/*
roles:
  - name: kafka
    at: spec.kafka.template.pod
    podSpec: .
    resources: /spec.kafka.resources
    replicas: /spec.kafka.replicas
  - name: zookeeper
    at: spec.zookeeper.template.pod
    if: /spec.zookeeper
    podSpec: .
    resources: /spec.zookeeper.resources
    replicas: /spec.zookeeper.replicas
  - name: entity operator
    at: spec.entityOperator.template.pod
    if: /spec.entityOperator
    podSpec: .
    resources: [/spec.entityOperator.topicOperator.resources, /spec.entityOperator.userOperator.resources]
    replicas: 1
  - name: cruise control
    at: spec.cruiseControl.template.pod
    if: /spec.cruiseControl
    podSpec: .
    resources: /spec.cruiseControl.resources
    replicas: 1
  - name: kafka exporter
    at: spec.kafkaExporter.template.pod
    if: /spec.kafkaExporter
    podSpec: .
    resources: /spec.kafkaExporter.resources
    replicas: 1
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    if h.role != "kafka" {
        return Synth::default();
    }
    rack(h, "spec.kafka.rack.topologyKey", "broker nodes")
}

/// The required node affinity Strimzi adds for rack awareness: `<topologyKey> Exists` on the
/// nodes of `whose` pods (cluster-operator/.../model/ModelUtils.java
/// `affinityWithRackLabelSelector`, used by the Kafka, Kafka Connect and Kafka Bridge models).
pub(super) fn rack(h: &Hook<'_, '_>, path: &str, whose: &str) -> Synth {
    let mut s = Synth::default();
    if let Some(key) = text(h.get(path)) {
        s.span = h.get(path).map(|n| n.span);
        s.requirements.push(need(key, "Exists", &[]));
        s.notes.push(format!(
            "required node affinity `{key} Exists` on the {whose}: rack awareness (strimzi/strimzi-kafka-operator ModelUtils.java `affinityWithRackLabelSelector`)"
        ));
    }
    s
}
