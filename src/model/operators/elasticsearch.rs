//! Elastic Cloud on Kubernetes `Elasticsearch` (elasticsearch.k8s.elastic.co/v1): one
//! StatefulSet per `spec.nodeSets[]` item, `count` pods placed by its `podTemplate`, a
//! `corev1.PodTemplateSpec` (elastic/cloud-on-k8s pkg/apis/elasticsearch/v1/elasticsearch_types.go
//! `NodeSet`). (ECK's default pod anti-affinity is preferred: it does not decide placement.)

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    project: "Elastic Cloud on Kubernetes",
    sources: &["elastic/cloud-on-k8s pkg/apis/elasticsearch/v1/elasticsearch_types.go"],
    declaration: r#"
kind: Elasticsearch
apiVersion: elasticsearch.k8s.elastic.co/*
roles:
  - name: nodeSet
    at: spec.nodeSets[*]
    namedBy: name
    podSpec: podTemplate.spec
    replicas: count
"#,
    synth: None,
};
