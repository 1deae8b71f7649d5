//! Strimzi `KafkaConnect` (kafka.strimzi.io/v1beta2, v1): the Connect workers, `spec.replicas`
//! of them (3 when unset: api/src/main/java/io/strimzi/api/kafka/model/connect/AbstractKafkaConnectSpec.java),
//! placed by `spec.template.pod` (KafkaConnectTemplate.java; a `PodTemplate` whose
//! `affinity`, `tolerations`, `topologySpreadConstraints` and `priorityClassName` are named
//! as in a pod's spec), with `spec.resources`. With rack awareness (`spec.rack.topologyKey`)
//! the operator requires that label on the workers' nodes
//! (cluster-operator/.../model/KafkaConnectCluster.java, ModelUtils.java
//! `affinityWithRackLabelSelector`). The pod of a connector image build
//! (`spec.template.buildPod`, Kubernetes builds only) is not modelled.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kafka-connect",
    project: "Strimzi",
    sources: &[
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/connect/AbstractKafkaConnectSpec.java",
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/connect/KafkaConnectTemplate.java",
        "strimzi/strimzi-kafka-operator cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaConnectCluster.java",
    ],
    declaration: strimzi_connect!("KafkaConnect", "connect"),
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    super::kafka::rack(h, "spec.rack.topologyKey", "Connect workers' nodes")
}
