//! Spark operator `SparkApplication` (sparkoperator.k8s.io/v1beta2): the driver pod and
//! `spec.executor.instances` executor pods. Each is placed by its `SparkPodSpec`
//! (kubeflow/spark-operator api/v1beta2/sparkapplication_types.go): an optional pod
//! `template` (a `PodTemplateSpec`), then what the operator's pod webhook adds
//! (internal/webhook/sparkpod_defaulter.go): `tolerations` appended to the template's
//! (`addTolerations`), `nodeSelector` merged into the pod's (`addNodeSelectors`), on top of
//! `spec.nodeSelector`, which Spark gives both pods (`spark.kubernetes.node.selector.*`,
//! internal/controller/sparkapplication/submission.go; the validator refuses it beside a
//! driver's or executor's own), `affinity` replacing the template's (`addAffinity`),
//! `priorityClassName`; and `gpu: {name, quantity}` as a limit of the extended resource
//! `name` on the Spark container when `quantity` is positive (`addGPU`).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "spark-application",
    project: "Kubeflow Spark operator",
    sources: &[
        "kubeflow/spark-operator api/v1beta2/sparkapplication_types.go",
        "kubeflow/spark-operator internal/webhook/sparkpod_defaulter.go",
    ],
    declaration: r#"
kind: SparkApplication
apiVersion: sparkoperator.k8s.io/*
roles:
  - name: driver
    at: spec.driver
    podSpec: template.spec
    tolerations: {from: tolerations, merge: append}
    nodeSelector: {from: [/spec.nodeSelector, nodeSelector], merge: keys}
    affinity: affinity
    priorityClassName: priorityClassName
    containers: [initContainers, sidecars]
    replicas: 1
  - name: executor
    at: spec.executor
    podSpec: template.spec
    tolerations: {from: tolerations, merge: append}
    nodeSelector: {from: [/spec.nodeSelector, nodeSelector], merge: keys}
    affinity: affinity
    priorityClassName: priorityClassName
    containers: [initContainers, sidecars]
    replicas: instances
"#,
    synth: Some(synth),
};

/// The extended resource of `gpu: {name, quantity}`.
pub(super) fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth::default();
    let Some(gpu) = h.here("gpu") else { return s };
    let name = text(gpu.get("name"));
    let quantity = int(gpu.get("quantity")).unwrap_or(0);
    if let Some(name) = name.filter(|_| quantity > 0) {
        s.span = Some(gpu.span);
        s.resources.push(name.to_string());
        s.notes.push(format!(
            "limit `{name}: {quantity}` on the Spark container, from `gpu` (kubeflow/spark-operator internal/webhook/sparkpod_defaulter.go `addGPU`)"
        ));
    }
    s
}
