//! Kubeflow `TFJob` (kubeflow.org): the pods of each replica type of
//! `spec.tfReplicaSpecs` (`Master`, `Worker`, …), `replicas` of them (1 when unset), placed
//! by its `template`, a `corev1.PodTemplateSpec` (kubeflow/training-operator pkg/apis/kubeflow.org/v1).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "tf-job",
    project: "Kubeflow",
    sources: &["kubeflow/training-operator pkg/apis/kubeflow.org/v1"],
    declaration: kubeflow_job!("TFJob", "tfReplicaSpecs"),
    synth: None,
};
