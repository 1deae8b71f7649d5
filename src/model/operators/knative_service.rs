//! Knative Serving `Service` (serving.knative.dev/v1): the revision pods, placed by
//! `spec.template.spec`, a `RevisionSpec` that inlines a pod's spec (knative/serving
//! pkg/apis/serving/v1/revision_types.go; `nodeSelector`, `tolerations` and `affinity` need
//! the `kubernetes.podspec-*` feature flags, config/core/configmaps/features.yaml). The
//! autoscaler decides how many.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "knative-service",
    project: "Knative Serving",
    sources: &[
        "knative/serving pkg/apis/serving/v1/service_types.go",
        "knative/serving pkg/apis/serving/v1/revision_types.go",
    ],
    declaration: r#"
kind: Service
apiVersion: serving.knative.dev/*
roles:
  - name: ""
    at: spec.template.spec
    podSpec: .
"#,
    synth: None,
};
