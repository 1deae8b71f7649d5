//! OpenShift `IngressController` (operator.openshift.io/v1): the router pods.
//!
//! - `spec.nodePlacement.nodeSelector` is a `metav1.LabelSelector`; the operator turns it into
//!   the router Deployment's `nodeSelector` with `metav1.LabelSelectorAsMap` (only
//!   `matchLabels` and single-valued `In` expressions; any other expression makes it refuse
//!   the IngressController), replacing its default `kubernetes.io/os: linux` and
//!   `node-role.kubernetes.io/worker: ""`; `spec.nodePlacement.tolerations` replace its
//!   (empty) default (openshift/cluster-ingress-operator
//!   pkg/operator/controller/ingress/deployment.go `desiredRouterDeployment`;
//!   openshift/api operator/v1/types_ingresscontroller.go `NodePlacement`).
//! - With the workers as default placement (the `Ingress` config's `defaultPlacement`, whose
//!   default is `Workers`) it requires `node.openshift.io/remote-worker NotIn [""]`.
//! - Replicas are `spec.replicas`, 2 by default on a highly available cluster; the routers of
//!   one generation repel each other with required anti-affinity on `kubernetes.io/hostname`
//!   (or, with `HostNetwork`, by their host ports): one router per node.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "ingress-controller",
    project: "OpenShift ingress operator",
    sources: &[
        "openshift/api operator/v1/types_ingresscontroller.go",
        "openshift/cluster-ingress-operator pkg/operator/controller/ingress/deployment.go",
    ],
    declaration: r#"
kind: IngressController
apiVersion: operator.openshift.io/*
roles:
  - name: router
    at: spec.nodePlacement
    tolerations: tolerations
    nodeSelector: {from: nodeSelector, shape: labelSelectorAsMap}
    replicas: /spec.replicas
    defaultReplicas: 2
"#,
    synth: Some(synth),
};

const SOURCE: &str = "openshift/cluster-ingress-operator deployment.go `desiredRouterDeployment`";

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: anchor(h, &["spec.nodePlacement", "spec.replicas"]),
        ..Synth::default()
    };
    if h.spec.node_selectors.is_empty() {
        s.node_selector
            .push(("node-role.kubernetes.io/worker".to_string(), String::new()));
        s.notes.push(format!(
            "nodeSelector `kubernetes.io/os: linux`, `node-role.kubernetes.io/worker: \"\"`: the operator's default without `spec.nodePlacement.nodeSelector` ({SOURCE}; `kubernetes.io/os` is on every Linux node and not judged)"
        ));
    } else {
        s.notes.push(format!(
            "nodeSelector: `spec.nodePlacement.nodeSelector` as a map (metav1.LabelSelectorAsMap), replacing the default ({SOURCE})"
        ));
    }
    s.requirements
        .push(need("node.openshift.io/remote-worker", "NotIn", &[""]));
    s.notes.push(format!(
        "required node affinity `node.openshift.io/remote-worker NotIn [\"\"]`: no router on remote workers ({SOURCE})"
    ));
    s.one_per_node = true;
    s.notes.push(format!(
        "one router per node: required anti-affinity on `kubernetes.io/hostname` among the routers of one generation, or their host ports with `HostNetwork` ({SOURCE})"
    ));
    s
}
