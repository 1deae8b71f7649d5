//! Node pools in Terraform files, read with `hcl-edit` (the hcl-rs project's HCL parser, which
//! keeps byte spans, so each pool and taint points at its `.tf` line):
//!
//! - `aws_eks_node_group`
//!   (<https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/eks_node_group>);
//! - `google_container_node_pool`, and `google_container_cluster`'s default pool and inline
//!   `node_pool` blocks
//!   (<https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool>,
//!   <https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_cluster>);
//! - `azurerm_kubernetes_cluster_node_pool` and `azurerm_kubernetes_cluster.default_node_pool`
//!   (<https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/kubernetes_cluster_node_pool>);
//! - the terraform-aws-modules/eks module's `eks_managed_node_groups` and
//!   `self_managed_node_groups`
//!   (<https://registry.terraform.io/modules/terraform-aws-modules/eks/aws/latest>) and the
//!   terraform-google-modules/kubernetes-engine module's `node_pools`, `node_pools_labels` and
//!   `node_pools_taints`
//!   (<https://registry.terraform.io/modules/terraform-google-modules/kubernetes-engine/google/latest>).
//!
//! With the labels and taints each provider (or module) documents adding to the nodes, and the
//! pool's size when its scaling limits are literal (see each module).
//!
//! **Unknown is not a mismatch.** Only literal values are read. A value that needs evaluation
//! (`var.*`, `local.*`, a function call, a conditional, an interpolation) claims nothing: an
//! unknown label value is "present, any value"; an unknown label *set* (`labels =
//! var.labels`, `merge(…)`, a `dynamic` block) makes the pool's labels unknown (`any_label`: it
//! may carry any label); a taint with an unknown part, or taints from a `dynamic` block or a
//! variable, are left out; an unknown size is no size.
//!
//! **`count` and `for_each`.** A resource with a literal `for_each` (a map, or `toset([…])`)
//! is a pool per key, addressed as Terraform does (`google_container_node_pool.pools["gpu"]`),
//! with `each.key` and `each.value` read for that key. `count = 0` declares nothing; another
//! literal `count` is one pool standing for its identical copies (`aws_eks_node_group.x[*]`,
//! or `[0]` for one), its size times the count. A `count` or `for_each` that needs evaluation is
//! one pool `[*]` read once, of unknown size (there may be any number of them, or none). A
//! module with `count` or `for_each` is read once, its pools of unknown size.
//!
//! **Module node groups that need evaluation** (`eks_managed_node_groups = { for k, v in
//! var.groups : k => {…} }`, `= var.groups`, `merge(…)`, a group `= var.gpu`, a key
//! `(var.name)`; the GKE module's `node_pools = var.pools` or an entry `local.pool`) are pools
//! `…[*]` (or the key's) of unknown size: a `for` template is read with the loop's values
//! unknown, anything else has every label and taint unknown. Left out, they would let the
//! readable pools pass for the whole cluster.

mod aks;
mod eks;
mod gke;
mod hcl;

use std::sync::Arc;

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Body};

use self::hcl::{Each, Ev, Pool, block_label, for_each_keys, k8s_effect, span_of};
use super::loc;
use crate::analysis::types::{NodeDecl, Place, PoolTaint, TaintSpec, UnknownTaints};
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
        ev: Ev::default(),
        copies: Some(1),
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

/// One instance of a resource, as Terraform addresses it.
struct Instance<'b> {
    address: String,
    each: Option<Each<'b>>,
    /// How many identical copies it stands for (`None`: unknown).
    copies: Option<u32>,
}

/// The instances of a resource block (see the module's text on `count` and `for_each`).
fn instances<'b>(body: &'b Body, base: String) -> Vec<Instance<'b>> {
    let plain = Ev::default();
    if let Some(fe) = body.get_attribute("for_each").map(|a| &a.value) {
        return match for_each_keys(fe) {
            Some(keys) => keys
                .into_iter()
                .map(|(key, value)| Instance {
                    address: format!("{base}[\"{key}\"]"),
                    each: Some(Each {
                        key: Expression::from(key),
                        value,
                    }),
                    copies: Some(1),
                })
                .collect(),
            None => vec![Instance {
                address: format!("{base}[*]"),
                each: None,
                copies: None,
            }],
        };
    }
    let Some(count) = body.get_attribute("count").map(|a| &a.value) else {
        return vec![Instance {
            address: base,
            each: None,
            copies: Some(1),
        }];
    };
    let (suffix, copies) = match plain.count(count) {
        Some(0) => return Vec::new(),
        Some(1) => ("[0]", Some(1)),
        Some(n) => ("[*]", Some(n)),
        None => ("[*]", None),
    };
    vec![Instance {
        address: format!("{base}{suffix}"),
        each: None,
        copies,
    }]
}

struct Tf<'s, 'b> {
    source: &'s Arc<SourceFile>,
    out: Vec<NodeDecl>,
    /// The scope of the resource instance being read.
    ev: Ev<'b>,
    /// How many copies the instance being read stands for.
    copies: Option<u32>,
}

impl<'b> Tf<'_, 'b> {
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
        let ev = &self.ev;
        let Some(key) = key.and_then(|k| ev.lit(k)) else {
            *unknown = UnknownTaints::Any;
            return None;
        };
        let value = match value.map(|v| ev.resolve(v)) {
            None | Some(Expression::Null(_)) => Some(String::new()),
            Some(v) => ev.lit(v),
        };
        match (value, effect.and_then(|e| ev.lit(e))) {
            (Some(value), Some(effect)) => Some(self.taint(&key, &value, &effect, at)),
            _ => {
                unknown.add_key(&key);
                None
            }
        }
    }

    /// `taint { … }` blocks; a `dynamic "taint"` block makes every taint unknown.
    fn taint_blocks(&self, pool: &mut Pool, body: &Body, ident: &str) {
        if hcl::has_dynamic(body, ident) {
            pool.unknown_taints = UnknownTaints::Any;
        }
        for b in body.get_blocks(ident) {
            let t = self.taint_fields(
                self.ev.attr(&b.body, "key"),
                self.ev.attr(&b.body, "value"),
                self.ev.attr(&b.body, "effect"),
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
        let ev = &self.ev;
        let expr = ev.resolve(expr);
        let items: Vec<&Expression> = match (expr.as_array(), ev.entries(expr)) {
            (Some(a), _) => a.iter().map(|t| ev.resolve(t)).collect(),
            (None, Some(e)) => e.into_iter().map(|(_, v)| v).collect(),
            _ => {
                pool.unknown_taints = UnknownTaints::Any;
                return;
            }
        };
        for t in items {
            let t = self.taint_fields(
                ev.entry(t, "key"),
                ev.entry(t, "value"),
                ev.entry(t, "effect"),
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
        let max_nodes = match (pool.max_nodes, self.copies) {
            (Some(n), Some(c)) => n.checked_mul(c),
            _ => None,
        };
        self.out.push(NodeDecl {
            origin,
            name,
            is_node: false,
            max_nodes,
            labels,
            taints: pool.taints,
            unschedulable: false,
            open_labels: true,
            any_label: pool.any_label,
            extended_resource_toleration: pool.extended_resource_toleration,
            unknown_taints: pool.unknown_taints,
            scaling: None,
            loc: self.place(at),
            declared: false,
        });
    }

    fn resource(&mut self, block: &'b Block, kind: &str, name: &str) {
        if !matches!(
            kind,
            "aws_eks_node_group"
                | "google_container_node_pool"
                | "google_container_cluster"
                | "azurerm_kubernetes_cluster_node_pool"
                | "azurerm_kubernetes_cluster"
        ) {
            return;
        }
        let at = span_of(block.labels.get(1).and_then(|l| l.span()));
        for instance in instances(&block.body, format!("{kind}.{name}")) {
            self.ev = Ev {
                each: instance.each,
            };
            self.copies = instance.copies;
            self.instance(&block.body, kind, instance.address, at);
        }
        self.ev = Ev::default();
        self.copies = Some(1);
    }

    /// One instance of a node-pool resource, at `address`.
    fn instance(&mut self, body: &Body, kind: &str, address: String, at: Option<Span>) {
        match kind {
            "aws_eks_node_group" => {
                let pool = self.eks_node_group(body);
                self.push("Terraform", address, pool, at);
            }
            "google_container_node_pool" => {
                let zones = gke::zones(&self.ev, body, None);
                let pool = self.gke_pool(body, self.ev.attr_lit(body, "name"), zones);
                self.push("Terraform", address, pool, at);
            }
            "google_container_cluster" => {
                // Autopilot clusters have no node pools of their own to declare.
                if self.ev.is_true(body, "enable_autopilot") {
                    return;
                }
                if !self.ev.is_true(body, "remove_default_node_pool") {
                    let zones = gke::zones(&self.ev, body, None);
                    let mut pool = self.gke_pool(body, Some("default-pool".to_string()), zones);
                    // The default pool's size is the cluster's `initial_node_count` per zone.
                    pool.max_nodes = self
                        .ev
                        .attr(body, "initial_node_count")
                        .and_then(|n| self.ev.count(n))
                        .zip(zones)
                        .and_then(|(n, z)| n.checked_mul(z));
                    self.push("Terraform", format!("{address}.default-pool"), pool, at);
                }
                for np in body.get_blocks("node_pool") {
                    let pool_name = self.ev.attr_lit(&np.body, "name");
                    let zones = gke::zones(&self.ev, &np.body, Some(body));
                    let pool = self.gke_pool(&np.body, pool_name.clone(), zones);
                    let shown = pool_name.unwrap_or_else(|| "node_pool".to_string());
                    let np_at = span_of(np.span()).or(at);
                    self.push("Terraform", format!("{address}.{shown}"), pool, np_at);
                }
            }
            "azurerm_kubernetes_cluster_node_pool" => {
                let pool = self.aks_pool(body);
                self.push("Terraform", address, pool, at);
            }
            "azurerm_kubernetes_cluster" => {
                for np in body.get_blocks("default_node_pool") {
                    let pool = self.aks_pool(&np.body);
                    let np_at = span_of(np.ident.span()).or(at);
                    self.push(
                        "Terraform",
                        format!("{address}.default_node_pool"),
                        pool,
                        np_at,
                    );
                }
            }
            _ => {}
        }
    }

    fn module(&mut self, block: &'b Block) {
        let body = &block.body;
        let Some(source) = self.ev.attr_lit(body, "source") else {
            return;
        };
        // A module that is not created declares nothing; `for_each` or an unknown `count` on
        // a module makes its pools' number unknown (each is read once).
        match body
            .get_attribute("count")
            .map(|a| Ev::default().count(&a.value))
        {
            Some(Some(0)) => return,
            Some(Some(n)) => self.copies = Some(n),
            Some(None) => self.copies = None,
            None if body.get_attribute("for_each").is_some() => self.copies = None,
            None => {}
        }
        if source.contains("terraform-aws-modules/eks/aws") || source.contains("terraform-aws-eks")
        {
            self.eks_module(body);
        } else if source.contains("terraform-google-modules/kubernetes-engine/google") {
            self.gke_module(body);
        }
        self.copies = Some(1);
    }
}

#[cfg(test)]
mod tests;
