//! `LeaderWorkerSet` (leaderworkerset.x-k8s.io): the leader pods
//! (`spec.leaderWorkerTemplate.leaderTemplate`, optional) and worker pods
//! (`spec.leaderWorkerTemplate.workerTemplate`), both `corev1.PodTemplateSpec`
//! (kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "leader-worker-set",
    project: "LeaderWorkerSet",
    sources: &["kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go"],
    declaration: r#"
kind: LeaderWorkerSet
apiVersion: leaderworkerset.x-k8s.io/*
roles:
  - name: leader
    at: spec.leaderWorkerTemplate.leaderTemplate.spec
    optional: true
    podSpec: .
  - name: worker
    at: spec.leaderWorkerTemplate.workerTemplate.spec
    optional: true
    podSpec: .
"#,
    synth: None,
};
