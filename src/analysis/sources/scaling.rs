//! Pool sizes set by another object than the pool's own: an OpenShift `MachineAutoscaler`
//! (`autoscaling.openshift.io/v1beta1`) sizes the MachineSet its `spec.scaleTargetRef` names,
//! in its own namespace, up to its `spec.maxReplicas`. The two are often in different files
//! (the MachineSets from the installer, the autoscalers in a GitOps repository), so they are
//! linked when the inventory is built, over every file's declarations.
//!
//! The cluster-autoscaler-operator's MachineAutoscaler controller
//! (openshift/cluster-autoscaler-operator, `pkg/controller/machineautoscaler/
//! machineautoscaler_controller.go`) writes `maxReplicas` and `minReplicas` on the target (in
//! the MachineAutoscaler's namespace) as the `machine.openshift.io/cluster-api-autoscaler-
//! node-group-{max,min}-size` annotations, and the cluster autoscaler scales the MachineSet
//! between them (kubernetes/autoscaler `cluster-autoscaler/cloudprovider/clusterapi/
//! README.md`: a node group is autoscaled only with both annotations). The MachineAutoscaler's
//! `maxReplicas` therefore replaces whatever the MachineSet says of its size.
//!
//! **A MachineSet sized only by `spec.replicas`** is not bounded by it: a MachineAutoscaler
//! that is not among the files (applied by hand, or from another repository) may scale it
//! further, as eksctl's `desiredCapacity` would not (eksctl sets the Auto Scaling group's
//! `maxSize` to it). Found among the linted files, such a MachineSet is of unknown size (no
//! `anti-affinity-exceeds-nodes` rests on it); in a declared inventory (`--inventory`, the
//! config's `inventory:`), a closed world, the autoscalers that size it are declared with it
//! and `replicas` is its size.

use std::collections::HashMap;

use crate::analysis::types::node_decl::{NodeDecl, Scaling};

/// The namespace OpenShift's machine API works in (the machine-api-operator's controllers
/// watch only it): a MachineSet or MachineAutoscaler written without a namespace is applied
/// there.
pub(super) const MACHINE_API_NAMESPACE: &str = "openshift-machine-api";

/// The origin of OpenShift MachineSet pools.
pub(super) const MACHINE_SET: &str = "OpenShift MachineSet";

/// Takes the autoscalers out of `decls` and sizes the MachineSets they target; a MachineSet
/// sized by `spec.replicas` alone and not declared gets no size. Every declaration leaves
/// without its `scaling`.
#[allow(clippy::vec_box)] // the inventory's declarations come boxed
pub(super) fn link(decls: &mut Vec<Box<NodeDecl>>) {
    if decls.iter().all(|d| d.scaling.is_none()) {
        return;
    }
    // Several autoscalers on one MachineSet (the operator would keep rewriting its
    // annotations): the largest bound, unknown if any is.
    let mut max: HashMap<(Box<str>, Box<str>), Option<u32>> = HashMap::new();
    decls.retain(|d| match d.scaling.as_deref() {
        Some(Scaling::Autoscaler {
            namespace,
            target,
            max: m,
        }) => {
            max.entry((namespace.clone(), target.clone()))
                .and_modify(|e| *e = e.zip(*m).map(|(a, b)| a.max(b)))
                .or_insert(*m);
            false
        }
        _ => true,
    });
    for d in decls.iter_mut() {
        let Some(scaling) = d.scaling.take() else {
            continue;
        };
        if let Scaling::MachineSet {
            namespace,
            replicas_only,
        } = *scaling
        {
            match max.get(&(namespace, d.name.as_str().into())) {
                Some(m) => d.max_nodes = *m,
                None if replicas_only && !d.declared => d.max_nodes = None,
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::types::{labels::Labels, place::Place};
    use crate::load::{Loc, SourceFile, Span};
    fn decl(name: &str, max_nodes: Option<u32>, scaling: Scaling) -> Box<NodeDecl> {
        let source = SourceFile::new("m.yaml", String::new());
        Box::new(NodeDecl {
            origin: MACHINE_SET,
            name: name.to_string(),
            is_node: false,
            max_nodes,
            labels: Labels::new(),
            taints: Vec::new(),
            unschedulable: false,
            open_labels: true,
            any_label: false,
            extended_resource_toleration: false,
            unknown_taints: Default::default(),
            scaling: Some(Box::new(scaling)),
            loc: Place::Here(Loc {
                source,
                span: Span::default(),
            }),
            declared: false,
            terraform: None,
        })
    }

    fn set(ns: &str, replicas_only: bool) -> Scaling {
        Scaling::MachineSet {
            namespace: ns.into(),
            replicas_only,
        }
    }

    fn scaler(ns: &str, target: &str, max: Option<u32>) -> Scaling {
        Scaling::Autoscaler {
            namespace: ns.into(),
            target: target.into(),
            max,
        }
    }

    fn sizes(decls: &[Box<NodeDecl>]) -> Vec<(&str, Option<u32>)> {
        decls
            .iter()
            .map(|d| (d.name.as_str(), d.max_nodes))
            .collect()
    }

    #[test]
    fn autoscalers_size_their_machine_set_in_their_namespace() {
        let ns = MACHINE_API_NAMESPACE;
        let mut decls = vec![
            // Annotated 2, but an autoscaler elsewhere allows 6: the autoscaler wins.
            decl("gpu", Some(2), set(ns, false)),
            // Replicas only, no autoscaler: unknown.
            decl("web", Some(2), set(ns, true)),
            // An autoscaler of another namespace does not size it.
            decl("db", Some(3), set(ns, true)),
            // Two autoscalers: the larger bound.
            decl("batch", Some(1), set(ns, true)),
            // An autoscaler with a non-literal bound: unknown.
            decl("infra", Some(3), set(ns, false)),
            decl("a1", None, scaler(ns, "gpu", Some(6))),
            decl("a2", None, scaler("other", "db", Some(9))),
            decl("a3", None, scaler(ns, "batch", Some(4))),
            decl("a4", None, scaler(ns, "batch", Some(7))),
            decl("a5", None, scaler(ns, "infra", None)),
        ];
        link(&mut decls);
        assert_eq!(
            sizes(&decls),
            [
                ("gpu", Some(6)),
                ("web", None),
                ("db", None),
                ("batch", Some(7)),
                ("infra", None)
            ]
        );
        assert!(decls.iter().all(|d| d.scaling.is_none()));
    }

    #[test]
    fn declared_replicas_are_a_size_and_annotations_stay() {
        let ns = MACHINE_API_NAMESPACE;
        let mut declared = decl("web", Some(2), set(ns, true));
        declared.declared = true;
        let mut decls = vec![declared, decl("gpu", Some(5), set(ns, false))];
        link(&mut decls);
        assert_eq!(sizes(&decls), [("web", Some(2)), ("gpu", Some(5))]);
    }
}
