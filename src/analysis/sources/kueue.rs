//! Kueue's LocalQueues, ClusterQueues and ResourceFlavors read out of the linted files (see
//! `types::kueue`). A `ResourceFlavor` is no node pool: it is Kueue's quota view of some nodes.

use std::sync::Arc;

use crate::analysis::semantics::text;
use crate::analysis::types::kueue::{ClusterQueue, Flavor, Kueue, LocalQueue, ResourceGroup};
use crate::load::yaml::Node;
use crate::load::{Loc, SourceFile};
use crate::model::Object;

fn is_kueue(object: &Object<'_>) -> bool {
    object.group == "kueue.x-k8s.io" && matches!(object.version, "v1beta1" | "v1beta2")
}

fn strings(node: Option<&Node>) -> Vec<String> {
    node.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|n| n.text().map(str::to_string))
        .collect()
}

impl Kueue {
    /// Takes in `object` if it is a Kueue LocalQueue, ClusterQueue or ResourceFlavor.
    pub fn add(&mut self, object: &Object<'_>, source: &Arc<SourceFile>) {
        if !is_kueue(object) {
            return;
        }
        let Some(name) = object.id.name.clone() else {
            return;
        };
        let spec = object.node.get("spec");
        match object.kind {
            "LocalQueue" => {
                let Some(cq) = spec
                    .and_then(|s| s.get("clusterQueue"))
                    .and_then(Node::text)
                else {
                    return;
                };
                self.local_queues.push(LocalQueue {
                    namespace: object.id.namespace.clone(),
                    name,
                    cluster_queue: cq.to_string(),
                });
            }
            "ClusterQueue" => {
                let groups = spec
                    .and_then(|s| s.get("resourceGroups"))
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .map(|g| ResourceGroup {
                        covered: strings(g.get("coveredResources")),
                        flavors: g
                            .get("flavors")
                            .and_then(Node::as_seq)
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|f| f.get("name").and_then(Node::text))
                            .map(str::to_string)
                            .collect(),
                    })
                    .collect();
                self.cluster_queues.push(ClusterQueue { name, groups });
            }
            "ResourceFlavor" => {
                let list = |key: &str| {
                    spec.and_then(|s| s.get(key))
                        .and_then(Node::as_seq)
                        .unwrap_or_default()
                };
                let field = |n: &Node, k: &str| text(n.get(k));
                let node_labels = spec
                    .and_then(|s| s.get("nodeLabels"))
                    .and_then(Node::as_map)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|(k, v)| Some((k.text()?.to_string(), text(Some(v)))))
                    .collect();
                let node_taints = list("nodeTaints")
                    .iter()
                    .map(|t| (field(t, "key"), field(t, "value"), field(t, "effect")))
                    .collect();
                let tolerations = list("tolerations")
                    .iter()
                    .map(|t| {
                        let op = field(t, "operator");
                        // The API's default operator is Equal.
                        let op = if op.is_empty() { "Equal".into() } else { op };
                        (field(t, "key"), op, field(t, "value"), field(t, "effect"))
                    })
                    .collect();
                let span = object
                    .node
                    .path(&["metadata", "name"])
                    .map_or(object.node.span, |n| n.span);
                self.flavors.push(Flavor {
                    name,
                    node_labels,
                    node_taints,
                    tolerations,
                    loc: Loc {
                        source: source.lite([span.start, span.end.max(span.start)]),
                        span,
                    },
                });
            }
            _ => {}
        }
    }
}
