//! Redis Enterprise `RedisEnterpriseCluster` (app.redislabs.com/v1, v1alpha1): the Redis
//! Enterprise node pods (a StatefulSet) and the services rigger (a Deployment), as the
//! operator's published API reference and CRD describe them (RedisLabs/redis-enterprise-k8s-docs
//! redis_enterprise_cluster_api.md `RedisEnterpriseClusterSpec`,
//! `ServicesRiggerConfigurationSpec`; crds/rec_crd.yaml; the operator's source is not
//! published).
//!
//! - `node`: `spec.nodes` pods (3 when unset), with `podTolerations`, `nodeSelector` (a plain
//!   map), `priorityClassName`, `redisEnterpriseNodeResources` and `bootstrapperResources`,
//!   and `sideContainersSpec`; `podAntiAffinity` replaces the default anti-affinity, which
//!   "places Redis Enterprise pods on separate nodes" (one pod per node). The
//!   `redisEnterpriseAdditionalPodSpecAttributes` pod spec lies under them: "pod attributes
//!   managed by the operator might override these settings".
//! - `services rigger`: `nodeSelector`, `priorityClassName` and `podTolerations` ("for all
//!   managed pods"), the latter merged with the tolerations of
//!   `servicesRiggerSpec.servicesRiggerAdditionalPodSpecAttributes`, whose other fields lie
//!   under the operator's; `redisEnterpriseServicesRiggerResources`. Its replica count is
//!   not published.
//!
//! `rackAwarenessNodeLabel` requires the label on every node but is not documented to change
//! the pods' placement; it is not modelled.

use super::*;

pub(super) static OPERATOR: Operator = Operator {
    id: "redis-enterprise-cluster",
    project: "Redis Enterprise for Kubernetes",
    sources: &[
        "RedisLabs/redis-enterprise-k8s-docs redis_enterprise_cluster_api.md",
        "RedisLabs/redis-enterprise-k8s-docs crds/rec_crd.yaml",
    ],
    declaration: r#"
kind: RedisEnterpriseCluster
apiVersion: app.redislabs.com/*
roles:
  - name: node
    at: spec
    podSpec: redisEnterpriseAdditionalPodSpecAttributes
    tolerations: podTolerations
    nodeSelector: nodeSelector
    podAntiAffinity: podAntiAffinity
    priorityClassName: priorityClassName
    resources: [redisEnterpriseNodeResources, bootstrapperResources]
    containers: sideContainersSpec
    replicas: nodes
    defaultReplicas: 3
  - name: services rigger
    at: spec
    podSpec: servicesRiggerSpec.servicesRiggerAdditionalPodSpecAttributes
    tolerations: {from: podTolerations, merge: append}
    nodeSelector: nodeSelector
    priorityClassName: priorityClassName
    resources: redisEnterpriseServicesRiggerResources
"#,
    synth: Some(synth),
};

const SOURCE: &str =
    "RedisLabs/redis-enterprise-k8s-docs redis_enterprise_cluster_api.md `podAntiAffinity`";

fn synth(h: &Hook<'_, '_>) -> Synth {
    let mut s = Synth {
        span: anchor(h, &["spec.podAntiAffinity", "spec.nodes"]),
        ..Synth::default()
    };
    if h.role != "node" {
        return s;
    }
    if h.get("spec.podAntiAffinity").is_some() {
        s.notes.push(format!(
            "`podAntiAffinity` replaces the operator's default anti-affinity ({SOURCE})"
        ));
    } else {
        s.notes.push(format!(
            "required pod anti-affinity among the Redis Enterprise node pods on `kubernetes.io/hostname`, the operator's default: one pod per node ({SOURCE})"
        ));
        s.one_per_node = true;
    }
    s
}
