//! Tekton `TaskRun` (tekton.dev/v1, v1beta1): its pod, placed by `spec.podTemplate` (a pod's
//! `nodeSelector`, `tolerations`, `affinity`, `topologySpreadConstraints`,
//! `priorityClassName`, `runtimeClassName`, `hostNetwork`), with `spec.computeResources`
//! (tektoncd/pipeline pkg/apis/pipeline/v1/taskrun_types.go, pkg/apis/pipeline/pod/template.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "task-run",
    project: "Tekton Pipelines",
    sources: &[
        "tektoncd/pipeline pkg/apis/pipeline/v1/taskrun_types.go",
        "tektoncd/pipeline pkg/apis/pipeline/pod/template.go",
    ],
    declaration: r#"
kind: TaskRun
apiVersion: tekton.dev/*
roles:
  - name: ""
    at: spec
    podSpec: podTemplate
    resources: computeResources
    replicas: 1
"#,
    synth: None,
};
