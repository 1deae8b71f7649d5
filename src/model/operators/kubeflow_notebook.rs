//! Kubeflow `Notebook` (kubeflow.org/v1, v1beta1, v1alpha1): the notebook server, one pod of a
//! StatefulSet whose pod spec is `spec.template.spec`, a `corev1.PodSpec`
//! (kubeflow/notebooks components/notebook-controller/api/v1/notebook_types.go
//! `NotebookTemplateSpec`; controllers/notebook_controller.go `generateStatefulSet`: one
//! replica, none while the `kubeflow-resource-stopped` annotation is set). A Kubeflow
//! `PodDefault` matching the pod's labels may add tolerations at admission; it is not
//! modelled.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "kubeflow-notebook",
    project: "Kubeflow",
    sources: &[
        "kubeflow/notebooks components/notebook-controller/api/v1/notebook_types.go",
        "kubeflow/notebooks components/notebook-controller/controllers/notebook_controller.go",
    ],
    declaration: r#"
kind: Notebook
apiVersion: kubeflow.org/*
roles:
  - name: server
    at: spec.template.spec
    podSpec: .
    replicas: 1
"#,
    synth: None,
};
