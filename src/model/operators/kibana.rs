//! Elastic Cloud on Kubernetes `Kibana` (kibana.k8s.elastic.co/v1): `spec.count` pods placed
//! by `spec.podTemplate`, a `corev1.PodTemplateSpec` (elastic/cloud-on-k8s
//! pkg/apis/kibana/v1/kibana_types.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kibana",
    project: "Elastic Cloud on Kubernetes",
    sources: &["elastic/cloud-on-k8s pkg/apis/kibana/v1/kibana_types.go"],
    declaration: r#"
kind: Kibana
apiVersion: kibana.k8s.elastic.co/*
roles:
  - name: ""
    at: spec
    podSpec: podTemplate.spec
    replicas: count
"#,
    synth: None,
};
