//! The pod templates of the custom resources Kueue integrates, found at their API paths
//! whether or not they hold a scheduling field (the generic search of a custom resource only
//! finds mappings with tolerations, a nodeSelector or an affinity; a JobSet whose pods
//! tolerate nothing has none, yet Kueue admits it through a flavor that may be tainted).
//!
//! The paths are those of the upstream types:
//! - JobSet (`jobset.x-k8s.io`): `spec.replicatedJobs[].template` is a `batchv1.JobTemplateSpec`
//!   (api/jobset/v1alpha2/jobset_types.go in kubernetes-sigs/jobset), so its pods are at
//!   `spec.replicatedJobs[].template.spec.template.spec`;
//! - LeaderWorkerSet (`leaderworkerset.x-k8s.io`): `spec.leaderWorkerTemplate.leaderTemplate`
//!   (optional) and `.workerTemplate`, both `corev1.PodTemplateSpec`
//!   (api/leaderworkerset/v1/leaderworkerset_types.go in kubernetes-sigs/lws);
//! - RayCluster (`ray.io`): `spec.headGroupSpec.template` and `spec.workerGroupSpecs[].template`
//!   (ray-operator/apis/ray/v1/raycluster_types.go in ray-project/kuberay); a RayJob holds
//!   that spec at `spec.rayClusterSpec` and its submitter pod at `spec.submitterPodTemplate`
//!   (rayjob_types.go), a RayService at `spec.rayClusterConfig` (rayservice_types.go);
//! - the Kubeflow jobs (`kubeflow.org`): `spec.<kind>ReplicaSpecs.<role>.template`
//!   (pkg/apis/kubeflow.org/v1 in kubeflow/training-operator: `pytorchReplicaSpecs`,
//!   `tfReplicaSpecs`, `xgbReplicaSpecs`, `paddleReplicaSpecs`, `mxReplicaSpecs`,
//!   `jaxReplicaSpecs`; v2beta1 `mpiReplicaSpecs` in kubeflow/mpi-operator).
//!
//! These are the pod sets Kueue builds its Workload from (pkg/controller/jobs/*/ in
//! kubernetes-sigs/kueue, each integration's `PodSets`).

use crate::load::yaml::Node;

/// Each pod template's spec of an integrated custom resource, with its field path, in the
/// order of the document. Empty for any other kind.
pub(super) fn pod_templates<'a>(
    node: &'a Node,
    kind: &str,
    group: &str,
) -> Vec<(String, &'a Node)> {
    let mut out = Vec::new();
    match (kind, group) {
        ("JobSet", "jobset.x-k8s.io") => {
            for (i, rj) in seq(node.path(&["spec", "replicatedJobs"])) {
                push(
                    &mut out,
                    rj,
                    &format!("spec.replicatedJobs[{i}]"),
                    &["template", "spec", "template", "spec"],
                );
            }
        }
        ("LeaderWorkerSet", "leaderworkerset.x-k8s.io") => {
            let prefix = "spec.leaderWorkerTemplate";
            if let Some(t) = node.path(&["spec", "leaderWorkerTemplate"]) {
                push(&mut out, t, prefix, &["leaderTemplate", "spec"]);
                push(&mut out, t, prefix, &["workerTemplate", "spec"]);
            }
        }
        ("RayCluster", "ray.io") => ray_cluster(node.get("spec"), "spec", &mut out),
        ("RayJob", "ray.io") => {
            let spec = node.get("spec");
            ray_cluster(
                spec.and_then(|s| s.get("rayClusterSpec")),
                "spec.rayClusterSpec",
                &mut out,
            );
            if let Some(s) = spec {
                push(&mut out, s, "spec", &["submitterPodTemplate", "spec"]);
            }
        }
        ("RayService", "ray.io") => ray_cluster(
            node.path(&["spec", "rayClusterConfig"]),
            "spec.rayClusterConfig",
            &mut out,
        ),
        (_, "kubeflow.org") => {
            let field = match kind {
                "PyTorchJob" => "pytorchReplicaSpecs",
                "TFJob" => "tfReplicaSpecs",
                "XGBoostJob" => "xgbReplicaSpecs",
                "PaddleJob" => "paddleReplicaSpecs",
                "MXJob" => "mxReplicaSpecs",
                "JAXJob" => "jaxReplicaSpecs",
                "MPIJob" => "mpiReplicaSpecs",
                _ => return out,
            };
            let roles = node
                .path(&["spec", field])
                .and_then(Node::as_map)
                .unwrap_or_default();
            for (role, spec) in roles {
                let Some(role) = role.text() else { continue };
                push(
                    &mut out,
                    spec,
                    &format!("spec.{field}.{role}"),
                    &["template", "spec"],
                );
            }
        }
        _ => {}
    }
    out
}

fn seq(node: Option<&Node>) -> impl Iterator<Item = (usize, &Node)> {
    node.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .enumerate()
}

/// `spec.headGroupSpec.template.spec` and each `spec.workerGroupSpecs[].template.spec`.
fn ray_cluster<'a>(spec: Option<&'a Node>, prefix: &str, out: &mut Vec<(String, &'a Node)>) {
    let Some(spec) = spec else { return };
    push(out, spec, prefix, &["headGroupSpec", "template", "spec"]);
    for (i, g) in seq(spec.get("workerGroupSpecs")) {
        push(
            out,
            g,
            &format!("{prefix}.workerGroupSpecs[{i}]"),
            &["template", "spec"],
        );
    }
}

/// The mapping at `rest` under `at` (itself at `prefix`), when there is one.
fn push<'a>(out: &mut Vec<(String, &'a Node)>, at: &'a Node, prefix: &str, rest: &[&str]) {
    if let Some(spec) = at.path(rest).filter(|n| n.as_map().is_some()) {
        out.push((format!("{prefix}.{}", rest.join(".")), spec));
    }
}

#[cfg(test)]
mod tests {
    fn paths(yaml: &str) -> Vec<String> {
        let stream = crate::load::yaml::parse(yaml, crate::load::yaml::Limits::default());
        let doc = &stream.documents[0];
        let objects = super::super::objects(doc, &[]);
        objects[0]
            .pod_specs
            .iter()
            .map(|p| p.path.clone())
            .collect()
    }

    #[test]
    fn integrated_kinds_have_their_templates_without_scheduling_fields() {
        let jobset = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nspec:\n  replicatedJobs:\n  - name: a\n    template:\n      spec:\n        template:\n          spec:\n            nodeSelector: {pool: a}\n            containers: [{name: c}]\n  - name: b\n    template:\n      spec:\n        template:\n          spec:\n            containers: [{name: c}]\n";
        // The first is found by the generic search too: once, in document order.
        assert_eq!(
            paths(jobset),
            [
                "spec.replicatedJobs[0].template.spec.template.spec",
                "spec.replicatedJobs[1].template.spec.template.spec"
            ]
        );
        let rayjob = "apiVersion: ray.io/v1\nkind: RayJob\nspec:\n  rayClusterSpec:\n    headGroupSpec:\n      template:\n        spec:\n          containers: [{name: h}]\n    workerGroupSpecs:\n    - template:\n        spec:\n          containers: [{name: w}]\n  submitterPodTemplate:\n    spec:\n      containers: [{name: s}]\n";
        assert_eq!(
            paths(rayjob),
            [
                "spec.rayClusterSpec.headGroupSpec.template.spec",
                "spec.rayClusterSpec.workerGroupSpecs[0].template.spec",
                "spec.submitterPodTemplate.spec"
            ]
        );
        let lws = "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nspec:\n  leaderWorkerTemplate:\n    leaderTemplate:\n      spec:\n        containers: [{name: l}]\n    workerTemplate:\n      spec:\n        containers: [{name: w}]\n";
        assert_eq!(
            paths(lws),
            [
                "spec.leaderWorkerTemplate.leaderTemplate.spec",
                "spec.leaderWorkerTemplate.workerTemplate.spec"
            ]
        );
        let pytorch = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n    Master:\n      template:\n        spec:\n          containers: [{name: m}]\n    Worker:\n      template:\n        spec:\n          containers: [{name: w}]\n";
        assert_eq!(
            paths(pytorch),
            [
                "spec.pytorchReplicaSpecs.Master.template.spec",
                "spec.pytorchReplicaSpecs.Worker.template.spec"
            ]
        );
    }

    #[test]
    fn other_kinds_and_odd_shapes_add_nothing() {
        // Same paths, another group: only the generic search.
        let other = "apiVersion: example.com/v1\nkind: JobSet\nspec:\n  replicatedJobs:\n  - template:\n      spec:\n        template:\n          spec:\n            containers: [{name: c}]\n";
        assert!(paths(other).is_empty());
        // Templates that are not mappings, lists that are not lists: nothing, no panic.
        let odd = "apiVersion: ray.io/v1\nkind: RayCluster\nspec:\n  headGroupSpec:\n    template:\n      spec: [1, 2]\n  workerGroupSpecs: {template: {spec: {}}}\n";
        assert!(paths(odd).is_empty());
        let kubeflow = "apiVersion: kubeflow.org/v1\nkind: Notebook\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n";
        assert!(paths(kubeflow).is_empty());
    }
}
