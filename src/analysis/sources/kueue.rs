//! Kueue `ResourceFlavor`s (`kueue.x-k8s.io`): the nodes a flavor stands for, with the labels
//! (`nodeLabels`) and taints (`nodeTaints`) Kueue assumes they have. Its `tolerations` are
//! lent to the workloads it admits (see `model::Object::lends_tolerations`).

use super::{Decls, label_map, taint_list};
use crate::analysis::inventory::Labels;

pub(super) fn resource_flavor(mut d: Decls<'_, '_>) {
    let spec = d.object.node.get("spec");
    let mut labels = Labels::new();
    label_map(spec.and_then(|s| s.get("nodeLabels")), &mut labels);
    let taints = taint_list(spec.and_then(|s| s.get("nodeTaints")), d.source, false);
    let (name, at) = (d.name(), d.object_place());
    d.pool("Kueue ResourceFlavor", name, labels, taints, at);
}
