//! Cluster API (`cluster.x-k8s.io` and its bootstrap and control-plane groups): a `Machine`'s
//! taints, a `MachineSet`'s or `MachineDeployment`'s template, the join taints of a
//! `KubeadmConfigTemplate`, and a `KubeadmControlPlane`'s registration taints (kubeadm's
//! default control-plane taint when it names none).
//!
//! Size of a `MachineSet` or `MachineDeployment`: the cluster autoscaler scales one only when
//! it carries both `cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size` and `…-max-size`
//! (kubernetes/autoscaler `cluster-autoscaler/cloudprovider/clusterapi/README.md`), up to the
//! max; without them it does not touch the object, and its literal `spec.replicas` is its size.
//! Unlike OpenShift's MachineAutoscaler (see `openshift.rs`), the autoscaling is written on the
//! object itself, so the files say whether it is autoscaled. An absent or non-literal
//! `replicas` is no size.

use super::{Decls, kubeadm_default_taint, taint_list, template_labels};
use crate::analysis::semantics::text;
use crate::analysis::types::Labels;
use crate::load::yaml::Node;

pub(super) fn machine(mut d: Decls<'_, '_>) {
    let taints = taint_list(d.object.node.path(&["spec", "taints"]), d.source, false);
    let (name, at) = (d.name(), d.object_place());
    d.pool("Cluster API Machine", name, Labels::new(), taints, at);
}

pub(super) fn machine_template(mut d: Decls<'_, '_>) {
    let tmpl = d.object.node.path(&["spec", "template"]);
    let labels = template_labels(tmpl);
    let taints = taint_list(
        tmpl.and_then(|t| t.path(&["spec", "taints"])),
        d.source,
        false,
    );
    let origin = if d.object.kind == "MachineSet" {
        "Cluster API MachineSet"
    } else {
        "Cluster API MachineDeployment"
    };
    let size = capi_size(d.object.node);
    let (name, at) = (d.name(), d.object_place());
    d.pool(origin, name, labels, taints, at).max_nodes = size;
}

const MIN_SIZE: &str = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size";
const MAX_SIZE: &str = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size";

/// See the module's text; `None` when unknown.
fn capi_size(node: &Node) -> Option<u32> {
    let annotation = |key: &str| node.path(&["metadata", "annotations", key]);
    match (annotation(MIN_SIZE), annotation(MAX_SIZE)) {
        (Some(_), Some(max)) => text(Some(max)).trim().parse::<u32>().ok(),
        // Half the pair: the autoscaler ignores the object (it logs the missing one).
        _ => node
            .path(&["spec", "replicas"])
            .and_then(|n| crate::load::yaml11::resolve(n).as_i64())
            .and_then(|n| u32::try_from(n).ok()),
    }
}

pub(super) fn kubeadm_config_template(mut d: Decls<'_, '_>) {
    let reg = d.object.node.path(&[
        "spec",
        "template",
        "spec",
        "joinConfiguration",
        "nodeRegistration",
    ]);
    if let Some(list) = reg.and_then(|r| r.get("taints")) {
        let taints = taint_list(Some(list), d.source, false);
        let (name, at) = (d.name(), d.object_place());
        d.pool("KubeadmConfigTemplate", name, Labels::new(), taints, at);
    }
}

pub(super) fn kubeadm_control_plane(mut d: Decls<'_, '_>) {
    let spec = d.object.node.path(&["spec", "kubeadmConfigSpec"]);
    let reg = spec
        .and_then(|s| s.path(&["initConfiguration", "nodeRegistration"]))
        .or_else(|| spec.and_then(|s| s.path(&["joinConfiguration", "nodeRegistration"])));
    let taints = match reg.and_then(|r| r.get("taints")).filter(|t| !t.is_null()) {
        Some(list) => taint_list(Some(list), d.source, false),
        None => vec![kubeadm_default_taint()],
    };
    let (name, at) = (d.name(), d.object_place());
    d.pool("KubeadmControlPlane", name, Labels::new(), taints, at);
}
