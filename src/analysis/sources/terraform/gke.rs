//! GKE: `google_container_node_pool`, `google_container_cluster`'s default and inline pools,
//! and terraform-google-modules/kubernetes-engine's `node_pools`.
//!
//! Sizes: a GKE pool's `node_count` and `autoscaling.max_node_count` count nodes *per zone*
//! (`total_max_node_count` counts them all): "max_node_count - (Optional) Maximum number of nodes
//! per zone in the NodePool"
//! (<https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool#max_node_count>).
//! So a size is known only with the pool's zones: its literal `node_locations`, or a `location`
//! that is one zone.

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::Body;

use super::Tf;
use super::hcl::{Ev, Pool, has_dynamic, span_of};
use crate::analysis::types::UnknownTaints;

/// How many zones a pool's nodes are spread over: its `node_locations` (else the cluster's,
/// for an inline pool), else 1 for a `location` that is a zone (`europe-west1-b`); `None`
/// for a region (its zones are the cluster's, or the region's) or an unknown value.
pub(super) fn zones(ev: &Ev<'_>, pool: &Body, cluster: Option<&Body>) -> Option<u32> {
    for body in std::iter::once(pool).chain(cluster) {
        if let Some(list) = ev.attr(body, "node_locations") {
            let list = ev.resolve(list).as_array()?;
            // Distinct literal zones.
            let mut zones: Vec<String> = list.iter().map(|z| ev.lit(z)).collect::<Option<_>>()?;
            zones.sort();
            zones.dedup();
            return u32::try_from(zones.len()).ok().filter(|n| *n > 0);
        }
    }
    let location = cluster
        .and_then(|c| ev.attr_lit(c, "location"))
        .or_else(|| ev.attr_lit(pool, "location"))?;
    is_zone(&location).then_some(1)
}

/// `europe-west1-b` is a zone, `europe-west1` a region.
fn is_zone(location: &str) -> bool {
    let parts: Vec<&str> = location.split('-').collect();
    parts.len() == 3
        && parts[2].len() == 1
        && parts[2].chars().all(|c| c.is_ascii_lowercase())
        && parts[1].chars().last().is_some_and(|c| c.is_ascii_digit())
}

/// `per_zone × zones`, when both are known.
fn times(per_zone: Option<u32>, zones: Option<u32>) -> Option<u32> {
    per_zone?.checked_mul(zones?)
}

impl Tf<'_, '_> {
    /// A GKE node pool (`google_container_node_pool`, or a cluster's default or inline pool). GKE
    /// labels nodes with `cloud.google.com/gke-nodepool`
    /// (<https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools#deploying_services_to_specific_node_pools>),
    /// Spot and preemptible VMs with `cloud.google.com/gke-spot`/`cloud.google.com/gke-preemptible`
    /// (<https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms>,
    /// <https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms>), and GPU nodes
    /// with `cloud.google.com/gke-accelerator` and the taint `nvidia.com/gpu=present:NoSchedule`
    /// (<https://cloud.google.com/kubernetes-engine/docs/how-to/gpus>). Its size: see the module's
    /// text.
    pub(super) fn gke_pool(
        &self,
        body: &Body,
        pool_name: Option<String>,
        zones: Option<u32>,
    ) -> Pool {
        let ev = &self.ev;
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        pool.provider_label("cloud.google.com/gke-nodepool", pool_name);
        pool.max_nodes = self.gke_size(body, zones);
        if has_dynamic(body, "node_config") || ev.attr(body, "node_config").is_some() {
            pool.unknown();
        }
        let Some(config) = body.get_blocks("node_config").next() else {
            return pool;
        };
        let config = &config.body;
        // A `dynamic` block or a computed list (`[for … in … : …]`) may hold an accelerator
        // or none: the GPU label and taint are unknown.
        let computed = ev
            .attr(config, "guest_accelerator")
            .is_some_and(|a| a.as_array().is_none());
        if has_dynamic(config, "guest_accelerator") || computed {
            pool.provider_label("cloud.google.com/gke-accelerator", None);
            pool.unknown_taints.add_key("nvidia.com/gpu");
        }
        pool.label_map(ev, ev.attr(config, "labels"));
        self.taint_blocks(&mut pool, config, "taint");
        // `taint = [ … ]` (attribute syntax).
        self.taint_objects(&mut pool, ev.attr(config, "taint"));
        if let Some(machine) = ev.attr(config, "machine_type") {
            pool.label("node.kubernetes.io/instance-type", ev.lit(machine));
        }
        for field in ["spot", "preemptible"] {
            capacity_label(ev, &mut pool, field, ev.attr(config, field));
        }
        let mut accelerators: Vec<Option<String>> = config
            .get_blocks("guest_accelerator")
            .map(|b| ev.attr_lit(&b.body, "type"))
            .collect();
        if let Some(a) = ev
            .attr(config, "guest_accelerator")
            .and_then(Expression::as_array)
        {
            accelerators.extend(
                a.iter()
                    .map(|g| ev.entry(g, "type").and_then(|t| ev.lit(t))),
            );
        }
        if let Some(first) = accelerators.into_iter().next() {
            self.gpu(&mut pool, first);
        }
        pool
    }

    /// A pool's most nodes: `autoscaling.total_max_node_count`, else
    /// `autoscaling.max_node_count` per zone, else (not autoscaled) `node_count` per zone.
    fn gke_size(&self, body: &Body, zones: Option<u32>) -> Option<u32> {
        let ev = &self.ev;
        if has_dynamic(body, "autoscaling") {
            return None;
        }
        if let Some(a) = body.get_blocks("autoscaling").next() {
            if let Some(total) = ev.attr(&a.body, "total_max_node_count") {
                return ev.count(total);
            }
            return times(
                ev.attr(&a.body, "max_node_count").and_then(|n| ev.count(n)),
                zones,
            );
        }
        times(ev.attr(body, "node_count").and_then(|n| ev.count(n)), zones)
    }

    pub(super) fn gpu(&self, pool: &mut Pool, accelerator: Option<String>) {
        pool.provider_label("cloud.google.com/gke-accelerator", accelerator);
        pool.taints
            .push(self.provider_taint("nvidia.com/gpu", "present", "NoSchedule"));
    }

    /// terraform-google-modules/kubernetes-engine: `node_pools` is a list of pools (`name`,
    /// `machine_type`, `spot`, `preemptible`, `accelerator_type`, `autoscaling`, `max_count`,
    /// `total_max_count`, `node_count`, `node_locations`); `node_pools_labels` and
    /// `node_pools_taints` are keyed by pool name, with `all` for every pool.
    ///
    /// The module labels each pool's nodes itself, before those maps (its `cluster.tf`,
    /// generated from `autogen/main/cluster.tf.tmpl`: `labels = merge(lookup(lookup(
    /// local.node_pools_labels, "default_values", {}), "cluster_name", true) ? {
    /// "cluster_name" = var.name } : {}, … "node_pool" = each.value["name"] …,
    /// local.node_pools_labels["all"], local.node_pools_labels[each.value["name"]])`):
    /// `cluster_name` (the module's `name`) and `node_pool` (the pool's name), unless
    /// `node_pools_labels.default_values` turns them off.
    ///
    /// Sizes, from the same file: `autoscaling` (default `true`) with `total_max_count`, else
    /// `max_count` (default 100) per zone; without autoscaling, `node_count` (default 1) per
    /// zone. The zones are the pool's `node_locations` (comma-separated), else the module's
    /// `zones`, else, for a regional cluster (`regional`, default `true`), the 3 zones the
    /// module picks (`random_shuffle.available_zones`, `result_count = 3`, in `main.tf`).
    pub(super) fn gke_module(&mut self, body: &Body) {
        let ev = &self.ev;
        let Some(pools) = ev.attr(body, "node_pools").map(|p| ev.resolve(p)) else {
            return;
        };
        let pools = match (pools.as_array(), pools) {
            (Some(p), _) => p,
            (None, Expression::Null(_)) => return,
            // `[for … : { … }]`, `var.node_pools`: pools of unknown number, names, labels
            // and taints.
            (None, other) => {
                let mut pool = Pool::new();
                pool.extended_resource_toleration = true;
                pool.unknown();
                let at = span_of(other.span());
                self.push("Terraform module", "node_pools[*]".to_string(), pool, at);
                return;
            }
        };
        let labels = ev.attr(body, "node_pools_labels");
        let taints = ev.attr(body, "node_pools_taints");
        let cluster_name = ev.attr(body, "name").map(|n| ev.lit(n));
        let default_on = |key: &str| -> Option<bool> {
            let Some(l) = labels else { return Some(true) };
            let Some(dv) = ev.entry(l, "default_values") else {
                return ev.entries(l).map(|_| true);
            };
            ev.flag(ev.entry(dv, key), true)
        };
        let module_zones = match ev.attr(body, "zones") {
            Some(z) => ev
                .resolve(z)
                .as_array()
                .map(|a| a.iter().map(|z| ev.lit(z)).collect::<Option<Vec<_>>>())
                .and_then(|z| z.filter(|z| !z.is_empty()))
                .and_then(|z| u32::try_from(z.len()).ok()),
            None => match ev.flag(ev.attr(body, "regional"), true) {
                Some(true) => Some(3),
                _ => None,
            },
        };
        let mut out = Vec::new();
        for np in pools.iter() {
            let np = ev.resolve(np);
            let at = span_of(np.span());
            if ev.entries(np).is_none() {
                // A pool that needs evaluation: its name, and so its labels and taints, unknown.
                let mut pool = Pool::new();
                pool.extended_resource_toleration = true;
                pool.unknown();
                out.push(("node_pools[*]".to_string(), pool, at));
                continue;
            }
            let name = ev.entry(np, "name").and_then(|n| ev.lit(n));
            let mut pool = Pool::new();
            pool.extended_resource_toleration = true;
            pool.provider_label("cloud.google.com/gke-nodepool", name.clone());
            match default_on("cluster_name") {
                Some(true) => pool.label("cluster_name", cluster_name.clone().flatten()),
                Some(false) => {}
                None => pool.label("cluster_name", None),
            }
            match default_on("node_pool") {
                Some(true) => pool.label("node_pool", name.clone()),
                Some(false) => {}
                None => pool.label("node_pool", None),
            }
            for scope in ["all", name.as_deref().unwrap_or("")] {
                if let Some(l) = labels {
                    if ev.entries(l).is_none() {
                        pool.any_label = true;
                    } else if let Some(set) = ev.entry(l, scope) {
                        pool.label_map(ev, Some(set));
                    }
                }
                if let Some(t) = taints {
                    if ev.entries(t).is_none() {
                        pool.unknown_taints = UnknownTaints::Any;
                    } else if let Some(set) = ev.entry(t, scope) {
                        self.taint_objects(&mut pool, Some(set));
                    }
                }
            }
            if name.is_none() && labels.is_some() {
                pool.any_label = true;
            }
            if let Some(machine) = ev.entry(np, "machine_type") {
                pool.label("node.kubernetes.io/instance-type", ev.lit(machine));
            }
            for field in ["spot", "preemptible"] {
                capacity_label(ev, &mut pool, field, ev.entry(np, field));
            }
            if let Some(acc) = ev.entry(np, "accelerator_type") {
                let acc = ev.lit(acc);
                if acc.as_deref() != Some("") {
                    self.gpu(&mut pool, acc);
                }
            }
            pool.max_nodes = module_pool_size(ev, np, module_zones);
            let shown = name.unwrap_or_else(|| "node_pools".to_string());
            out.push((format!("node_pools.{shown}"), pool, at));
        }
        for (name, pool, at) in out {
            self.push("Terraform module", name, pool, at);
        }
    }
}

/// A module pool's most nodes (see [`Tf::gke_module`]).
fn module_pool_size(ev: &Ev<'_>, np: &Expression, module_zones: Option<u32>) -> Option<u32> {
    let zones = match ev.entry(np, "node_locations") {
        Some(l) => {
            let l = ev.lit(l)?;
            let mut zones: Vec<&str> = l
                .split(',')
                .map(str::trim)
                .filter(|z| !z.is_empty())
                .collect();
            zones.sort_unstable();
            zones.dedup();
            u32::try_from(zones.len()).ok().filter(|n| *n > 0)
        }
        None => module_zones,
    };
    let count = |key: &str, default: u32| match ev.entry(np, key) {
        Some(n) => ev.count(n),
        None => Some(default),
    };
    match ev.flag(ev.entry(np, "autoscaling"), true)? {
        true => match ev.entry(np, "total_max_count") {
            Some(total) => ev.count(total),
            None => times(count("max_count", 100), zones),
        },
        false => times(count("node_count", 1), zones),
    }
}

/// GKE's Spot and preemptible labels (`field` is `spot` or `preemptible`).
fn capacity_label(ev: &Ev<'_>, pool: &mut Pool, field: &str, value: Option<&Expression>) {
    let label = if field == "spot" {
        "cloud.google.com/gke-spot"
    } else {
        "cloud.google.com/gke-preemptible"
    };
    match value.map(|v| ev.resolve(v)) {
        Some(v) if v.as_bool() == Some(true) => pool.provider_label(label, Some("true".into())),
        Some(v) if v.as_bool().is_none() => pool.provider_label(label, None),
        _ => {}
    }
}
