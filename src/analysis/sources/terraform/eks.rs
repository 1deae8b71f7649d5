//! EKS: `aws_eks_node_group`, and terraform-aws-modules/eks's `eks_managed_node_groups` and
//! `self_managed_node_groups`.

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::Body;

use super::Tf;
use super::hcl::{Ev, Pool, has_dynamic, span_of};
use crate::analysis::types::UnknownTaints;

/// The module's `max_size` when neither the group nor the defaults give one (`node_groups.tf`
/// of terraform-aws-modules/terraform-aws-eks: `max_size = try(each.value.max_size,
/// var.eks_managed_node_group_defaults.max_size, 3)`, the same for self-managed groups).
const MODULE_MAX_SIZE: u32 = 3;

/// A group's field in the EKS module: the group's own, else the defaults' (the module reads
/// each field as `try(each.value.X, var.*_node_group_defaults.X, …)`: the group's value
/// replaces the default, maps are not merged).
enum Field<'x> {
    Given(&'x Expression),
    Absent,
    /// The defaults are not a literal object: the field may be anything.
    Unknown,
}

impl<'x> Field<'x> {
    fn expr(&self) -> Option<&'x Expression> {
        match self {
            Field::Given(e) => Some(e),
            _ => None,
        }
    }
}

fn field<'x>(
    ev: &'x Ev<'_>,
    group: &'x Expression,
    defaults: Option<&'x Expression>,
    key: &str,
) -> Field<'x> {
    if let Some(e) = ev.entry(group, key) {
        return Field::Given(e);
    }
    match defaults {
        None => Field::Absent,
        Some(d) if ev.entries(d).is_none() => Field::Unknown,
        Some(d) => ev.entry(d, key).map_or(Field::Absent, Field::Given),
    }
}

impl Tf<'_, '_> {
    /// `aws_eks_node_group`. EKS labels a managed node group's nodes with
    /// `eks.amazonaws.com/nodegroup` and `eks.amazonaws.com/capacityType` (`ON_DEMAND` unless
    /// `capacity_type = "SPOT"`), and maps the taint effects `NO_SCHEDULE`, `NO_EXECUTE`,
    /// `PREFER_NO_SCHEDULE` to Kubernetes'
    /// (<https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html>,
    /// <https://docs.aws.amazon.com/eks/latest/userguide/node-taints-managed-node-groups.html>,
    /// <https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html>). Its size is
    /// `scaling_config.max_size`.
    pub(super) fn eks_node_group(&self, body: &Body) -> Pool {
        let ev = &self.ev;
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        pool.label_map(ev, ev.attr(body, "labels"));
        if has_dynamic(body, "labels") {
            pool.any_label = true;
        }
        self.taint_blocks(&mut pool, body, "taint");
        let group_name = ev.attr_lit(body, "node_group_name");
        pool.provider_label("eks.amazonaws.com/nodegroup", group_name);
        eks_capacity_and_type(
            ev,
            &mut pool,
            ev.attr(body, "capacity_type"),
            ev.attr(body, "instance_types"),
        );
        pool.max_nodes = body
            .get_blocks("scaling_config")
            .next()
            .and_then(|s| ev.attr(&s.body, "max_size"))
            .and_then(|n| ev.count(n));
        pool
    }

    /// terraform-aws-modules/eks: each key of `eks_managed_node_groups` and
    /// `self_managed_node_groups` is a node group, with the module's
    /// `eks_managed_node_group_defaults` / `self_managed_node_group_defaults` under it (see
    /// [`Field`]).
    pub(super) fn eks_module(&mut self, body: &Body) {
        for (map, defaults, managed) in [
            (
                "eks_managed_node_groups",
                "eks_managed_node_group_defaults",
                true,
            ),
            (
                "self_managed_node_groups",
                "self_managed_node_group_defaults",
                false,
            ),
        ] {
            let ev = &self.ev;
            let Some(groups) = ev.attr(body, map).map(|g| ev.resolve(g)) else {
                continue;
            };
            let groups = match (ev.entries(groups), groups) {
                (Some(g), _) => g,
                (None, Expression::Null(_)) => continue,
                // `{ for k, v in var.groups : k => { … } }`: groups of unknown number and
                // names, each read from the template with the loop's values unknown.
                (None, Expression::ForExpr(f)) if f.key_expr.is_some() => {
                    vec![(None, ev.resolve(&f.value_expr))]
                }
                // `var.groups`, `merge(…)`, a conditional: groups that cannot be read.
                (None, other) => vec![(None, other)],
            };
            let defaults = ev.attr(body, defaults);
            let mut pools = Vec::new();
            for (key, group) in groups {
                let at = span_of(group.span()).or_else(|| span_of(block_span(body, map)));
                let mut pool = if ev.entries(group).is_none() {
                    unknown_group()
                } else if managed {
                    self.managed_group(key.as_deref(), group, defaults)
                } else {
                    self.self_managed_group(group, defaults)
                };
                // A group whose key needs evaluation stands for any number of groups.
                let name = match key {
                    Some(key) => format!("{map}.{key}"),
                    None => {
                        pool.max_nodes = None;
                        format!("{map}[*]")
                    }
                };
                pools.push((name, pool, at));
            }
            for (name, pool, at) in pools {
                self.push("Terraform module", name, pool, at);
            }
        }
        self.worker_groups(body);
    }

    /// The module's worker groups before v18 (`worker_groups`,
    /// `worker_groups_launch_template`): lists of Auto Scaling groups, each merged over
    /// `workers_group_defaults` and the module's own defaults (its `local.tf`:
    /// `workers_group_defaults_defaults`, with `kubelet_extra_args = ""`, "passed directly to
    /// kubelet if set. Useful for adding labels or taints", and `asg_max_size = "3"`). Named
    /// by `name`, else their index, as the module does (`count.index`).
    fn worker_groups(&mut self, body: &Body) {
        let ev = &self.ev;
        let defaults = ev.attr(body, "workers_group_defaults");
        let mut pools = Vec::new();
        for list in ["worker_groups", "worker_groups_launch_template"] {
            let Some(groups) = ev.attr(body, list).map(|g| ev.resolve(g)) else {
                continue;
            };
            let groups = match (groups.as_array(), groups) {
                (Some(g), _) => g,
                (None, Expression::Null(_)) => continue,
                // A list that needs evaluation: groups that cannot be read.
                (None, other) => {
                    pools.push((format!("{list}[*]"), unknown_group(), span_of(other.span())));
                    continue;
                }
            };
            for (i, group) in groups.iter().enumerate() {
                let group = ev.resolve(group);
                if ev.entries(group).is_none() {
                    if !matches!(group, Expression::Null(_)) {
                        pools.push((
                            format!("{list}.{i}"),
                            unknown_group(),
                            span_of(group.span()),
                        ));
                    }
                    continue;
                }
                let get = |k: &str| field(ev, group, defaults, k);
                let mut pool = Pool::new();
                pool.extended_resource_toleration = true;
                if !matches!(get("userdata_template_file"), Field::Absent) {
                    pool.unknown();
                }
                for k in ["kubelet_extra_args", "bootstrap_extra_args"] {
                    match get(k) {
                        Field::Given(e) => self.read_flags(&mut pool, ev.text(e)),
                        Field::Unknown => pool.unknown(),
                        Field::Absent => {}
                    }
                }
                if let Some(t) = get("instance_type").expr() {
                    pool.label("node.kubernetes.io/instance-type", ev.lit(t));
                }
                pool.max_nodes = module_max_size(ev, get("asg_max_size"));
                let name = get("name")
                    .expr()
                    .and_then(|n| ev.lit(n))
                    .unwrap_or_else(|| i.to_string());
                pools.push((format!("{list}.{name}"), pool, span_of(group.span())));
            }
        }
        for (name, pool, at) in pools {
            self.push("Terraform module", name, pool, at);
        }
    }

    /// The kubelet flags of user data text (`None`: it needs evaluation, so every label and
    /// taint is unknown).
    fn read_flags(&self, pool: &mut Pool, text: Option<String>) {
        let Some(text) = text else {
            pool.unknown();
            return;
        };
        // Bottlerocket's TOML settings, or a KubeletConfiguration field: not read.
        if text.contains("settings.kubernetes") || text.contains("registerWithTaints") {
            pool.unknown();
        }
        let flags = kubelet_flags(&text);
        for (k, v) in flags.labels {
            pool.label(&k, Some(v));
        }
        for (k, v, e) in flags.taints {
            pool.taints.push(self.taint(&k, &v, &e, None));
        }
    }

    /// A managed node group of the module (`labels`, `taints`, `capacity_type`,
    /// `instance_types`, `max_size`). The node group's name is `name` (else the map key)
    /// followed by a random suffix unless `use_name_prefix = false`
    /// (modules/eks-managed-node-group: `node_group_name_prefix = var.use_name_prefix ?
    /// "${var.name}-" : null`), so `eks.amazonaws.com/nodegroup` is known only then.
    fn managed_group(
        &self,
        key: Option<&str>,
        group: &Expression,
        defaults: Option<&Expression>,
    ) -> Pool {
        let ev = &self.ev;
        let get = |k: &str| field(ev, group, defaults, k);
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        match get("labels") {
            Field::Given(l) => pool.label_map(ev, Some(l)),
            Field::Unknown => pool.any_label = true,
            Field::Absent => {}
        }
        match get("taints") {
            Field::Given(t) => self.taint_objects(&mut pool, Some(t)),
            Field::Unknown => pool.unknown_taints = UnknownTaints::Any,
            Field::Absent => {}
        }
        let exact_name = ev.flag(get("use_name_prefix").expr(), true) == Some(false);
        let group_name = match get("name").expr() {
            Some(n) if exact_name => ev.lit(n),
            None if exact_name => key.map(str::to_string),
            _ => None,
        };
        pool.provider_label("eks.amazonaws.com/nodegroup", group_name);
        match get("capacity_type") {
            Field::Unknown => pool.provider_label("eks.amazonaws.com/capacityType", None),
            f => eks_capacity_and_type(ev, &mut pool, f.expr(), get("instance_types").expr()),
        }
        pool.max_nodes = module_max_size(ev, get("max_size"));
        pool
    }

    /// A self-managed node group of the module: an Auto Scaling group whose nodes register
    /// with the labels and taints of their kubelet flags, which the module passes through
    /// user data: `bootstrap_extra_args` (on AL2, the arguments of `/etc/eks/bootstrap.sh`,
    /// whose `--kubelet-extra-args '--node-labels=… --register-with-taints=…'` reach the
    /// kubelet: modules/_user_data/templates/linux_user_data.tpl), or the nodeadm
    /// `NodeConfig` of `cloudinit_pre_nodeadm` on AL2023 (`kubelet.flags`). Flags written
    /// literally there are read; user data that needs evaluation, a user-data template file, a
    /// launch template of the user's own, or Bottlerocket settings make the labels and taints
    /// unknown. EKS adds no label of its own to self-managed nodes.
    fn self_managed_group(&self, group: &Expression, defaults: Option<&Expression>) -> Pool {
        let ev = &self.ev;
        let get = |k: &str| field(ev, group, defaults, k);
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        let own_template = ["user_data_template_path", "launch_template_id"]
            .iter()
            .any(|k| !matches!(get(k), Field::Absent))
            || ev.flag(get("create_launch_template").expr(), true) != Some(true);
        if own_template {
            pool.unknown();
        }
        let mut texts = Vec::new();
        for k in ["bootstrap_extra_args", "pre_bootstrap_user_data"] {
            match get(k) {
                Field::Given(e) => texts.push(ev.text(e)),
                Field::Unknown => texts.push(None),
                Field::Absent => {}
            }
        }
        match get("cloudinit_pre_nodeadm") {
            Field::Given(parts) => match ev.resolve(parts).as_array() {
                Some(parts) => texts.extend(
                    parts
                        .iter()
                        .map(|p| ev.entry(p, "content").and_then(|c| ev.text(c))),
                ),
                None => texts.push(None),
            },
            Field::Unknown => texts.push(None),
            Field::Absent => {}
        }
        for text in texts {
            self.read_flags(&mut pool, text);
        }
        if let Some(t) = get("instance_type").expr() {
            pool.label("node.kubernetes.io/instance-type", ev.lit(t));
        }
        pool.max_nodes = module_max_size(ev, get("max_size"));
        pool
    }
}

/// A node group of the module that cannot be read (its value, or the map or list it is in,
/// needs evaluation): every label and taint unknown, of unknown size. It stands for pools that
/// exist but that the files do not show, so no finding rests on their absence.
fn unknown_group() -> Pool {
    let mut pool = Pool::new();
    pool.extended_resource_toleration = true;
    pool.unknown();
    pool.max_nodes = None;
    pool
}

/// The span of a module argument (for a group without a span of its own).
fn block_span(body: &Body, key: &str) -> Option<std::ops::Range<usize>> {
    body.get_attribute(key).and_then(|a| a.span())
}

/// A module group's `max_size` (the module's default when neither the group nor the defaults
/// give one).
fn module_max_size(ev: &Ev<'_>, f: Field<'_>) -> Option<u32> {
    match f {
        Field::Given(n) => ev.count(n),
        Field::Absent => Some(MODULE_MAX_SIZE),
        Field::Unknown => None,
    }
}

/// `capacity_type` (EKS labels nodes `eks.amazonaws.com/capacityType`, `ON_DEMAND` by default)
/// and a single instance type (`node.kubernetes.io/instance-type`).
pub(super) fn eks_capacity_and_type(
    ev: &Ev<'_>,
    pool: &mut Pool,
    capacity: Option<&Expression>,
    types: Option<&Expression>,
) {
    let capacity = match capacity {
        None => Some("ON_DEMAND".to_string()),
        Some(c) => ev.lit(c),
    };
    pool.provider_label("eks.amazonaws.com/capacityType", capacity);
    if let Some(a) = types.and_then(|t| ev.resolve(t).as_array())
        && a.len() == 1
    {
        let one = a.get(0).and_then(|t| ev.lit(t));
        pool.label("node.kubernetes.io/instance-type", one);
    }
}

/// The labels and taints of kubelet flags written in user data.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct KubeletFlags {
    pub(super) labels: Vec<(String, String)>,
    /// (key, value, effect)
    pub(super) taints: Vec<(String, String, String)>,
}

/// `--node-labels=k=v,…` and `--register-with-taints=k=v:Effect,…` (or with a space for `=`)
/// anywhere in `text`: shell arguments, quoted or not, or a YAML/JSON list of flags.
pub(super) fn kubelet_flags(text: &str) -> KubeletFlags {
    let mut out = KubeletFlags::default();
    let tokens: Vec<&str> = text
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| matches!(c, '\'' | '"' | '[' | ']' | ',' | '\\')))
        .collect();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        i += 1;
        let (flag, inline) = match token.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (token, None),
        };
        if flag != "--node-labels" && flag != "--register-with-taints" {
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => match tokens.get(i) {
                Some(v) => {
                    i += 1;
                    v
                }
                None => break,
            },
        };
        for item in value.split(',').filter(|s| !s.is_empty()) {
            if flag == "--node-labels" {
                let (k, v) = item.split_once('=').unwrap_or((item, ""));
                out.labels.push((k.to_string(), v.to_string()));
            } else {
                let (kv, effect) = item.rsplit_once(':').unwrap_or((item, ""));
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                out.taints
                    .push((k.to_string(), v.to_string(), effect.to_string()));
            }
        }
    }
    out
}
