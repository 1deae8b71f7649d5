//! eksctl `ClusterConfig`s (`eksctl.io`): each of `nodeGroups` and `managedNodeGroups` is a
//! pool, with its labels and taints (list or deprecated map form), and the labels EKS gives
//! managed node groups' nodes (`eks.amazonaws.com/nodegroup`, `…/capacityType` from `spot`),
//! and the instance type label the kubelet sets from `instanceType`/`instanceTypes`. EKS runs
//! the ExtendedResourceToleration admission plugin, so its pools tolerate requested devices.

use std::sync::Arc;

use super::{Decls, label_map, loc, taint_list};
use crate::analysis::semantics::text;
use crate::analysis::types::{LabelValues, Labels, PoolTaint, TaintSpec};
use crate::load::SourceFile;
use crate::load::yaml::Node;

pub(super) fn cluster_config(mut d: Decls<'_, '_>) {
    for (list, origin) in [
        ("nodeGroups", "eksctl nodeGroup"),
        ("managedNodeGroups", "eksctl managedNodeGroup"),
    ] {
        for ng in d
            .object
            .node
            .get(list)
            .and_then(Node::as_seq)
            .unwrap_or_default()
        {
            let mut labels = Labels::new();
            label_map(ng.get("labels"), &mut labels);
            if origin == "eksctl managedNodeGroup" {
                // EKS labels the nodes of a managed node group with their capacity type.
                let spot = ng.get("spot").and_then(Node::text) == Some("true");
                labels.insert_absent(
                    "eks.amazonaws.com/capacityType",
                    LabelValues::one(if spot { "SPOT" } else { "ON_DEMAND" }),
                );
            }
            if let Some(types) = instance_types(ng) {
                labels.insert_absent("node.kubernetes.io/instance-type", types);
            }
            let mut taints = eksctl_taints(ng.get("taints"), d.source);
            boot_flags(ng, d.source, &mut labels, &mut taints);
            let at = d.place(ng.get("name").map_or(ng.span, |n| n.span));
            // The group's upper bound (eksctl sets `maxSize` to `desiredCapacity` when only
            // that is given).
            let size = ["maxSize", "desiredCapacity"].iter().find_map(|k| {
                let n = crate::load::yaml11::resolve(ng.get(k)?).as_i64()?;
                u32::try_from(n).ok()
            });
            let pool = d.pool(origin, text(ng.get("name")), labels, taints, at);
            pool.max_nodes = size;
            // eksctl makes EKS clusters, whose API servers run the ExtendedResourceToleration
            // admission plugin
            // (<https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html>).
            pool.extended_resource_toleration = true;
        }
    }
}

/// The instance types of a node group, which the kubelet labels its nodes with
/// (`node.kubernetes.io/instance-type`): `instanceType`, or the list of a managed group's
/// `instanceTypes` or of `instancesDistribution.instanceTypes` (`instanceType: mixed`).
/// When none is given, eksctl gives the group its default, `m5.large`
/// (eksctl-io/eksctl pkg/eks/nodegroup_service.go `Normalize`, `DefaultNodeType` in
/// pkg/apis/eksctl.io/v1alpha5/types.go), unless the types come from elsewhere: an
/// `instanceSelector`, a managed group's own `launchTemplate`, a self-managed group's
/// `instancesDistribution`, or an Outpost; then `None` (the label has some value).
fn instance_types(ng: &Node) -> Option<LabelValues> {
    let list = ng
        .get("instanceTypes")
        .or_else(|| ng.path(&["instancesDistribution", "instanceTypes"]))
        .and_then(Node::as_seq)
        .map(|l| {
            l.iter()
                .map(|t| text(Some(t)))
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|l| !l.is_empty());
    let elsewhere = [
        "instanceSelector",
        "launchTemplate",
        "instancesDistribution",
        "outpostARN",
    ]
    .iter()
    .any(|k| ng.get(k).is_some_and(|v| !v.is_null()));
    match (list, text(ng.get("instanceType"))) {
        (Some(list), _) => Some(LabelValues::of(list)),
        (None, one) if !one.is_empty() && one != "mixed" => Some(LabelValues::one(&one)),
        (None, one) if one.is_empty() && !elsewhere => Some(LabelValues::one("m5.large")),
        _ => None,
    }
}

/// The kubelet flags of a group's `overrideBootstrapCommand` (a custom AMI's boot script or
/// nodeadm `NodeConfig`, which eksctl passes to the node as written): its `--node-labels` and
/// `--register-with-taints` are labels and taints of the group's nodes beside its own.
fn boot_flags(
    ng: &Node,
    source: &Arc<SourceFile>,
    labels: &mut Labels,
    taints: &mut Vec<PoolTaint>,
) {
    let Some(command) = ng.get("overrideBootstrapCommand") else {
        return;
    };
    let flags = crate::analysis::sources::kubelet::kubelet_flags(&text(Some(command)));
    for (k, v) in &flags.labels {
        labels.insert_absent(k, LabelValues::one(v));
    }
    taints.extend(flags.taints.iter().map(|(k, v, effect)| PoolTaint {
        taint: TaintSpec::new(k, v, effect).shared(),
        loc: Some(loc(source, command.span)),
        startup: false,
    }));
}

/// eksctl taints: the list form `- {key, value, effect}` or the deprecated map form
/// `{key: "value:Effect"}`.
fn eksctl_taints(node: Option<&Node>, source: &Arc<SourceFile>) -> Vec<PoolTaint> {
    let Some(node) = node else { return Vec::new() };
    if node.as_seq().is_some() {
        return taint_list(Some(node), source, false);
    }
    node.as_map()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| {
            let raw = text(Some(v));
            let (value, effect) = raw.rsplit_once(':').unwrap_or((raw.as_str(), ""));
            PoolTaint {
                taint: TaintSpec::new(k.text().unwrap_or(""), value, effect).shared(),
                loc: Some(loc(source, k.span.cover(v.span))),
                startup: false,
            }
        })
        .collect()
}
