//! KServe `InferenceService` (serving.kserve.io/v1beta1): the predictor, transformer and
//! explainer pods. Each component inlines a pod's spec (`PodSpec` inline: `tolerations`,
//! `nodeSelector`, `affinity`, `containers`, …) and its replica bounds
//! (`ComponentExtensionSpec`: `minReplicas`, 1 by default); the predictor's model container
//! is `spec.predictor.model` (or a framework field such as `sklearn`, `pytorch`), whose
//! `resources` (say `nvidia.com/gpu`) are the pod's; a multi-node predictor's workers are
//! `spec.predictor.workerSpec`, another inline pod spec (kserve/kserve
//! pkg/apis/serving/v1beta1/predictor.go, component.go, podspec.go, transformer.go,
//! explainer.go).

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "inference-service",
    project: "KServe",
    sources: &[
        "kserve/kserve pkg/apis/serving/v1beta1/predictor.go",
        "kserve/kserve pkg/apis/serving/v1beta1/component.go",
        "kserve/kserve pkg/apis/serving/v1beta1/podspec.go",
    ],
    declaration: r#"
kind: InferenceService
apiVersion: serving.kserve.io/*
roles:
  - name: predictor
    at: spec.predictor
    podSpec: .
    resources: [model.resources, sklearn.resources, xgboost.resources, tensorflow.resources, pytorch.resources, triton.resources, onnx.resources, huggingface.resources, pmml.resources, lightgbm.resources, paddle.resources]
    replicas: minReplicas
    defaultReplicas: 1
  - name: predictor worker
    at: spec.predictor.workerSpec
    optional: true
    podSpec: .
  - name: transformer
    at: spec.transformer
    optional: true
    podSpec: .
    replicas: minReplicas
    defaultReplicas: 1
  - name: explainer
    at: spec.explainer
    optional: true
    podSpec: .
    resources: art.resources
    replicas: minReplicas
    defaultReplicas: 1
"#,
    synth: None,
};
