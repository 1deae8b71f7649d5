//! `Node` objects (manifests or a live dump): one node each, with exactly its labels, its
//! taints and its cordon.

use super::{Decls, label_map, taint_list};
use crate::analysis::types::Labels;
use crate::load::yaml::Node;

pub(super) fn node(mut d: Decls<'_, '_>) {
    let object = d.object;
    let mut labels = Labels::new();
    label_map(object.labels, &mut labels);
    let taints = taint_list(object.node.path(&["spec", "taints"]), d.source, false);
    let (name, at) = (d.name(), d.object_place());
    let decl = d.declare("Node", name, true, labels, taints, at);
    decl.unschedulable = object.unschedulable.and_then(Node::text) == Some("true");
}
