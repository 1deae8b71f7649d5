//! Node pools in Terraform files, read with `hcl-edit` (the hcl-rs project's HCL parser, which
//! keeps byte spans, so each pool and taint points at its `.tf` line):
//!
//! - `aws_eks_node_group` (<https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/eks_node_group>);
//! - `google_container_node_pool`, and `google_container_cluster`'s default pool and inline
//!   `node_pool` blocks (<https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool>,
//!   <https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster>);
//! - `azurerm_kubernetes_cluster_node_pool` and `azurerm_kubernetes_cluster.default_node_pool`
//!   (<https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/kubernetes_cluster_node_pool>);
//! - the terraform-aws-modules/eks module's `eks_managed_node_groups` and
//!   `self_managed_node_groups` (<https://registry.terraform.io/modules/terraform-aws-modules/eks/aws/latest>)
//!   and the terraform-google-modules/kubernetes-engine module's `node_pools`,
//!   `node_pools_labels` and `node_pools_taints` (<https://registry.terraform.io/modules/terraform-google-modules/kubernetes-engine/google/latest>).
//!
//! With the labels and taints each provider documents adding to the nodes (see each function).
//!
//! **Unknown is not a mismatch.** Only literal values are read. A value that needs evaluation
//! (`var.*`, `local.*`, `each.*`, a function call, a conditional, an interpolation) claims
//! nothing: an unknown label value is "present, any value"; an unknown label *set* (`labels =
//! var.labels`, `merge(…)`, a `dynamic` block) makes the pool's labels unknown (`any_label`: it
//! may carry any label); a taint with an unknown part, or taints from a `dynamic` block or a
//! variable, are left out. A pool from a resource with `count`/`for_each` is read once.

use std::sync::Arc;

use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, Object, ObjectKey};
use hcl_edit::structure::{Block, Body};

use super::loc;
use crate::analysis::inventory::{
    LabelValues, Labels, NodeDecl, Place, PoolTaint, TaintSpec, UnknownTaints,
};
use crate::load::{SourceFile, Span};

/// Why a Terraform file does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HclError {
    pub message: String,
    pub at: usize,
}

/// The node pools declared in a Terraform file, or why it does not parse.
pub fn terraform_decls(source: &Arc<SourceFile>) -> Result<Vec<NodeDecl>, HclError> {
    let body = hcl_edit::parser::parse_body(&source.text).map_err(|e| HclError {
        message: e.message().to_string(),
        at: e.location().offset(),
    })?;
    let mut tf = Tf {
        source,
        out: Vec::new(),
    };
    for block in body.blocks() {
        match (
            block.ident.as_str(),
            block_label(block, 0),
            block_label(block, 1),
        ) {
            ("resource", Some(kind), Some(name)) => tf.resource(block, kind, name),
            ("module", Some(_), _) => tf.module(block),
            _ => {}
        }
    }
    Ok(tf.out)
}

fn block_label(block: &Block, i: usize) -> Option<&str> {
    block.labels.get(i).map(|l| l.as_str())
}

/// A literal value: a string without interpolation, a number or a boolean (`None` for
/// anything that needs evaluation).
fn lit(expr: &Expression) -> Option<String> {
    match expr {
        Expression::String(s) => Some(s.as_str().to_string()),
        Expression::Number(n) => Some(n.to_string()),
        Expression::Bool(b) => Some(b.to_string()),
        Expression::Parenthesis(p) => lit(p.inner()),
        _ => None,
    }
}

fn attr<'b>(body: &'b Body, key: &str) -> Option<&'b Expression> {
    body.get_attribute(key).map(|a| &a.value)
}

fn attr_lit(body: &Body, key: &str) -> Option<String> {
    attr(body, key).and_then(lit)
}

fn is_true(body: &Body, key: &str) -> bool {
    attr(body, key).and_then(Expression::as_bool) == Some(true)
}

fn key_text(key: &ObjectKey) -> Option<String> {
    match key {
        ObjectKey::Ident(id) => Some(id.as_str().to_string()),
        ObjectKey::Expression(e) => lit(e),
    }
}

/// The entries of an object expression (`None` when it is not a literal object).
fn entries(expr: &Expression) -> Option<Vec<(Option<String>, &Expression)>> {
    let obj: &Object = expr.as_object()?;
    Some(obj.iter().map(|(k, v)| (key_text(k), v.expr())).collect())
}

fn entry<'e>(expr: &'e Expression, key: &str) -> Option<&'e Expression> {
    let obj = expr.as_object()?;
    obj.iter()
        .find(|(k, _)| key_text(k).as_deref() == Some(key))
        .map(|(_, v)| v.expr())
}

fn span_of(s: Option<std::ops::Range<usize>>) -> Option<Span> {
    s.map(|r| Span::new(r.start, r.end.max(r.start)))
}

/// Kubernetes' name of a taint effect as the cloud APIs spell it (`NO_SCHEDULE`), or as
/// Kubernetes does.
fn k8s_effect(effect: &str) -> String {
    match effect {
        "NO_SCHEDULE" => "NoSchedule".to_string(),
        "NO_EXECUTE" => "NoExecute".to_string(),
        "PREFER_NO_SCHEDULE" => "PreferNoSchedule".to_string(),
        other => other.to_string(),
    }
}

/// A pool as it is read: its labels, its taints, and whether its label set is only partly
/// known.
struct Pool {
    labels: Labels,
    taints: Vec<PoolTaint>,
    any_label: bool,
    /// GKE and EKS run the ExtendedResourceToleration admission plugin.
    extended_resource_toleration: bool,
    unknown_taints: UnknownTaints,
}

impl Pool {
    fn new() -> Self {
        Pool {
            labels: Labels::new(),
            taints: Vec::new(),
            any_label: false,
            extended_resource_toleration: false,
            unknown_taints: UnknownTaints::None,
        }
    }

    fn label(&mut self, key: &str, value: Option<String>) {
        let values = value.map_or(LabelValues::Any, |v| LabelValues::one(&v));
        self.labels.insert(key, values);
    }

    /// A label the provider sets, unless the pool's own labels set it.
    fn provider_label(&mut self, key: &str, value: Option<String>) {
        let values = value.map_or(LabelValues::Any, |v| LabelValues::one(&v));
        self.labels.insert_absent(key, values);
    }

    /// A map of labels (`labels = { … }`): unknown values are "any value", an unknown key or
    /// map makes the label set unknown.
    fn label_map(&mut self, expr: Option<&Expression>) {
        let Some(expr) = expr else { return };
        let Some(entries) = entries(expr) else {
            self.any_label = true;
            return;
        };
        for (k, v) in entries {
            match k {
                Some(k) => self.label(&k, lit(v)),
                None => self.any_label = true,
            }
        }
    }
}

struct Tf<'s> {
    source: &'s Arc<SourceFile>,
    out: Vec<NodeDecl>,
}

impl Tf<'_> {
    fn place(&self, span: Span) -> Place {
        loc(self.source, span)
    }

    fn taint(&self, key: &str, value: &str, effect: &str, at: Option<Span>) -> PoolTaint {
        PoolTaint {
            taint: TaintSpec::new(key, value, &k8s_effect(effect)).shared(),
            loc: at.map(|s| self.place(s)),
            startup: false,
        }
    }

    /// A taint the provider adds (no place of its own in the file).
    fn provider_taint(&self, key: &str, value: &str, effect: &str) -> PoolTaint {
        self.taint(key, value, effect, None)
    }

    /// A taint block or object `{ key, value, effect }`, unless a part is unknown (then
    /// recorded in `unknown`).
    fn taint_fields(
        &self,
        key: Option<&Expression>,
        value: Option<&Expression>,
        effect: Option<&Expression>,
        at: Option<Span>,
        unknown: &mut UnknownTaints,
    ) -> Option<PoolTaint> {
        let Some(key) = key.and_then(lit) else {
            *unknown = UnknownTaints::Any;
            return None;
        };
        let value = match value {
            None => Some(String::new()),
            Some(Expression::Null(_)) => Some(String::new()),
            Some(v) => lit(v),
        };
        match (value, effect.and_then(lit)) {
            (Some(value), Some(effect)) => Some(self.taint(&key, &value, &effect, at)),
            _ => {
                unknown.add_key(&key);
                None
            }
        }
    }

    /// `taint { … }` blocks; a `dynamic "taint"` block makes every taint unknown.
    fn taint_blocks(&self, pool: &mut Pool, body: &Body, ident: &str) {
        if body
            .get_blocks("dynamic")
            .any(|b| block_label(b, 0) == Some(ident))
        {
            pool.unknown_taints = UnknownTaints::Any;
        }
        for b in body.get_blocks(ident) {
            let t = self.taint_fields(
                attr(&b.body, "key"),
                attr(&b.body, "value"),
                attr(&b.body, "effect"),
                span_of(b.span()),
                &mut pool.unknown_taints,
            );
            pool.taints.extend(t);
        }
    }

    /// A list (or map, as the EKS module takes it) of taint objects; unknown entries are left
    /// out (and recorded).
    fn taint_objects(&self, pool: &mut Pool, expr: Option<&Expression>) {
        let Some(expr) = expr else { return };
        let items: Vec<&Expression> = match (expr.as_array(), entries(expr)) {
            (Some(a), _) => a.iter().collect(),
            (None, Some(e)) => e.into_iter().map(|(_, v)| v).collect(),
            _ => {
                pool.unknown_taints = UnknownTaints::Any;
                return;
            }
        };
        for t in items {
            let t = self.taint_fields(
                entry(t, "key"),
                entry(t, "value"),
                entry(t, "effect"),
                span_of(t.span()),
                &mut pool.unknown_taints,
            );
            pool.taints.extend(t);
        }
    }

    fn push(&mut self, origin: &'static str, name: String, pool: Pool, at: Option<Span>) {
        let mut labels = pool.labels;
        labels.shrink_to_fit();
        let at = at.unwrap_or_default();
        self.out.push(NodeDecl {
            origin,
            name,
            is_node: false,
            // Scaling limits (`scaling_config.max_size`, `max_node_count`, `max_count`) are
            // not read yet: the size is unknown.
            max_nodes: None,
            labels,
            taints: pool.taints,
            unschedulable: false,
            open_labels: true,
            any_label: pool.any_label,
            extended_resource_toleration: pool.extended_resource_toleration,
            unknown_taints: pool.unknown_taints,
            loc: self.place(at),
            declared: false,
        });
    }

    fn resource(&mut self, block: &Block, kind: &str, name: &str) {
        let at = span_of(block.labels.get(1).and_then(|l| l.span()));
        let body = &block.body;
        match kind {
            "aws_eks_node_group" => {
                let pool = self.eks_node_group(body);
                self.push("Terraform", format!("{kind}.{name}"), pool, at);
            }
            "google_container_node_pool" => {
                let pool = self.gke_pool(body, attr_lit(body, "name"));
                self.push("Terraform", format!("{kind}.{name}"), pool, at);
            }
            "google_container_cluster" => {
                // Autopilot clusters have no node pools of their own to declare.
                if is_true(body, "enable_autopilot") {
                    return;
                }
                if !is_true(body, "remove_default_node_pool") {
                    let pool = self.gke_pool(body, Some("default-pool".to_string()));
                    self.push("Terraform", format!("{kind}.{name}.default-pool"), pool, at);
                }
                for np in body.get_blocks("node_pool") {
                    let pool_name = attr_lit(&np.body, "name");
                    let pool = self.gke_pool(&np.body, pool_name.clone());
                    let shown = pool_name.unwrap_or_else(|| "node_pool".to_string());
                    let np_at = span_of(np.span()).or(at);
                    self.push("Terraform", format!("{kind}.{name}.{shown}"), pool, np_at);
                }
            }
            "azurerm_kubernetes_cluster_node_pool" => {
                let pool = self.aks_pool(body);
                self.push("Terraform", format!("{kind}.{name}"), pool, at);
            }
            "azurerm_kubernetes_cluster" => {
                for np in body.get_blocks("default_node_pool") {
                    let pool = self.aks_pool(&np.body);
                    let np_at = span_of(np.ident.span()).or(at);
                    self.push(
                        "Terraform",
                        format!("{kind}.{name}.default_node_pool"),
                        pool,
                        np_at,
                    );
                }
            }
            _ => {}
        }
    }

    /// `aws_eks_node_group`. EKS labels a managed node group's nodes with
    /// `eks.amazonaws.com/nodegroup` and `eks.amazonaws.com/capacityType` (`ON_DEMAND` unless
    /// `capacity_type = "SPOT"`), and maps the taint effects `NO_SCHEDULE`, `NO_EXECUTE`,
    /// `PREFER_NO_SCHEDULE` to Kubernetes' (<https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html>,
    /// <https://docs.aws.amazon.com/eks/latest/userguide/node-taints-managed-node-groups.html>,
    /// <https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html>).
    fn eks_node_group(&self, body: &Body) -> Pool {
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        pool.label_map(attr(body, "labels"));
        if body
            .get_blocks("dynamic")
            .any(|b| block_label(b, 0) == Some("labels"))
        {
            pool.any_label = true;
        }
        self.taint_blocks(&mut pool, body, "taint");
        let group_name = attr_lit(body, "node_group_name");
        pool.provider_label("eks.amazonaws.com/nodegroup", group_name);
        eks_capacity_and_type(
            &mut pool,
            attr(body, "capacity_type"),
            attr(body, "instance_types"),
        );
        pool
    }

    /// A GKE node pool (`google_container_node_pool`, or a cluster's default or inline pool).
    /// GKE labels nodes with `cloud.google.com/gke-nodepool`
    /// (<https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools#deploying_services_to_specific_node_pools>),
    /// Spot and preemptible VMs with `cloud.google.com/gke-spot`/`cloud.google.com/gke-preemptible`
    /// (<https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms>,
    /// <https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms>), and GPU nodes
    /// with `cloud.google.com/gke-accelerator` and the taint `nvidia.com/gpu=present:NoSchedule`
    /// (<https://cloud.google.com/kubernetes-engine/docs/how-to/gpus>).
    fn gke_pool(&self, body: &Body, pool_name: Option<String>) -> Pool {
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        pool.provider_label("cloud.google.com/gke-nodepool", pool_name.clone());
        let dynamic = |b: &Body, ident: &str| {
            b.get_blocks("dynamic")
                .any(|d| block_label(d, 0) == Some(ident))
        };
        if dynamic(body, "node_config") || attr(body, "node_config").is_some() {
            pool.any_label = true;
            pool.unknown_taints = UnknownTaints::Any;
        }
        let Some(config) = body.get_blocks("node_config").next() else {
            return pool;
        };
        let config = &config.body;
        // A `dynamic` block or a computed list (`[for … in … : …]`) may hold an accelerator
        // or none: the GPU label and taint are unknown.
        let computed = attr(config, "guest_accelerator").is_some_and(|a| a.as_array().is_none());
        if dynamic(config, "guest_accelerator") || computed {
            pool.provider_label("cloud.google.com/gke-accelerator", None);
            pool.unknown_taints.add_key("nvidia.com/gpu");
        }
        pool.label_map(attr(config, "labels"));
        self.taint_blocks(&mut pool, config, "taint");
        // `taint = [ … ]` (attribute syntax).
        self.taint_objects(&mut pool, attr(config, "taint"));
        if let Some(machine) = attr(config, "machine_type") {
            pool.label("node.kubernetes.io/instance-type", lit(machine));
        }
        gke_capacity(&mut pool, config);
        let mut accelerators: Vec<Option<String>> = config
            .get_blocks("guest_accelerator")
            .map(|b| attr_lit(&b.body, "type"))
            .collect();
        if let Some(a) = attr(config, "guest_accelerator").and_then(Expression::as_array) {
            accelerators.extend(a.iter().map(|g| entry(g, "type").and_then(lit)));
        }
        if let Some(first) = accelerators.into_iter().next() {
            self.gpu(&mut pool, first);
        }
        pool
    }

    fn gpu(&self, pool: &mut Pool, accelerator: Option<String>) {
        pool.provider_label("cloud.google.com/gke-accelerator", accelerator);
        pool.taints
            .push(self.provider_taint("nvidia.com/gpu", "present", "NoSchedule"));
    }

    /// An AKS node pool. AKS labels nodes with `kubernetes.azure.com/agentpool` and
    /// `agentpool` (<https://learn.microsoft.com/en-us/azure/aks/use-labels>); Spot pools
    /// with `kubernetes.azure.com/scalesetpriority=spot` and the taint
    /// `kubernetes.azure.com/scalesetpriority=spot:NoSchedule`
    /// (<https://learn.microsoft.com/en-us/azure/aks/spot-node-pool>); a system pool with
    /// `only_critical_addons_enabled` gets `CriticalAddonsOnly=true:NoSchedule`
    /// (<https://learn.microsoft.com/en-us/azure/aks/use-system-pools>). `node_taints` are
    /// `key=value:Effect` strings.
    fn aks_pool(&self, body: &Body) -> Pool {
        let mut pool = Pool::new();
        pool.label_map(attr(body, "node_labels"));
        let name = attr_lit(body, "name");
        pool.provider_label("kubernetes.azure.com/agentpool", name.clone());
        pool.provider_label("agentpool", name);
        if let Some(size) = attr(body, "vm_size") {
            pool.label("node.kubernetes.io/instance-type", lit(size));
        }
        let node_taints = attr(body, "node_taints");
        if node_taints.is_some_and(|t| t.as_array().is_none()) {
            pool.unknown_taints = UnknownTaints::Any;
        }
        if let Some(list) = node_taints.and_then(Expression::as_array) {
            for t in list.iter() {
                let Some(spec) = lit(t) else {
                    pool.unknown_taints = UnknownTaints::Any;
                    continue;
                };
                let (kv, effect) = spec.rsplit_once(':').unwrap_or((spec.as_str(), ""));
                let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
                pool.taints
                    .push(self.taint(key, value, effect, span_of(t.span())));
            }
        }
        match attr(body, "priority").map(lit) {
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
        if is_true(body, "only_critical_addons_enabled") {
            pool.taints
                .push(self.provider_taint("CriticalAddonsOnly", "true", "NoSchedule"));
        }
        pool
    }

    fn module(&mut self, block: &Block) {
        let body = &block.body;
        let Some(source) = attr_lit(body, "source") else {
            return;
        };
        if source.contains("terraform-aws-modules/eks/aws") || source.contains("terraform-aws-eks")
        {
            self.eks_module(body);
        } else if source.contains("terraform-google-modules/kubernetes-engine/google") {
            self.gke_module(body);
        }
    }

    /// terraform-aws-modules/eks: each key of `eks_managed_node_groups` is a managed node
    /// group (with `labels`, `taints`, `capacity_type`, `instance_types`, `name`). A
    /// self-managed group's labels and taints are kubelet flags the module does not model,
    /// so its label set is unknown and no taint is claimed.
    fn eks_module(&mut self, body: &Body) {
        let defaults = attr(body, "eks_managed_node_group_defaults");
        let defaults_unknown = defaults.is_some_and(|d| {
            entries(d).is_none() || entry(d, "labels").is_some() || entry(d, "taints").is_some()
        });
        for (map, managed) in [
            ("eks_managed_node_groups", true),
            ("self_managed_node_groups", false),
        ] {
            let Some(groups) = attr(body, map) else {
                continue;
            };
            let Some(groups) = groups.as_object() else {
                continue;
            };
            for (key, group) in groups.iter() {
                let Some(key) = key_text(key) else { continue };
                let group = group.expr();
                let at = span_of(group.span());
                let mut pool = Pool::new();
                pool.extended_resource_toleration = true;
                if managed {
                    pool.label_map(entry(group, "labels"));
                    self.taint_objects(&mut pool, entry(group, "taints"));
                    pool.any_label |= defaults_unknown;
                    // The module names the group by `name`, or by its key.
                    let group_name = match entry(group, "name") {
                        Some(n) => lit(n),
                        None => None,
                    };
                    pool.provider_label("eks.amazonaws.com/nodegroup", group_name);
                    eks_capacity_and_type(
                        &mut pool,
                        entry(group, "capacity_type"),
                        entry(group, "instance_types"),
                    );
                } else {
                    pool.any_label = true;
                    pool.unknown_taints = UnknownTaints::Any;
                }
                self.push("Terraform module", format!("{map}.{key}"), pool, at);
            }
        }
    }

    /// terraform-google-modules/kubernetes-engine: `node_pools` is a list of pools (`name`,
    /// `machine_type`, `spot`, `preemptible`, `accelerator_type`); `node_pools_labels` and
    /// `node_pools_taints` are keyed by pool name, with `all` for every pool.
    fn gke_module(&mut self, body: &Body) {
        let Some(pools) = attr(body, "node_pools").and_then(Expression::as_array) else {
            return;
        };
        let labels = attr(body, "node_pools_labels");
        let taints = attr(body, "node_pools_taints");
        for np in pools.iter() {
            let at = span_of(np.span());
            let name = entry(np, "name").and_then(lit);
            let mut pool = Pool::new();
            pool.extended_resource_toleration = true;
            pool.provider_label("cloud.google.com/gke-nodepool", name.clone());
            for scope in ["all", name.as_deref().unwrap_or("")] {
                if let Some(l) = labels {
                    if entries(l).is_none() {
                        pool.any_label = true;
                    } else if let Some(set) = entry(l, scope) {
                        pool.label_map(Some(set));
                    }
                }
                if let Some(t) = taints {
                    if entries(t).is_none() {
                        pool.unknown_taints = UnknownTaints::Any;
                    } else if let Some(set) = entry(t, scope) {
                        self.taint_objects(&mut pool, Some(set));
                    }
                }
            }
            if name.is_none() && labels.is_some() {
                pool.any_label = true;
            }
            if let Some(machine) = entry(np, "machine_type") {
                pool.label("node.kubernetes.io/instance-type", lit(machine));
            }
            for (field, label) in [
                ("spot", "cloud.google.com/gke-spot"),
                ("preemptible", "cloud.google.com/gke-preemptible"),
            ] {
                match entry(np, field) {
                    Some(v) if v.as_bool() == Some(true) => {
                        pool.provider_label(label, Some("true".into()));
                    }
                    Some(v) if v.as_bool().is_none() => pool.provider_label(label, None),
                    _ => {}
                }
            }
            if let Some(acc) = entry(np, "accelerator_type") {
                let acc = lit(acc);
                if acc.as_deref() != Some("") {
                    self.gpu(&mut pool, acc);
                }
            }
            let shown = name.unwrap_or_else(|| "node_pools".to_string());
            self.push("Terraform module", format!("node_pools.{shown}"), pool, at);
        }
    }
}

/// `capacity_type` (EKS labels nodes `eks.amazonaws.com/capacityType`, `ON_DEMAND` by default)
/// and a single instance type (`node.kubernetes.io/instance-type`).
fn eks_capacity_and_type(
    pool: &mut Pool,
    capacity: Option<&Expression>,
    types: Option<&Expression>,
) {
    let capacity = match capacity {
        None => Some("ON_DEMAND".to_string()),
        Some(c) => lit(c),
    };
    pool.provider_label("eks.amazonaws.com/capacityType", capacity);
    if let Some(types) = types {
        match types.as_array() {
            Some(a) if a.len() == 1 => {
                let one = a.get(0).and_then(lit);
                pool.label("node.kubernetes.io/instance-type", one);
            }
            _ => {}
        }
    }
}

/// GKE's Spot and preemptible labels.
fn gke_capacity(pool: &mut Pool, config: &Body) {
    for (field, label) in [
        ("spot", "cloud.google.com/gke-spot"),
        ("preemptible", "cloud.google.com/gke-preemptible"),
    ] {
        match attr(config, field) {
            Some(v) if v.as_bool() == Some(true) => pool.provider_label(label, Some("true".into())),
            Some(v) if v.as_bool().is_none() => pool.provider_label(label, None),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(text: &str) -> Vec<NodeDecl> {
        let source = SourceFile::new(Arc::from("main.tf"), text.to_string());
        terraform_decls(&source).expect("parses")
    }

    fn label(d: &NodeDecl, key: &str) -> Option<LabelValues> {
        d.labels.get(key).cloned()
    }

    fn taints(d: &NodeDecl) -> Vec<String> {
        d.taints.iter().map(|t| t.taint.display()).collect()
    }

    #[test]
    fn eks_node_group_effects_and_provider_labels() {
        let d = decls(
            r#"resource "aws_eks_node_group" "gpu" {
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  labels          = { workload = "gpu", team = var.team }
  taint {
    key    = "a"
    value  = "1"
    effect = "NO_SCHEDULE"
  }
  taint {
    key    = "b"
    effect = "PREFER_NO_SCHEDULE"
  }
  taint {
    key    = "c"
    value  = var.c
    effect = "NO_EXECUTE"
  }
}"#,
        );
        assert_eq!(d.len(), 1);
        let g = &d[0];
        assert_eq!(g.name, "aws_eks_node_group.gpu");
        assert_eq!(taints(g), ["a=1:NoSchedule", "b:PreferNoSchedule"]);
        assert!(g.unknown_taints.may_have("c") && !g.unknown_taints.may_have("a"));
        assert_eq!(label(g, "team"), Some(LabelValues::Any));
        assert_eq!(label(g, "workload"), Some(LabelValues::one("gpu")));
        assert_eq!(
            label(g, "eks.amazonaws.com/capacityType"),
            Some(LabelValues::one("ON_DEMAND"))
        );
        assert_eq!(
            label(g, "eks.amazonaws.com/nodegroup"),
            Some(LabelValues::one("gpu"))
        );
        assert_eq!(
            label(g, "node.kubernetes.io/instance-type"),
            Some(LabelValues::one("g5.xlarge"))
        );
        assert!(!g.any_label && g.extended_resource_toleration && !g.declared);
    }

    #[test]
    fn unknown_label_sets_and_dynamic_taints() {
        let d = decls(
            r#"resource "aws_eks_node_group" "x" {
  labels        = merge(local.a, { b = "c" })
  capacity_type = var.capacity
  dynamic "taint" {
    for_each = var.taints
    content {
      key = taint.value.key
    }
  }
}"#,
        );
        assert!(d[0].any_label);
        assert_eq!(d[0].unknown_taints, UnknownTaints::Any);
        assert_eq!(
            label(&d[0], "eks.amazonaws.com/capacityType"),
            Some(LabelValues::Any)
        );
        assert!(d[0].taints.is_empty());
    }

    #[test]
    fn gke_default_pool_unless_removed_and_gpu_taint() {
        let d = decls(
            r#"resource "google_container_cluster" "a" {
  node_config {
    preemptible = true
    guest_accelerator {
      type  = "nvidia-tesla-t4"
      count = 1
    }
  }
}
resource "google_container_cluster" "b" {
  remove_default_node_pool = true
  node_pool {
    name = "inline"
  }
}
resource "google_container_cluster" "auto" {
  enable_autopilot = true
}"#,
        );
        let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "google_container_cluster.a.default-pool",
                "google_container_cluster.b.inline"
            ]
        );
        assert_eq!(taints(&d[0]), ["nvidia.com/gpu=present:NoSchedule"]);
        assert_eq!(
            label(&d[0], "cloud.google.com/gke-accelerator"),
            Some(LabelValues::one("nvidia-tesla-t4"))
        );
        assert_eq!(
            label(&d[0], "cloud.google.com/gke-preemptible"),
            Some(LabelValues::one("true"))
        );
        assert_eq!(
            label(&d[1], "cloud.google.com/gke-nodepool"),
            Some(LabelValues::one("inline"))
        );
    }

    /// A computed accelerator list (the GKE module's own `[for … : …]`) may be empty: no GPU
    /// taint is claimed, and none is ruled out.
    #[test]
    fn computed_accelerators_are_unknown() {
        let d = decls(
            r#"resource "google_container_node_pool" "pools" {
  for_each = local.node_pools
  name     = each.key
  node_config {
    guest_accelerator = [for g in local.acc : { type = g.type }]
  }
}"#,
        );
        assert!(d[0].taints.is_empty());
        assert!(d[0].unknown_taints.may_have("nvidia.com/gpu"));
        assert_eq!(
            label(&d[0], "cloud.google.com/gke-accelerator"),
            Some(LabelValues::Any)
        );
        assert_eq!(
            label(&d[0], "cloud.google.com/gke-nodepool"),
            Some(LabelValues::Any)
        );
    }

    #[test]
    fn aks_taint_strings_spot_and_critical_addons() {
        let d = decls(
            r#"resource "azurerm_kubernetes_cluster" "k" {
  default_node_pool {
    name                         = "system"
    only_critical_addons_enabled = true
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "s" {
  name        = "spot"
  priority    = "Spot"
  node_taints = ["a=b:NoExecute", "c:NoSchedule", var.more]
}"#,
        );
        assert_eq!(taints(&d[0]), ["CriticalAddonsOnly=true:NoSchedule"]);
        assert_eq!(
            label(&d[0], "kubernetes.azure.com/agentpool"),
            Some(LabelValues::one("system"))
        );
        assert!(!d[0].extended_resource_toleration);
        assert_eq!(
            taints(&d[1]),
            [
                "a=b:NoExecute",
                "c:NoSchedule",
                "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
            ]
        );
        assert_eq!(d[1].unknown_taints, UnknownTaints::Any);
    }

    #[test]
    fn modules() {
        let d = decls(
            r#"module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = {
    gpu = {
      capacity_type = "SPOT"
      taints = [{ key = "g", value = "1", effect = "NO_EXECUTE" }]
    }
  }
  self_managed_node_groups = {
    legacy = {}
  }
}
module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google//modules/private-cluster"
  node_pools = [{ name = "p", spot = true, accelerator_type = "nvidia-l4" }]
  node_pools_taints = {
    all = [{ key = "all", value = "x", effect = "NO_SCHEDULE" }]
    p   = [{ key = "own", value = "y", effect = "NO_SCHEDULE" }]
  }
}
module "other" {
  source = "./modules/eks"
}"#,
        );
        let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "eks_managed_node_groups.gpu",
                "self_managed_node_groups.legacy",
                "node_pools.p"
            ]
        );
        assert_eq!(taints(&d[0]), ["g=1:NoExecute"]);
        assert!(d[1].any_label && d[1].unknown_taints == UnknownTaints::Any);
        assert_eq!(
            taints(&d[2]),
            [
                "all=x:NoSchedule",
                "own=y:NoSchedule",
                "nvidia.com/gpu=present:NoSchedule"
            ]
        );
        assert_eq!(
            label(&d[2], "cloud.google.com/gke-spot"),
            Some(LabelValues::one("true"))
        );
    }

    #[test]
    fn syntax_errors_are_reported_not_raised() {
        for bad in [
            "resource \"a\" {",
            "x = = 1",
            "\u{0}",
            "resource \"a\" \"b\" { x = <<EOT\n",
        ] {
            let source = SourceFile::new(Arc::from("bad.tf"), bad.to_string());
            let err = terraform_decls(&source).expect_err(bad);
            assert!(err.at <= bad.len(), "{bad:?}: {err:?}");
        }
    }

    proptest::proptest! {
        /// Any text, and HCL-like token soup, is read or rejected without a panic.
        #[test]
        fn never_panics(
            text in "\\PC{0,120}",
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "resource \"aws_eks_node_group\" \"a\" {", "}", "{", "taint {",
                    "key = \"k\"", "effect = \"NO_SCHEDULE\"", "labels = {", "a = var.x",
                    "node_taints = [\"a=b:NoSchedule\", \":\", \"=\"]", "<<-EOT", "EOT",
                    "dynamic \"taint\" {", "\n", "= [", "]", "module \"m\" {",
                    "source = \"terraform-aws-modules/eks/aws\"", "eks_managed_node_groups = {",
                    "node_pools = [{ name = \"p\" }]", "${", "\u{0}", "#",
                ]),
                0..40,
            ),
        ) {
            let soup = parts.join(" ");
            for t in [text, soup] {
                let source = SourceFile::new(Arc::from("p.tf"), t);
                let _ = terraform_decls(&source);
            }
        }
    }
}
