//! Karpenter `NodePool`s (`karpenter.sh`): the template's labels, the labels its requirements
//! guarantee (`In` one of these values) or allow (`Exists`, `NotIn`, `Gt`, `Lt`: any value),
//! its taints and its startup taints. A NodePool of AWS's provider (an EC2NodeClass) is on
//! EKS, whose API servers run the ExtendedResourceToleration admission plugin.

use super::{Decls, taint_list, template_labels};
use crate::analysis::semantics::text;
use crate::analysis::types::LabelValues;
use crate::load::yaml::Node;

pub(super) fn node_pool(mut d: Decls<'_, '_>) {
    let tmpl = d.object.node.path(&["spec", "template"]);
    let mut labels = template_labels(tmpl);
    for req in tmpl
        .and_then(|t| t.path(&["spec", "requirements"]))
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let key = text(req.get("key"));
        let values: Vec<String> = req
            .get("values")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .map(|v| text(Some(v)))
            .collect();
        match text(req.get("operator")).as_str() {
            "In" if !values.is_empty() => {
                labels.insert(&key, LabelValues::of(values));
            }
            "Exists" | "NotIn" | "Gt" | "Lt" => {
                labels.insert_absent(&key, LabelValues::Any);
            }
            _ => continue,
        }
    }
    let spec = tmpl.and_then(|t| t.get("spec"));
    let mut taints = taint_list(spec.and_then(|s| s.get("taints")), d.source, false);
    taints.extend(taint_list(
        spec.and_then(|s| s.get("startupTaints")),
        d.source,
        true,
    ));
    let (name, at) = (d.name(), d.object_place());
    // `limits.nodes` caps how many nodes the NodePool launches (a resource limit like cpu).
    let size = d
        .object
        .node
        .path(&["spec", "limits", "nodes"])
        .and_then(|n| crate::load::yaml11::resolve(n).as_i64())
        .and_then(|n| u32::try_from(n).ok());
    // An AWS node class (`karpenter.k8s.aws`, the provider's default group) means EKS, whose
    // API servers run the ExtendedResourceToleration admission plugin
    // (<https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html>); Azure's
    // (`karpenter.azure.com`) means AKS, which does not say it runs it.
    let class = tmpl.and_then(|t| t.path(&["spec", "nodeClassRef"]));
    let field = |k: &str| class.and_then(|c| c.get(k)).map(|v| text(Some(v)));
    // v1 names the `group`; v1beta1 an `apiVersion`; both default to AWS's provider.
    let aws = class.is_some()
        && field("group").is_none_or(|g| g == "karpenter.k8s.aws")
        && field("apiVersion").is_none_or(|v| v.starts_with("karpenter.k8s.aws/"))
        && field("kind").is_none_or(|k| k == "EC2NodeClass");
    let pool = d.pool("NodePool", name, labels, taints, at);
    pool.max_nodes = size;
    pool.extended_resource_toleration = aws;
}
