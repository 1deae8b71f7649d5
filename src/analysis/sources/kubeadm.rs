//! kubeadm `InitConfiguration`/`JoinConfiguration` (`kubeadm.k8s.io`) and
//! `KubeletConfiguration` (`registerWithTaints`): the taints a node registers with. A
//! control-plane node without `nodeRegistration.taints` gets kubeadm's default
//! control-plane taint.

use super::{Decls, kubeadm_default_taint, taint_list};
use crate::analysis::semantics::text;
use crate::analysis::types::Labels;

pub(super) fn kubeadm(mut d: Decls<'_, '_>) {
    let object = d.object;
    let control_plane =
        object.kind == "InitConfiguration" || object.node.get("controlPlane").is_some();
    let reg = object.node.get("nodeRegistration");
    let taints_node = reg.and_then(|r| r.get("taints")).filter(|t| !t.is_null());
    let taints = match taints_node {
        Some(list) => taint_list(Some(list), d.source, false),
        None if control_plane => vec![kubeadm_default_taint()],
        None => Vec::new(),
    };
    let node_name = text(reg.and_then(|r| r.get("name")));
    let label = if control_plane {
        "kubeadm control plane"
    } else {
        "kubeadm worker"
    };
    let at = d.place(reg.map_or(object.node.span, |r| {
        r.entry("taints").map_or(r.span, |(k, _)| k.span)
    }));
    let pool_name = if node_name.is_empty() {
        label.to_string()
    } else {
        node_name
    };
    d.pool("kubeadm", pool_name, Labels::new(), taints, at);
}

pub(super) fn kubelet(mut d: Decls<'_, '_>) {
    let Some(list) = d.object.node.get("registerWithTaints") else {
        return;
    };
    let taints = taint_list(Some(list), d.source, false);
    let at = d.place(list.span);
    let name = d.name();
    let name = if name.is_empty() {
        "kubelet".to_string()
    } else {
        name
    };
    d.pool("KubeletConfiguration", name, Labels::new(), taints, at);
}
