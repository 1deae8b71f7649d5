//! Strimzi `KafkaBridge` (kafka.strimzi.io/v1beta2, v1): the HTTP bridge pods, `spec.replicas`
//! of them (1 when unset: api/src/main/java/io/strimzi/api/kafka/model/bridge/KafkaBridgeSpec.java
//! `DEFAULT_REPLICAS`), placed by `spec.template.pod` (KafkaBridgeTemplate.java,
//! `PodTemplate`), with `spec.resources`; with rack awareness (`spec.rack.topologyKey`) the
//! operator requires that label on their nodes (cluster-operator/.../model/KafkaBridgeCluster.java,
//! ModelUtils.java `affinityWithRackLabelSelector`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kafka-bridge",
    project: "Strimzi",
    sources: &[
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/bridge/KafkaBridgeSpec.java",
        "strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/bridge/KafkaBridgeTemplate.java",
        "strimzi/strimzi-kafka-operator cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaBridgeCluster.java",
    ],
    declaration: r#"
kind: KafkaBridge
apiVersion: kafka.strimzi.io/*
roles:
  - name: bridge
    at: spec.template.pod
    podSpec: .
    resources: /spec.resources
    replicas: /spec.replicas
    defaultReplicas: 1
"#,
    synth: Some(synth),
};

fn synth(h: &Hook<'_, '_>) -> Synth {
    super::kafka::rack(h, "spec.rack.topologyKey", "bridge pods' nodes")
}
