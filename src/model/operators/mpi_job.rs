//! Kubeflow `MPIJob` (kubeflow.org): the pods of each replica type of
//! `spec.mpiReplicaSpecs` (`Master`, `Worker`, …), `replicas` of them (1 when unset), placed
//! by its `template`, a `corev1.PodTemplateSpec` (kubeflow/mpi-operator pkg/apis/kubeflow/v2beta1/types.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "mpi-job",
    project: "Kubeflow",
    sources: &["kubeflow/mpi-operator pkg/apis/kubeflow/v2beta1/types.go"],
    declaration: kubeflow_job!("MPIJob", "mpiReplicaSpecs"),
    synth: None,
};
