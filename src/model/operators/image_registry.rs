//! OpenShift image registry `Config` (imageregistry.operator.openshift.io/v1, `cluster`): the
//! registry pods, placed by `spec.nodeSelector`, `spec.tolerations`, `spec.affinity` and
//! `spec.topologySpreadConstraints`, `spec.replicas` of them (openshift/api
//! imageregistry/v1/types.go `ImageRegistrySpec`). The operator
//! (openshift/cluster-image-registry-operator pkg/resource/podtemplatespec.go):
//!
//! - adds `kubernetes.io/os: linux` to the node selector;
//! - without a node selector and topology spread constraints of the resource's, spreads the
//!   pods with `DoNotSchedule` constraints over `kubernetes.io/hostname`,
//!   `node-role.kubernetes.io/worker` (so only workers take them) and, where nodes have
//!   zones, `topology.kubernetes.io/zone` (`topologySpreadConstraintForTopologyKey`);
//! - without an affinity of the resource's and with `replicas: 2`, requires anti-affinity on
//!   `kubernetes.io/hostname`: one pod per node.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "image-registry",
    project: "OpenShift image registry operator",
    sources: &[
        "openshift/api imageregistry/v1/types.go",
        "openshift/cluster-image-registry-operator pkg/resource/podtemplatespec.go",
    ],
    declaration: r#"
kind: Config
apiVersion: imageregistry.operator.openshift.io/*
roles:
  - name: registry
    at: spec
    tolerations: tolerations
    nodeSelector: nodeSelector
    affinity: affinity
    topologySpreadConstraints: topologySpreadConstraints
    resources: resources
    replicas: replicas
"#,
    synth: Some(synth),
};

const SOURCE: &str = "openshift/cluster-image-registry-operator pkg/resource/podtemplatespec.go";

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: h.at.map(|n| n.span),
        ..Synth::default()
    };
    s.notes.push(format!(
        "nodeSelector `kubernetes.io/os: linux` unless the resource sets that key ({SOURCE}; on every Linux node, not judged)"
    ));
    let written = |p: &str| h.here(p).is_some_and(|n| !n.is_null());
    if !written("nodeSelector") && !written("topologySpreadConstraints") {
        s.spread_keys
            .push("node-role.kubernetes.io/worker".to_string());
        s.notes.push(format!(
            "topology spread (`DoNotSchedule`) over `kubernetes.io/hostname`, `node-role.kubernetes.io/worker` and, where nodes have zones, `topology.kubernetes.io/zone`: the operator's default without a nodeSelector or spread constraints, which keeps the pods on workers ({SOURCE})"
        ));
    }
    if !written("affinity") && int(h.here("replicas")) == Some(2) {
        s.one_per_node = true;
        s.span = h.here("replicas").map(|n| n.span);
        s.notes.push(format!(
            "one pod per node: required anti-affinity on `kubernetes.io/hostname`, the operator's default for `replicas: 2` without an affinity ({SOURCE})"
        ));
    }
    s
}
