//! Cluster API (`cluster.x-k8s.io` and its bootstrap and control-plane groups): a `Machine`'s
//! taints, a `MachineSet`'s or `MachineDeployment`'s template, the join taints of a
//! `KubeadmConfigTemplate`, and a `KubeadmControlPlane`'s registration taints (kubeadm's
//! default control-plane taint when it names none).

use super::{Decls, kubeadm_default_taint, taint_list, template_labels};
use crate::analysis::inventory::Labels;

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
    let (name, at) = (d.name(), d.object_place());
    d.pool(origin, name, labels, taints, at);
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
