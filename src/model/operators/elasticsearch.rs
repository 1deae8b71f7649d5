//! Elastic Cloud on Kubernetes `Elasticsearch` (elasticsearch.k8s.elastic.co/v1): one
//! StatefulSet per `spec.nodeSets[]` item, `count` pods placed by its `podTemplate`, a
//! `corev1.PodTemplateSpec` (elastic/cloud-on-k8s pkg/apis/elasticsearch/v1/elasticsearch_types.go
//! `NodeSet`). ECK labels the pods with the cluster's and the StatefulSet's names
//! (`elasticsearch.k8s.elastic.co/cluster-name`, `…/statefulset-name` = `<name>-es-<nodeSet>`:
//! pkg/controller/elasticsearch/label/label.go `NewPodLabels`, pkg/apis/elasticsearch/v1/name.go
//! `StatefulSet`), which the anti-affinity its docs show selects. (ECK's default pod
//! anti-affinity is preferred: it does not decide placement.)

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "elasticsearch",
    project: "Elastic Cloud on Kubernetes",
    sources: &[
        "elastic/cloud-on-k8s pkg/apis/elasticsearch/v1/elasticsearch_types.go",
        "elastic/cloud-on-k8s pkg/controller/elasticsearch/label/label.go",
    ],
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
    synth: Some(synth),
};

/// The labels ECK gives a nodeSet's pods.
fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth::default();
    let Some(name) = text(h.get("metadata.name")) else {
        return s;
    };
    s.labels.push((
        "common.k8s.elastic.co/type".to_string(),
        "elasticsearch".to_string(),
    ));
    s.labels.push((
        "elasticsearch.k8s.elastic.co/cluster-name".to_string(),
        name.to_string(),
    ));
    if let Some(set) = text(h.here("name")) {
        s.labels.push((
            "elasticsearch.k8s.elastic.co/statefulset-name".to_string(),
            format!("{name}-es-{set}"),
        ));
    }
    s
}
