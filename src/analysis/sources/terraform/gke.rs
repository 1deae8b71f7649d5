//! GKE: `google_container_node_pool`, `google_container_cluster`'s default and inline pools,
//! and terraform-google-modules/kubernetes-engine's `node_pools`.
//!
//! Sizes: a GKE pool's `node_count` and `autoscaling.max_node_count` count nodes *per zone*
//! (`total_max_node_count` counts them all): "max_node_count - (Optional) Maximum number of nodes
//! per zone in the NodePool"
//! (<https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool#max_node_count>).
//! So a size is known only with the pool's zones: its `node_locations`, or a `location` that is
//! one zone.
//!
//! **The default pool.** GKE creates a cluster with the pools its create request lists: the
//! provider sends the `node_pool` blocks as the request's `nodePools`, and only when there is
//! none the cluster's own `node_config` and `initial_node_count`, from which GKE makes the pool
//! named `default-pool` ("initial_node_count - The number of nodes to create in this cluster's
//! default node pool … Must be set if `node_pool` is not set",
//! <https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster#initial_node_count>;
//! `resource_container_cluster.go` in hashicorp/terraform-provider-google; the API's
//! `Cluster.nodePools`: "This field should not be set if `node_config` or
//! `initial_node_count` are specified"). So a cluster with `node_pool` blocks has no default
//! pool, and `remove_default_node_pool = true` deletes it after creation: the provider deletes
//! the pool *named* `default-pool` (`resourceContainerClusterCreate`), so an inline
//! `node_pool` of that name is deleted as well.
//!
//! **Workload Identity.** Nodes that run the GKE metadata server carry the label
//! `iam.gke.io/gke-metadata-server-enabled: "true"`, which workloads using Workload Identity
//! select (<https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity>). A pool
//! runs it when its `node_config.workload_metadata_config.mode` is `GKE_METADATA`; with no mode
//! (or `MODE_UNSPECIFIED`) a pool takes the cluster's default, which is the metadata server
//! when the cluster has Workload Identity (`workload_identity_config.workload_pool`): the
//! pools created with the cluster (default and inline) and the node pools created in it later
//! ("mode … GKE_METADATA: Run the GKE Metadata Server on this node … can only be enabled if
//! Workload Identity is enabled at the cluster level",
//! <https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster#mode>;
//! the workload-identity page above: new node pools of a cluster with Workload Identity use
//! the metadata server by default). `GCE_METADATA` turns it off. A pool whose cluster is not
//! in the files (or not known) may or may not run it: the label is present with an unknown
//! value.

use std::sync::Arc;

use super::Tf;
use super::eval::Cx;
use super::hcl::{Pool, field, flag, list_items};
use super::module::Inst;
use super::value::{At, Val};
use crate::analysis::types::terraform::Cause;

/// The label of nodes that run the GKE metadata server.
const METADATA_SERVER_LABEL: &str = "iam.gke.io/gke-metadata-server-enabled";

/// How many zones a pool's nodes are spread over: its `node_locations` (else the cluster's,
/// for an inline pool), else 1 for a `location` that is a zone (`europe-west1-b`); `None`
/// for a region (its zones are the cluster's, or the region's) or an unknown value.
pub(super) fn zones(pool: &Val, cluster: Option<&Val>) -> Option<u32> {
    for body in std::iter::once(pool).chain(cluster) {
        if let Some(list) = field(body, "node_locations") {
            let s = list.as_seq()?;
            if s.more.is_some() {
                return None;
            }
            // Distinct known zones.
            let mut zones: Vec<String> = s.items.iter().map(Val::text).collect::<Option<_>>()?;
            zones.sort();
            zones.dedup();
            return u32::try_from(zones.len()).ok().filter(|n| *n > 0);
        }
    }
    let location = cluster
        .and_then(|c| field(c, "location"))
        .or_else(|| field(pool, "location"))?
        .text()?;
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

/// Whether a cluster has Workload Identity: `Ok(true/false)`, or `Err(cause)` when unknown.
fn identity(cluster: &Val) -> Result<bool, Cause> {
    let (configs, more) = list_items(cluster.get("workload_identity_config"));
    if let Some(c) = more {
        return Err(c);
    }
    let Some(config) = configs.first() else {
        return Ok(false);
    };
    // `identity_namespace`: its name before provider 4.0.
    for key in ["workload_pool", "identity_namespace"] {
        match field(config, key) {
            Some(v) if v.is_unknown() => {
                return Err(v.cause().cloned().unwrap_or(Cause::Limit("values")));
            }
            Some(_) => return Ok(true),
            None => {}
        }
    }
    Ok(false)
}

/// Whether the cluster a `google_container_node_pool` is in (its `cluster` argument naming a
/// `google_container_cluster` of the same module) has Workload Identity.
pub(super) fn cluster_identity(inst: &Inst<'_>, pool: &Val) -> Result<bool, Cause> {
    let unknown = Cause::Environment(Arc::from("the node pool's cluster"));
    let Some(cluster) = field(pool, "cluster") else {
        return Err(unknown);
    };
    let Some(Cause::Resource(address)) = cluster.cause() else {
        return Err(unknown);
    };
    let Some(name) = address.strip_prefix("google_container_cluster.") else {
        return Err(unknown);
    };
    let Some(m) = inst.resource("google_container_cluster", name) else {
        return Err(unknown);
    };
    let mut cx = Cx::new(inst, m.file());
    let body = super::body_val(&mut cx, m, None);
    identity(&body)
}

/// The metadata-server label of a pool: its own mode, else the cluster's default.
fn metadata_server(pool: &mut Pool, config: Option<&Val>, cluster: Result<bool, Cause>) {
    let mode = config.map(|c| {
        let (wmc, more) = list_items(c.get("workload_metadata_config"));
        match (wmc.first(), more) {
            (Some(w), _) => field(w, "mode"),
            (None, Some(c)) => Some(Val::unknown(c)),
            (None, None) => None,
        }
    });
    let mode = mode.flatten();
    let on = match mode.as_ref().map(|m| (m.text(), m.cause())) {
        Some((Some(m), _)) if m == "GKE_METADATA" || m == "GKE_METADATA_SERVER" => Ok(true),
        Some((Some(m), _)) if m == "GCE_METADATA" || m == "EXPOSE" || m == "SECURE" => Ok(false),
        Some((None, Some(c))) => Err(c.clone()),
        _ => cluster,
    };
    match on {
        Ok(true) => pool.provider_label(METADATA_SERVER_LABEL, Some("true".into())),
        Ok(false) => {}
        Err(c) => {
            pool.note(&format!("labels.{METADATA_SERVER_LABEL}"), &c);
            pool.provider_label(METADATA_SERVER_LABEL, None);
        }
    }
}

impl Tf<'_> {
    /// `google_container_cluster`: its default pool (see the module's text) and inline pools.
    pub(super) fn gke_cluster(&mut self, body: &Val, address: &str, at: Option<At>) {
        // Autopilot clusters have no node pools of their own to declare.
        if flag(body, "enable_autopilot", false) == Some(true) {
            return;
        }
        let wi = identity(body);
        let (inline, more) = list_items(body.get("node_pool"));
        let removed = flag(body, "remove_default_node_pool", false) == Some(true);
        if inline.is_empty() && more.is_none() && !removed {
            let zones = zones(body, None);
            let mut pool = self.gke_pool(body, Some("default-pool".to_string()), zones, wi.clone());
            // The default pool's size is the cluster's `initial_node_count` per zone.
            pool.max_nodes = field(body, "initial_node_count")
                .and_then(|n| n.count())
                .zip(zones)
                .and_then(|(n, z)| n.checked_mul(z));
            self.push("Terraform", format!("{address}.default-pool"), pool, at);
        }
        for np in &inline {
            let name = field(np, "name").and_then(|n| n.text());
            // `remove_default_node_pool` deletes the pool named `default-pool` once the
            // cluster is made, whichever block made it (`resourceContainerClusterCreate`
            // deletes `…/nodePools/default-pool` by that name): an inline pool so named is
            // gone too.
            if removed && name.as_deref() == Some("default-pool") {
                continue;
            }
            let zones = zones(np, Some(body));
            let pool = self.gke_pool(np, name.clone(), zones, wi.clone());
            let shown = name.unwrap_or_else(|| "node_pool".to_string());
            self.push(
                "Terraform",
                format!("{address}.{shown}"),
                pool,
                np.at.or(at),
            );
        }
        if let Some(c) = more {
            // `dynamic "node_pool"` over a collection that is not known.
            let mut pool = Pool::new();
            pool.extended_resource_toleration = true;
            pool.unknown(&c);
            self.push("Terraform", format!("{address}.node_pool[*]"), pool, at);
        }
    }

    /// A GKE node pool (`google_container_node_pool`, or a cluster's default or inline pool). GKE
    /// labels nodes with `cloud.google.com/gke-nodepool`
    /// (<https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools#deploying_services_to_specific_node_pools>),
    /// Spot and preemptible VMs with `cloud.google.com/gke-spot`/`cloud.google.com/gke-preemptible`
    /// (<https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms>,
    /// <https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms>), GPU nodes
    /// with `cloud.google.com/gke-accelerator` and the taint `nvidia.com/gpu=present:NoSchedule`
    /// (<https://cloud.google.com/kubernetes-engine/docs/how-to/gpus>), and nodes running the
    /// GKE metadata server as the module's text says. Its size: see the module's text.
    pub(super) fn gke_pool(
        &self,
        body: &Val,
        pool_name: Option<String>,
        zones: Option<u32>,
        identity: Result<bool, Cause>,
    ) -> Pool {
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        if let Some(n) = field(body, "name") {
            pool.note_val("labels.cloud.google.com/gke-nodepool", &n);
        }
        pool.provider_label("cloud.google.com/gke-nodepool", pool_name);
        pool.max_nodes = gke_size(body, zones);
        let (configs, more) = list_items(body.get("node_config"));
        if let Some(c) = more {
            pool.unknown(&c);
        }
        let config = configs.first();
        metadata_server(&mut pool, config, identity);
        let Some(config) = config else {
            return pool;
        };
        pool.label_map(config.get("labels"));
        // Blocks, or `taint = [ … ]` (attribute syntax): both are a list here.
        self.taint_list(&mut pool, config.get("taint"));
        if let Some(machine) = field(config, "machine_type") {
            pool.label_val("node.kubernetes.io/instance-type", &machine);
        }
        for f in ["spot", "preemptible"] {
            capacity_label(&mut pool, f, field(config, f).as_ref());
        }
        let (accelerators, more) = list_items(config.get("guest_accelerator"));
        if let Some(c) = more {
            // A `dynamic` block or a list known in part may hold an accelerator or none: the
            // GPU label and taint are unknown.
            pool.note("labels.cloud.google.com/gke-accelerator", &c);
            pool.provider_label("cloud.google.com/gke-accelerator", None);
            pool.unknown_taints.add_key("nvidia.com/gpu");
        }
        let first = accelerators.iter().find(|a| {
            // `count = 0` declares no accelerator.
            field(a, "count").and_then(|c| c.count()) != Some(0)
        });
        if let Some(a) = first {
            let ty = field(a, "type");
            if let Some(t) = &ty {
                pool.note_val("labels.cloud.google.com/gke-accelerator", t);
            }
            self.gpu(&mut pool, ty.and_then(|t| t.text()));
        }
        pool
    }

    pub(super) fn gpu(&self, pool: &mut Pool, accelerator: Option<String>) {
        pool.provider_label("cloud.google.com/gke-accelerator", accelerator);
        pool.taints
            .push(self.provider_taint("nvidia.com/gpu", "present", "NoSchedule"));
    }

    /// terraform-google-modules/kubernetes-engine: `node_pools` is a list of pools (`name`,
    /// `machine_type`, `spot`, `preemptible`, `accelerator_type`, `autoscaling`, `max_count`,
    /// `total_max_count`, `node_count`, `node_locations`, `node_metadata`); `node_pools_labels`
    /// and `node_pools_taints` are keyed by pool name, with `all` for every pool.
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
    ///
    /// Workload Identity: each pool's `workload_metadata_config.mode` is its `node_metadata`,
    /// else the module's `node_metadata`, whose default is the metadata server (`variables.tf`:
    /// `GKE_METADATA`, `GKE_METADATA_SERVER` before v13); `UNSPECIFIED` leaves the cluster's
    /// default, the metadata server unless the module's `identity_namespace` is null.
    pub(super) fn gke_module(&mut self, body: &Val) {
        let Some(pools) = body.get("node_pools") else {
            return;
        };
        let (mut items, more) = list_items(Some(pools));
        // Pools not known: `[for … : { … }]` over something unknown (its template read with the
        // loop's values unknown), `var.node_pools` (unknown number, names, labels and taints).
        let known = items.len();
        if let Some(c) = more {
            let any = pools.as_seq().and_then(|s| s.any.as_deref().cloned());
            items.push(any.unwrap_or_else(|| Val::unknown(c).with_at(pools.at)));
        }
        let labels = body.get("node_pools_labels");
        let taints = body.get("node_pools_taints");
        let cluster_name = field(body, "name");
        let default_on = |key: &str| -> Option<bool> {
            let Some(l) = labels else { return Some(true) };
            match l.look("default_values") {
                super::value::Look::Present(dv) => flag(dv, key, true),
                super::value::Look::Absent => Some(true),
                super::value::Look::Unknown(_) => None,
            }
        };
        let module_zones = match field(body, "zones") {
            Some(z) => z
                .as_seq()
                .filter(|s| s.more.is_none())
                .and_then(|s| s.items.iter().map(Val::text).collect::<Option<Vec<_>>>())
                .filter(|z| !z.is_empty())
                .and_then(|z| u32::try_from(z.len()).ok()),
            None => match flag(body, "regional", true) {
                Some(true) => Some(3),
                _ => None,
            },
        };
        let module_metadata = field(body, "node_metadata");
        let identity_on = match body.look("identity_namespace") {
            super::value::Look::Present(v) if v.is_null() => Ok(false),
            super::value::Look::Present(v) if v.is_unknown() => {
                Err(v.cause().cloned().unwrap_or(Cause::Limit("values")))
            }
            super::value::Look::Unknown(c) => Err(c.clone()),
            _ => Ok(true),
        };
        for (i, np) in items.iter().enumerate() {
            let at = np.at.or(pools.at);
            let pattern = i >= known;
            if let Some(c) = np.cause() {
                // A pool that is not known: its name, and so its labels and taints, unknown.
                let mut pool = Pool::new();
                pool.extended_resource_toleration = true;
                pool.unknown(c);
                self.push("Terraform module", "node_pools[*]".to_string(), pool, at);
                continue;
            }
            let name_val = field(np, "name");
            let name = name_val.as_ref().and_then(Val::text);
            let mut pool = Pool::new();
            pool.extended_resource_toleration = true;
            if let Some(n) = &name_val {
                pool.note_val("labels.cloud.google.com/gke-nodepool", n);
            }
            pool.provider_label("cloud.google.com/gke-nodepool", name.clone());
            match default_on("cluster_name") {
                Some(true) => match &cluster_name {
                    Some(c) => pool.label_val("cluster_name", c),
                    None => pool.label("cluster_name", None),
                },
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
                    match l.look(scope) {
                        super::value::Look::Present(set) => pool.label_map(Some(set)),
                        super::value::Look::Unknown(c) => pool.open_labels(c),
                        super::value::Look::Absent => {}
                    }
                }
                if let Some(t) = taints {
                    match t.look(scope) {
                        super::value::Look::Present(set) => self.taint_list(&mut pool, Some(set)),
                        super::value::Look::Unknown(c) => pool.open_taints(c),
                        super::value::Look::Absent => {}
                    }
                }
            }
            if name.is_none() && labels.is_some() {
                let c = name_val
                    .as_ref()
                    .and_then(|n| n.cause().cloned())
                    .unwrap_or(Cause::Invalid(Arc::from("a pool without a name")));
                pool.open_labels(&c);
            }
            if let Some(machine) = field(np, "machine_type") {
                pool.label_val("node.kubernetes.io/instance-type", &machine);
            }
            for f in ["spot", "preemptible"] {
                capacity_label(&mut pool, f, field(np, f).as_ref());
            }
            if let Some(acc) = field(np, "accelerator_type") {
                let acc_text = acc.text();
                if acc_text.as_deref() != Some("") {
                    pool.note_val("labels.cloud.google.com/gke-accelerator", &acc);
                    self.gpu(&mut pool, acc_text);
                }
            }
            let mode = field(np, "node_metadata").or_else(|| module_metadata.clone());
            let on = match mode.as_ref().map(|m| (m.text(), m.cause())) {
                None => Ok(true),
                Some((Some(m), _)) if m == "GKE_METADATA" || m == "GKE_METADATA_SERVER" => Ok(true),
                Some((Some(m), _)) if m == "UNSPECIFIED" || m == "MODE_UNSPECIFIED" => {
                    identity_on.clone()
                }
                Some((Some(_), _)) => Ok(false),
                Some((None, Some(c))) => Err(c.clone()),
                Some((None, None)) => Ok(false),
            };
            match on {
                Ok(true) => pool.provider_label(METADATA_SERVER_LABEL, Some("true".into())),
                Ok(false) => {}
                Err(c) => {
                    pool.note(&format!("labels.{METADATA_SERVER_LABEL}"), &c);
                    pool.provider_label(METADATA_SERVER_LABEL, None);
                }
            }
            if pattern {
                pool.max_nodes = None;
                self.push("Terraform module", "node_pools[*]".to_string(), pool, at);
                continue;
            }
            pool.max_nodes = module_pool_size(np, module_zones);
            let shown = name.unwrap_or_else(|| "node_pools".to_string());
            self.push("Terraform module", format!("node_pools.{shown}"), pool, at);
        }
    }
}

/// A pool's most nodes: `autoscaling.total_max_node_count`, else
/// `autoscaling.max_node_count` per zone, else (not autoscaled) `node_count` per zone.
fn gke_size(body: &Val, zones: Option<u32>) -> Option<u32> {
    let (autoscaling, more) = list_items(body.get("autoscaling"));
    if more.is_some() {
        return None;
    }
    if let Some(a) = autoscaling.first() {
        if let Some(total) = field(a, "total_max_node_count") {
            return total.count();
        }
        return times(field(a, "max_node_count").and_then(|n| n.count()), zones);
    }
    times(field(body, "node_count").and_then(|n| n.count()), zones)
}

/// A module pool's most nodes (see [`Tf::gke_module`]).
fn module_pool_size(np: &Val, module_zones: Option<u32>) -> Option<u32> {
    let zones = match field(np, "node_locations") {
        Some(l) => {
            let l = l.text()?;
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
    let count = |key: &str, default: u32| match field(np, key) {
        Some(n) => n.count(),
        None => Some(default),
    };
    match flag(np, "autoscaling", true)? {
        true => match field(np, "total_max_count") {
            Some(total) => total.count(),
            None => times(count("max_count", 100), zones),
        },
        false => times(count("node_count", 1), zones),
    }
}

/// GKE's Spot and preemptible labels (`field` is `spot` or `preemptible`).
fn capacity_label(pool: &mut Pool, field: &str, value: Option<&Val>) {
    let label = if field == "spot" {
        "cloud.google.com/gke-spot"
    } else {
        "cloud.google.com/gke-preemptible"
    };
    match value {
        Some(v) if v.as_bool() == Some(true) => pool.provider_label(label, Some("true".into())),
        Some(v) if v.as_bool().is_none() => {
            pool.note_val(&format!("labels.{label}"), v);
            pool.provider_label(label, None);
        }
        _ => {}
    }
}
