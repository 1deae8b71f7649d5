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
//! Size: the `machine.openshift.io/cluster-api-autoscaler-node-group-max-size` annotation (set
//! on the MachineSet by its MachineAutoscaler, and read by the cluster autoscaler), else
//! `spec.replicas`. A MachineAutoscaler object is not linked to its MachineSet here.

use super::{Decls, label_map, taint_list, text};
use crate::analysis::inventory::{LabelValues, Labels};

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
    let size = node
        .path(&["metadata", "annotations", MAX_SIZE])
        .and_then(|n| text(Some(n)).trim().parse::<u32>().ok())
        .or_else(|| {
            node.path(&["spec", "replicas"])
                .and_then(|n| crate::load::yaml11::resolve(n).as_i64())
                .and_then(|n| u32::try_from(n).ok())
        });
    let (name, at) = (d.name(), d.object_place());
    let decl = d.pool("OpenShift MachineSet", name, labels, taints, at);
    decl.max_nodes = size;
    // Custom user data: a MachineConfigPool of the user's may register more labels.
    decl.any_label = user_data.is_some() && !worker;
}
