//! Tekton `PipelineRun` (tekton.dev/v1, v1beta1): the pods of its TaskRuns. Each takes the
//! run's pod template — `spec.taskRunTemplate.podTemplate` (v1) or `spec.podTemplate`
//! (v1beta1) — under its pipeline task's own in `spec.taskRunSpecs[]` (`podTemplate`, v1;
//! `taskPodTemplate`, v1beta1), field by field: a field the task's template writes wins
//! (tektoncd/pipeline pkg/apis/pipeline/pod/template.go `MergePodTemplateWithDefault`;
//! pkg/apis/pipeline/v1/pipelinerun_types.go, v1beta1/pipelinerun_types.go). A pod template
//! has a pod's `nodeSelector`, `tolerations`, `affinity`, `topologySpreadConstraints`,
//! `priorityClassName`, `runtimeClassName`, `hostNetwork`; `computeResources` are the task's.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "pipeline-run",
    project: "Tekton Pipelines",
    sources: &[
        "tektoncd/pipeline pkg/apis/pipeline/pod/template.go",
        "tektoncd/pipeline pkg/apis/pipeline/v1/pipelinerun_types.go",
        "tektoncd/pipeline pkg/apis/pipeline/v1beta1/pipelinerun_types.go",
    ],
    declaration: r#"
kind: PipelineRun
apiVersion: tekton.dev/*
roles:
  - name: task
    at: spec
    podSpec: [podTemplate, taskRunTemplate.podTemplate]
  - name: task
    at: spec.taskRunSpecs[*]
    namedBy: pipelineTaskName
    podSpec: [/spec.podTemplate, /spec.taskRunTemplate.podTemplate, taskPodTemplate, podTemplate]
    resources: computeResources
"#,
    synth: None,
};
