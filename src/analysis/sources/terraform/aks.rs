//! AKS: `azurerm_kubernetes_cluster_node_pool` and `azurerm_kubernetes_cluster`'s
//! `default_node_pool`.

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::Body;

use super::Tf;
use super::hcl::{Pool, span_of};
use crate::analysis::types::UnknownTaints;

impl Tf<'_, '_> {
    /// An AKS node pool. AKS labels nodes with `kubernetes.azure.com/agentpool` and
    /// `agentpool` (<https://learn.microsoft.com/en-us/azure/aks/use-labels>); Spot pools
    /// with `kubernetes.azure.com/scalesetpriority=spot` and the taint
    /// `kubernetes.azure.com/scalesetpriority=spot:NoSchedule`
    /// (<https://learn.microsoft.com/en-us/azure/aks/spot-node-pool>); a system pool with
    /// `only_critical_addons_enabled` gets `CriticalAddonsOnly=true:NoSchedule`
    /// (<https://learn.microsoft.com/en-us/azure/aks/use-system-pools>). `node_taints` are
    /// `key=value:Effect` strings.
    ///
    /// Its size: `max_count` when the cluster autoscaler is on (`auto_scaling_enabled`, named
    /// `enable_auto_scaling` before azurerm 4.0), else `node_count`; both count the pool's nodes
    /// over all its zones
    /// (<https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/kubernetes_cluster_node_pool#max_count>).
    pub(super) fn aks_pool(&self, body: &Body) -> Pool {
        let ev = &self.ev;
        let mut pool = Pool::new();
        pool.label_map(ev, ev.attr(body, "node_labels"));
        let name = ev.attr_lit(body, "name");
        pool.provider_label("kubernetes.azure.com/agentpool", name.clone());
        pool.provider_label("agentpool", name);
        if let Some(size) = ev.attr(body, "vm_size") {
            pool.label("node.kubernetes.io/instance-type", ev.lit(size));
        }
        let node_taints = ev.attr(body, "node_taints");
        if node_taints.is_some_and(|t| t.as_array().is_none()) {
            pool.unknown_taints = UnknownTaints::Any;
        }
        if let Some(list) = node_taints.and_then(Expression::as_array) {
            for t in list.iter() {
                let Some(spec) = ev.lit(t) else {
                    pool.unknown_taints = UnknownTaints::Any;
                    continue;
                };
                let (kv, effect) = spec.rsplit_once(':').unwrap_or((spec.as_str(), ""));
                let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
                pool.taints
                    .push(self.taint(key, value, effect, span_of(t.span())));
            }
        }
        match ev.attr(body, "priority").map(|p| ev.lit(p)) {
            Some(Some(p)) if p == "Spot" => {
                pool.provider_label("kubernetes.azure.com/scalesetpriority", Some("spot".into()));
                pool.taints.push(self.provider_taint(
                    "kubernetes.azure.com/scalesetpriority",
                    "spot",
                    "NoSchedule",
                ));
            }
            Some(None) => {
                pool.provider_label("kubernetes.azure.com/scalesetpriority", None);
                pool.unknown_taints
                    .add_key("kubernetes.azure.com/scalesetpriority");
            }
            _ => {}
        }
        if ev.is_true(body, "only_critical_addons_enabled") {
            pool.taints
                .push(self.provider_taint("CriticalAddonsOnly", "true", "NoSchedule"));
        }
        let autoscaled = match (
            ev.attr(body, "auto_scaling_enabled"),
            ev.attr(body, "enable_auto_scaling"),
        ) {
            (Some(e), _) | (None, Some(e)) => ev.flag(Some(e), false),
            (None, None) => Some(false),
        };
        let size_field = match autoscaled {
            Some(true) => Some("max_count"),
            Some(false) => Some("node_count"),
            None => None,
        };
        pool.max_nodes = size_field
            .and_then(|f| ev.attr(body, f))
            .and_then(|n| ev.count(n));
        pool
    }
}
