//! OpenShift's Machine API (`machine.openshift.io/v1beta1`): a `MachineSet` is a node pool.
//!
//! What reaches the Node, per openshift/api `machine/v1beta1/types_machine.go` (`MachineSpec`):
//! `spec.template.spec.metadata` "will autopopulate the Node created" (its labels are the
//! node's), and `spec.template.spec.taints` are "the taints to be applied to the corresponding
//! Node in additive manner". `spec.template.metadata.labels` are the *Machine*'s labels
//! (`machine.openshift.io/cluster-api-machine-role`, `…-machine-type`, the MachineSet
//! selector), not the node's, and are not read.
//!
//! A MachineSet whose machines boot with the worker user data (`providerSpec.value.
//! userDataSecret.name: worker-user-data`, what the installer's MachineSets use) joins the
//! `worker` MachineConfigPool, whose kubelet unit registers the node with
//! `--node-labels=node-role.kubernetes.io/worker,node.openshift.io/os_id=${ID}`
//! (openshift/machine-config-operator
//! `templates/worker/01-worker-kubelet/_base/units/kubelet.service.yaml`). Other user data
//! (a custom MachineConfigPool) may register other labels: the pool's labels are then only
//! partly known.
//!
//! Size: the `maxReplicas` of a `MachineAutoscaler` (`autoscaling.openshift.io/v1beta1`)
//! whose `scaleTargetRef` names the MachineSet, in any linted file (linked when the inventory
//! is built: see `sources/scaling.rs`), else the
//! `machine.openshift.io/cluster-api-autoscaler-node-group-max-size` annotation (what the
//! MachineAutoscaler sets on its target, and the cluster autoscaler reads), else
//! `spec.replicas` — a size only in a declared inventory, since an autoscaler outside the files
//! may scale the MachineSet past it.

use super::scaling::{MACHINE_API_NAMESPACE, MACHINE_SET};
use super::{Decls, label_map, taint_list};
use crate::analysis::semantics::text;
use crate::analysis::types::Scaling;
use crate::analysis::types::{LabelValues, Labels};

/// The annotation the MachineAutoscaler sets on its target MachineSet with its `maxReplicas`
/// (openshift/cluster-autoscaler-operator, `pkg/controller/machineautoscaler`).
const MAX_SIZE: &str = "machine.openshift.io/cluster-api-autoscaler-node-group-max-size";

pub(super) fn machine_set(mut d: Decls<'_, '_>) {
    let node = d.object.node;
    let spec = node.path(&["spec", "template", "spec"]);
    let mut labels = Labels::new();
    label_map(
        spec.and_then(|s| s.path(&["metadata", "labels"])),
        &mut labels,
    );
    let user_data = spec.and_then(|s| s.path(&["providerSpec", "value", "userDataSecret", "name"]));
    let worker = match user_data.map(|n| text(Some(n))) {
        Some(name) => name == "worker-user-data",
        // No user data named: the machine controller cannot boot a node from it.
        None => false,
    };
    if worker {
        labels.insert_absent("node-role.kubernetes.io/worker", LabelValues::one(""));
        labels.insert_absent("node.openshift.io/os_id", LabelValues::Any);
    }
    let taints = taint_list(spec.and_then(|s| s.get("taints")), d.source, false);
    let annotated = node
        .path(&["metadata", "annotations", MAX_SIZE])
        .and_then(|n| text(Some(n)).trim().parse::<u32>().ok());
    let replicas_only = annotated.is_none();
    let size = annotated.or_else(|| count(node.path(&["spec", "replicas"])));
    let namespace = namespace(&d);
    let (name, at) = (d.name(), d.object_place());
    let decl = d.pool(MACHINE_SET, name, labels, taints, at);
    decl.max_nodes = size;
    decl.scaling = Some(Box::new(Scaling::MachineSet {
        namespace,
        replicas_only,
    }));
    // Custom user data: a MachineConfigPool of the user's may register more labels.
    decl.any_label = user_data.is_some() && !worker;
}

/// A `MachineAutoscaler` whose `spec.scaleTargetRef` is a `machine.openshift.io` MachineSet:
/// not a pool, the size of its target (openshift/cluster-autoscaler-operator,
/// `pkg/apis/autoscaling/v1beta1/machineautoscaler_types.go`: `minReplicas`, `maxReplicas`,
/// `scaleTargetRef {apiVersion, kind, name}`, the target in the autoscaler's namespace).
pub(super) fn machine_autoscaler(mut d: Decls<'_, '_>) {
    let spec = d.object.node.get("spec");
    let target = spec.and_then(|s| s.get("scaleTargetRef"));
    let kind = text(target.and_then(|t| t.get("kind")));
    let api_version = text(target.and_then(|t| t.get("apiVersion")));
    let group = api_version.split('/').next().unwrap_or("");
    let target_name = text(target.and_then(|t| t.get("name")));
    if kind != "MachineSet"
        || !(api_version.is_empty() || group == "machine.openshift.io")
        || target_name.is_empty()
    {
        return;
    }
    let max = count(spec.and_then(|s| s.get("maxReplicas")));
    let namespace = namespace(&d);
    let (name, at) = (d.name(), d.object_place());
    let decl = d.pool(
        "OpenShift MachineAutoscaler",
        name,
        Labels::new(),
        Vec::new(),
        at,
    );
    decl.scaling = Some(Box::new(Scaling::Autoscaler {
        namespace,
        target: target_name.into(),
        max,
    }));
}

/// A non-negative integer field.
fn count(n: Option<&crate::load::yaml::Node>) -> Option<u32> {
    n.and_then(|n| crate::load::yaml11::resolve(n).as_i64())
        .and_then(|n| u32::try_from(n).ok())
}

/// The object's namespace; the machine API's when it names none (see [`MACHINE_API_NAMESPACE`]).
fn namespace(d: &Decls<'_, '_>) -> Box<str> {
    match d.object.id.namespace.as_deref() {
        Some(ns) if !ns.is_empty() => ns.into(),
        _ => MACHINE_API_NAMESPACE.into(),
    }
}
