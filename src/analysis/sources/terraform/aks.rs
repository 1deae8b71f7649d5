//! AKS: `azurerm_kubernetes_cluster_node_pool` and `azurerm_kubernetes_cluster`'s
//! `default_node_pool`.

use super::Tf;
use super::hcl::{Pool, field, flag, list_items};
use super::value::Val;

impl Tf<'_> {
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
    pub(super) fn aks_pool(&self, body: &Val) -> Pool {
        let mut pool = Pool::new();
        pool.label_map(body.get("node_labels"));
        let name = field(body, "name");
        if let Some(n) = &name {
            pool.note_val("labels.agentpool", n);
        }
        let name = name.and_then(|n| n.text());
        pool.provider_label("kubernetes.azure.com/agentpool", name.clone());
        pool.provider_label("agentpool", name);
        if let Some(size) = field(body, "vm_size") {
            pool.label_val("node.kubernetes.io/instance-type", &size);
        }
        let (taints, more) = list_items(body.get("node_taints"));
        if let Some(c) = more {
            pool.open_taints(&c);
        }
        for t in &taints {
            let Some(spec) = t.text() else {
                let c = t
                    .cause()
                    .cloned()
                    .unwrap_or_else(|| super::hcl::wrong("a taint"));
                pool.open_taints(&c);
                continue;
            };
            let (kv, effect) = spec.rsplit_once(':').unwrap_or((spec.as_str(), ""));
            let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
            pool.taints.push(self.taint(key, value, effect, t.at));
        }
        match field(body, "priority").map(|p| (p.text(), p)) {
            Some((Some(p), _)) if p == "Spot" => {
                pool.provider_label("kubernetes.azure.com/scalesetpriority", Some("spot".into()));
                pool.taints.push(self.provider_taint(
                    "kubernetes.azure.com/scalesetpriority",
                    "spot",
                    "NoSchedule",
                ));
            }
            Some((None, p)) => {
                pool.note_val("labels.kubernetes.azure.com/scalesetpriority", &p);
                pool.provider_label("kubernetes.azure.com/scalesetpriority", None);
                pool.unknown_taints
                    .add_key("kubernetes.azure.com/scalesetpriority");
            }
            _ => {}
        }
        if flag(body, "only_critical_addons_enabled", false) == Some(true) {
            pool.taints
                .push(self.provider_taint("CriticalAddonsOnly", "true", "NoSchedule"));
        }
        let autoscaled = match (
            body.look("auto_scaling_enabled").val(),
            body.look("enable_auto_scaling").val(),
        ) {
            (Some(e), _) | (None, Some(e)) => e.as_bool(),
            (None, None) => Some(false),
        };
        let size_field = match autoscaled {
            Some(true) => Some("max_count"),
            Some(false) => Some("node_count"),
            None => None,
        };
        pool.max_nodes = size_field
            .and_then(|f| field(body, f))
            .and_then(|n| n.count());
        pool
    }
}
