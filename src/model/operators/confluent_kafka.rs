//! Confluent for Kubernetes `Kafka` (platform.confluent.io/v1beta1): the brokers,
//! `spec.replicas` pods of a StatefulSet placed by `spec.podTemplate`, whose `affinity`,
//! `tolerations`, `topologySpreadConstraints`, `priorityClassName` and `resources` are named
//! as in a pod's spec (it has no `nodeSelector`); `spec.oneReplicaPerNode: true` runs one pod
//! per node "using the pod anti-affinity capability". CFK's operator is not open source: this
//! follows its published CRDs (the `confluent-for-kubernetes` Helm chart's
//! crds/platform.confluent.io_kafkas.yaml, as vendored by
//! mamonteiro-kafkaops/eks-confluent-operator). Every CFK component kind (`Zookeeper`,
//! `KRaftController`, `Connect`, `KsqlDB`, `SchemaRegistry`, `KafkaRestProxy`,
//! `ControlCenter`) has the same `podTemplate`, `replicas` and `oneReplicaPerNode`. The
//! placement `rackAssignment` may add is not published; it is not modelled.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "confluent-kafka",
    project: "Confluent for Kubernetes",
    sources: &["mamonteiro-kafkaops/eks-confluent-operator crds/platform.confluent.io_kafkas.yaml"],
    declaration: confluent_component!("Kafka"),
    synth: Some(one_replica_per_node),
};

/// `spec.oneReplicaPerNode: true`: required anti-affinity among the component's pods.
pub(super) fn one_replica_per_node(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: anchor(h, &["spec.oneReplicaPerNode"]),
        ..Synth::default()
    };
    if truthy(h.get("spec.oneReplicaPerNode")) == Some(true) {
        s.notes.push(
            "one pod per node, by pod anti-affinity the operator adds (`oneReplicaPerNode: true`; Confluent for Kubernetes CRDs)"
                .to_string(),
        );
        s.one_per_node = true;
    }
    s
}
