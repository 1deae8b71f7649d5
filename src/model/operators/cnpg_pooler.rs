//! CloudNativePG `Pooler` (postgresql.cnpg.io/v1): the PgBouncer pods of a Deployment,
//! `spec.instances` of them (1 when unset: the CRD's default), made from `spec.template`, a
//! pod template whose `spec` is a `corev1.PodSpec` (cloudnative-pg/cloudnative-pg
//! api/v1/pooler_types.go `PoolerSpec`; pkg/specs/pgbouncer/deployments.go builds the
//! Deployment on it).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "cnpg-pooler",
    project: "CloudNativePG",
    sources: &[
        "cloudnative-pg/cloudnative-pg api/v1/pooler_types.go",
        "cloudnative-pg/cloudnative-pg pkg/specs/pgbouncer/deployments.go",
    ],
    declaration: r#"
kind: Pooler
apiVersion: postgresql.cnpg.io/*
roles:
  - name: pgbouncer
    at: spec.template.spec
    podSpec: .
    replicas: /spec.instances
    defaultReplicas: 1
"#,
    synth: None,
};
