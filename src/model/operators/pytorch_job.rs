//! Kubeflow `PyTorchJob` (kubeflow.org): the pods of each replica type of
//! `spec.pytorchReplicaSpecs` (`Master`, `Worker`, …), `replicas` of them (1 when unset), placed
//! by its `template`, a `corev1.PodTemplateSpec` (kubeflow/training-operator pkg/apis/kubeflow.org/v1).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "pytorch-job",
    project: "Kubeflow",
    sources: &["kubeflow/training-operator pkg/apis/kubeflow.org/v1"],
    declaration: kubeflow_job!("PyTorchJob", "pytorchReplicaSpecs"),
    synth: None,
};
