//! Spark operator `ScheduledSparkApplication` (sparkoperator.k8s.io/v1beta2): each run is a
//! `SparkApplication` of `spec.template` (kubeflow/spark-operator
//! api/v1beta2/scheduledsparkapplication_types.go), its driver and executors placed as a
//! SparkApplication's (see `spark_application`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "scheduled-spark-application",
    project: "Kubeflow Spark operator",
    sources: &[
        "kubeflow/spark-operator api/v1beta2/scheduledsparkapplication_types.go",
        "kubeflow/spark-operator internal/webhook/sparkpod_defaulter.go",
    ],
    declaration: r#"
kind: ScheduledSparkApplication
apiVersion: sparkoperator.k8s.io/*
roles:
  - name: driver
    at: spec.template.driver
    podSpec: template.spec
    tolerations: {from: tolerations, merge: append}
    nodeSelector: {from: [/spec.template.nodeSelector, nodeSelector], merge: keys}
    affinity: affinity
    priorityClassName: priorityClassName
    containers: [initContainers, sidecars]
    replicas: 1
  - name: executor
    at: spec.template.executor
    podSpec: template.spec
    tolerations: {from: tolerations, merge: append}
    nodeSelector: {from: [/spec.template.nodeSelector, nodeSelector], merge: keys}
    affinity: affinity
    priorityClassName: priorityClassName
    containers: [initContainers, sidecars]
    replicas: instances
"#,
    synth: Some(super::spark_application::synth),
};
