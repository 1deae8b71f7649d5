//! taintlint's own `Inventory` files (`taintlint.dev`) and the config's inline pools:
//! `pools: [{name, labels, taints: ["key=value:Effect"]}]`.

use std::sync::Arc;

use super::{Decls, label_map, loc};
use crate::analysis::semantics::text;
use crate::analysis::types::{Labels, NodeDecl, PoolTaint, TaintSpec};
use crate::load::SourceFile;
use crate::load::yaml::Node;

pub(super) fn inventory(d: Decls<'_, '_>) {
    if let Some(pools) = d.object.node.get("pools") {
        d.out.extend(inventory_pools(pools, d.source));
    }
}

/// Pools written in taintlint's own format: `[{name, labels, taints: ["key=value:Effect"]}]`.
pub fn inventory_pools(pools: &Node, source: &Arc<SourceFile>) -> Vec<NodeDecl> {
    let mut out = Vec::new();
    for pool in pools.as_seq().unwrap_or_default() {
        let pool_name = text(pool.get("name"));
        let mut labels = Labels::new();
        label_map(pool.get("labels"), &mut labels);
        let mut taints = Vec::new();
        for t in pool
            .get("taints")
            .and_then(Node::as_seq)
            .unwrap_or_default()
        {
            if let Some(spec) = t.text().and_then(|s| parse_taint_spec(s).ok()) {
                taints.push(PoolTaint {
                    taint: spec.shared(),
                    loc: Some(loc(source, t.span)),
                    startup: false,
                });
            }
        }
        labels.shrink_to_fit();
        out.push(NodeDecl {
            origin: "Inventory pool",
            name: pool_name,
            is_node: false,
            max_nodes: None,
            labels,
            taints,
            unschedulable: false,
            open_labels: true,
            any_label: false,
            extended_resource_toleration: false,
            unknown_taints: Default::default(),
            scaling: None,
            loc: loc(source, pool.get("name").map_or(pool.span, |n| n.span)),
            declared: true,
            terraform: None,
        });
    }
    out
}

/// Parses `key[=value]:Effect` with `kubectl taint`'s checks and messages
/// (staging/src/k8s.io/kubectl/pkg/cmd/taint in kubernetes/kubernetes):
/// effect, then value, then key; the first failure is returned.
pub fn parse_taint_spec(spec: &str) -> Result<TaintSpec, String> {
    let settings = crate::settings::Settings::default();
    let parts: Vec<&str> = spec.split(':').collect();
    if parts.len() != 2 {
        return Err(format!("invalid taint spec: {spec}"));
    }
    let effect = parts[1];
    if !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
        return Err(format!(
            "invalid taint effect: {effect}, unsupported taint effect"
        ));
    }
    let kv: Vec<&str> = parts[0].split('=').collect();
    if kv.len() > 2 {
        return Err(format!("invalid taint spec: {spec}"));
    }
    let key = kv[0];
    let value = kv.get(1).copied().unwrap_or("");
    if kv.len() == 2 {
        let errs = crate::analysis::semantics::validation::label_value_errors(value, &settings);
        if !errs.is_empty() {
            return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
        }
    }
    let errs = crate::analysis::semantics::validation::label_key_errors(key, &settings);
    if !errs.is_empty() {
        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
    }
    Ok(TaintSpec::new(key, value, effect))
}
