//! Strimzi `KafkaMirrorMaker2` (kafka.strimzi.io/v1beta2, v1): a Kafka Connect cluster running
//! the MirrorMaker 2 connectors (api/src/main/java/io/strimzi/api/kafka/model/mirrormaker2/KafkaMirrorMaker2Spec.java
//! extends `AbstractKafkaConnectSpec`): `spec.replicas` workers (3 when unset), placed by
//! `spec.template.pod`, with `spec.resources`, and the `spec.rack.topologyKey` label required
//! of their nodes, as a `KafkaConnect`'s (cluster-operator/.../model/KafkaMirrorMaker2Cluster.java
//! extends `KafkaConnectCluster`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kafka-mirror-maker2",
    project: "Strimzi",
    sources: &[
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/mirrormaker2/KafkaMirrorMaker2Spec.java",
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/connect/AbstractKafkaConnectSpec.java",
        "strimzi/strimzi-kafka-operator cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaConnectCluster.java",
    ],
    declaration: strimzi_connect!("KafkaMirrorMaker2", "mirror maker"),
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    super::kafka::rack(h, "spec.rack.topologyKey", "MirrorMaker 2 workers' nodes")
}
