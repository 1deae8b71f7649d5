//! Apache Flink Kubernetes operator `FlinkDeployment` (flink.apache.org/v1beta1): the
//! JobManager pods (`spec.jobManager.replicas`, 1 by default) and TaskManager pods
//! (`spec.taskManager.replicas`, else worked out from the job's parallelism). Each is placed
//! by the common `spec.podTemplate` merged with its own `podTemplate` (both
//! `PodTemplateSpec`s): the operator merges the two as JSON trees, objects key by key, arrays
//! item by item at the same index, the role's value winning
//! (apache/flink-kubernetes-operator flink-kubernetes-operator/src/main/java/org/apache/flink/kubernetes/operator/config/FlinkConfigBuilder.java
//! `applyPodTemplate`, .../utils/FlinkUtils.java `mergePodTemplates`; arrays by position is
//! the default of `kubernetes.operator.pod-template.merge-arrays-by-name`). So tolerations
//! merge by index and node selectors by key; an affinity block (`nodeAffinity`,
//! `podAffinity`, `podAntiAffinity`) written in both is taken whole from the role's
//! template (Flink merges them field by field). `resources` of each role are
//! `ResourceRequirements` (flink-kubernetes-operator-api .../api/spec/JobManagerSpec.java,
//! TaskManagerSpec.java).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "flink-deployment",
    project: "Apache Flink Kubernetes operator",
    sources: &[
        "apache/flink-kubernetes-operator flink-kubernetes-operator-api/src/main/java/org/apache/flink/kubernetes/operator/api/spec/FlinkDeploymentSpec.java",
        "apache/flink-kubernetes-operator flink-kubernetes-operator/src/main/java/org/apache/flink/kubernetes/operator/utils/FlinkUtils.java",
    ],
    declaration: r#"
kind: FlinkDeployment
apiVersion: flink.apache.org/*
roles:
  - name: jobmanager
    at: spec.jobManager
    podSpec: [/spec.podTemplate.spec, podTemplate.spec]
    tolerations: {merge: byIndex}
    nodeSelector: {merge: keys}
    affinity: {merge: keys}
    resources: resources
    replicas: replicas
    defaultReplicas: 1
  - name: taskmanager
    at: spec.taskManager
    podSpec: [/spec.podTemplate.spec, podTemplate.spec]
    tolerations: {merge: byIndex}
    nodeSelector: {merge: keys}
    affinity: {merge: keys}
    resources: resources
    replicas: replicas
"#,
    synth: None,
};
