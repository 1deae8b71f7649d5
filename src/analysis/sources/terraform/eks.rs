//! EKS: `aws_eks_node_group`, and terraform-aws-modules/eks's `eks_managed_node_groups` and
//! `self_managed_node_groups`.

use std::sync::Arc;

use super::Tf;
use super::hcl::{Pool, field, list_items};
use super::value::{Look, Val};
use crate::analysis::sources::kubelet::kubelet_flags;
use crate::analysis::types::terraform::Cause;

/// The module's `max_size` when neither the group nor the defaults give one (`node_groups.tf`
/// of terraform-aws-modules/terraform-aws-eks: `max_size = try(each.value.max_size,
/// var.eks_managed_node_group_defaults.max_size, 3)`, the same for self-managed groups).
const MODULE_MAX_SIZE: u32 = 3;

/// A group's field in the EKS module: the group's own, else the defaults' (the module reads
/// each field as `try(each.value.X, var.*_node_group_defaults.X, …)`: the group's value
/// replaces the default, maps are not merged; a group's `null` is its value, not the
/// default's).
enum Field {
    Given(Val),
    Absent,
    /// Not known (the group or the defaults are known only in part): the field may be
    /// anything.
    Unknown(Cause),
}

impl Field {
    fn val(&self) -> Option<&Val> {
        match self {
            Field::Given(v) => Some(v),
            _ => None,
        }
    }
}

fn look(v: &Val, key: &str) -> Option<Field> {
    match v.look(key) {
        Look::Present(x) if x.is_null() => Some(Field::Absent),
        Look::Present(x) => Some(Field::Given(x.clone())),
        Look::Unknown(c) => Some(Field::Unknown(c.clone())),
        Look::Absent => None,
    }
}

fn get(group: &Val, defaults: Option<&Val>, key: &str) -> Field {
    if let Some(f) = look(group, key) {
        return f;
    }
    match defaults {
        None => Field::Absent,
        Some(d) if d.is_null() => Field::Absent,
        Some(d) => look(d, key).unwrap_or(Field::Absent),
    }
}

impl Tf<'_> {
    /// `aws_eks_node_group`. EKS labels a managed node group's nodes with
    /// `eks.amazonaws.com/nodegroup` and `eks.amazonaws.com/capacityType` (`ON_DEMAND` unless
    /// `capacity_type = "SPOT"`), and maps the taint effects `NO_SCHEDULE`, `NO_EXECUTE`,
    /// `PREFER_NO_SCHEDULE` to Kubernetes'
    /// (<https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html>,
    /// <https://docs.aws.amazon.com/eks/latest/userguide/node-taints-managed-node-groups.html>,
    /// <https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html>). Its size is
    /// `scaling_config.max_size`.
    pub(super) fn eks_node_group(&self, body: &Val) -> Pool {
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        pool.label_map(body.get("labels"));
        self.taint_list(&mut pool, body.get("taint"));
        let group_name = field(body, "node_group_name");
        if let Some(n) = &group_name {
            pool.note_val("labels.eks.amazonaws.com/nodegroup", n);
        }
        pool.provider_label(
            "eks.amazonaws.com/nodegroup",
            group_name.and_then(|n| n.text()),
        );
        eks_capacity_and_type(
            &mut pool,
            field(body, "capacity_type").as_ref(),
            field(body, "instance_types").as_ref(),
        );
        let (scaling, _) = list_items(body.get("scaling_config"));
        pool.max_nodes = scaling
            .first()
            .and_then(|s| field(s, "max_size"))
            .and_then(|n| n.count());
        pool
    }

    /// terraform-aws-modules/eks: each key of `eks_managed_node_groups` and
    /// `self_managed_node_groups` is a node group, with the module's
    /// `eks_managed_node_group_defaults` / `self_managed_node_group_defaults` under it (see
    /// [`Field`]). A map known in part gives its known groups and one `[*]` for the others
    /// (read from a `for` expression's template when there is one, else unknown).
    pub(super) fn eks_module(&mut self, body: &Val) {
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
            let Some(groups) = body.get(map) else {
                continue;
            };
            let mut list: Vec<(Option<String>, Val)> = Vec::new();
            match (groups.as_obj(), groups.cause()) {
                (Some(o), _) => {
                    list.extend(
                        o.entries
                            .iter()
                            .map(|(k, v)| (Some(k.to_string()), v.clone())),
                    );
                    if let Some(c) = &o.more {
                        let any = o
                            .any
                            .as_deref()
                            .cloned()
                            .unwrap_or_else(|| Val::unknown(c.clone()));
                        let at = any.at.or(groups.at);
                        list.push((None, any.with_at(at)));
                    }
                }
                (None, Some(c)) => list.push((None, Val::unknown(c.clone()).with_at(groups.at))),
                _ => continue,
            }
            let defaults = body.get(defaults);
            for (key, group) in list {
                let at = group.at.or(groups.at);
                let mut pool = match group.cause() {
                    Some(c) => unknown_group(c),
                    None if managed => self.managed_group(key.as_deref(), &group, defaults),
                    None => self.self_managed_group(&group, defaults),
                };
                // A group whose key is not known stands for any number of groups.
                let name = match key {
                    Some(key) => format!("{map}.{key}"),
                    None => {
                        pool.max_nodes = None;
                        format!("{map}[*]")
                    }
                };
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
    fn worker_groups(&mut self, body: &Val) {
        let defaults = body.get("workers_group_defaults");
        for list in ["worker_groups", "worker_groups_launch_template"] {
            let Some(groups) = body.get(list) else {
                continue;
            };
            let (items, more) = list_items(Some(groups));
            if let Some(c) = more {
                self.push(
                    "Terraform module",
                    format!("{list}[*]"),
                    unknown_group(&c),
                    groups.at,
                );
            }
            for (i, group) in items.iter().enumerate() {
                if group.is_null() {
                    continue;
                }
                if let Some(c) = group.cause() {
                    self.push(
                        "Terraform module",
                        format!("{list}.{i}"),
                        unknown_group(c),
                        group.at.or(groups.at),
                    );
                    continue;
                }
                let get = |k: &str| get(group, defaults, k);
                let mut pool = Pool::new();
                pool.extended_resource_toleration = true;
                match get("userdata_template_file") {
                    Field::Absent => {}
                    Field::Given(_) => {
                        pool.unknown(&Cause::Function(Arc::from("userdata_template_file")))
                    }
                    Field::Unknown(c) => pool.unknown(&c),
                }
                for k in ["kubelet_extra_args", "bootstrap_extra_args"] {
                    match get(k) {
                        Field::Given(e) => self.read_flags(&mut pool, &e),
                        Field::Unknown(c) => pool.unknown(&c),
                        Field::Absent => {}
                    }
                }
                if let Some(t) = get("instance_type").val() {
                    pool.label_val("node.kubernetes.io/instance-type", t);
                }
                pool.max_nodes = module_max_size(get("asg_max_size"));
                let name = get("name")
                    .val()
                    .and_then(Val::text)
                    .unwrap_or_else(|| i.to_string());
                self.push(
                    "Terraform module",
                    format!("{list}.{name}"),
                    pool,
                    group.at.or(groups.at),
                );
            }
        }
    }

    /// The kubelet flags of user data text (unknown text: every label and taint unknown).
    fn read_flags(&self, pool: &mut Pool, text: &Val) {
        let Some(text) = text.text() else {
            let c = text
                .cause()
                .cloned()
                .unwrap_or_else(|| super::hcl::wrong("user data"));
            pool.unknown(&c);
            return;
        };
        // Bottlerocket's TOML settings, or a KubeletConfiguration field: not read.
        if text.contains("settings.kubernetes") || text.contains("registerWithTaints") {
            pool.unknown(&Cause::Function(Arc::from(
                "Bottlerocket or KubeletConfiguration settings",
            )));
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
    fn managed_group(&self, key: Option<&str>, group: &Val, defaults: Option<&Val>) -> Pool {
        let get = |k: &str| get(group, defaults, k);
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        match get("labels") {
            Field::Given(l) => pool.label_map(Some(&l)),
            Field::Unknown(c) => pool.open_labels(&c),
            Field::Absent => {}
        }
        match get("taints") {
            Field::Given(t) => self.taint_list(&mut pool, Some(&t)),
            Field::Unknown(c) => pool.open_taints(&c),
            Field::Absent => {}
        }
        let exact_name = match get("use_name_prefix") {
            Field::Given(v) => v.as_bool() == Some(false),
            Field::Absent => false,
            Field::Unknown(_) => false,
        };
        let group_name = match get("name") {
            Field::Given(n) if exact_name => n.text(),
            Field::Absent if exact_name => key.map(str::to_string),
            _ => None,
        };
        pool.provider_label("eks.amazonaws.com/nodegroup", group_name);
        match get("capacity_type") {
            Field::Unknown(c) => {
                pool.note("labels.eks.amazonaws.com/capacityType", &c);
                pool.provider_label("eks.amazonaws.com/capacityType", None);
            }
            f => eks_capacity_and_type(&mut pool, f.val(), get("instance_types").val()),
        }
        pool.max_nodes = module_max_size(get("max_size"));
        pool
    }

    /// A self-managed node group of the module: an Auto Scaling group whose nodes register
    /// with the labels and taints of their kubelet flags, which the module passes through
    /// user data: `bootstrap_extra_args` (on AL2, the arguments of `/etc/eks/bootstrap.sh`,
    /// whose `--kubelet-extra-args '--node-labels=… --register-with-taints=…'` reach the
    /// kubelet: modules/_user_data/templates/linux_user_data.tpl), or the nodeadm
    /// `NodeConfig` of `cloudinit_pre_nodeadm` on AL2023 (`kubelet.flags`). Flags known from
    /// the files are read; user data that is not known, a user-data template file, a launch
    /// template of the user's own, or Bottlerocket settings make the labels and taints
    /// unknown. EKS adds no label of its own to self-managed nodes.
    fn self_managed_group(&self, group: &Val, defaults: Option<&Val>) -> Pool {
        let get = |k: &str| get(group, defaults, k);
        let mut pool = Pool::new();
        pool.extended_resource_toleration = true;
        for k in ["user_data_template_path", "launch_template_id"] {
            match get(k) {
                Field::Absent => {}
                Field::Given(_) => pool.unknown(&Cause::Function(Arc::from(k))),
                Field::Unknown(c) => pool.unknown(&c),
            }
        }
        match get("create_launch_template") {
            Field::Given(v) if v.as_bool() == Some(true) => {}
            Field::Absent => {}
            Field::Given(v) => pool.unknown(
                &v.cause()
                    .cloned()
                    .unwrap_or_else(|| Cause::Function(Arc::from("create_launch_template"))),
            ),
            Field::Unknown(c) => pool.unknown(&c),
        }
        let mut texts = Vec::new();
        for k in ["bootstrap_extra_args", "pre_bootstrap_user_data"] {
            match get(k) {
                Field::Given(e) => texts.push(e),
                Field::Unknown(c) => texts.push(Val::unknown(c)),
                Field::Absent => {}
            }
        }
        match get("cloudinit_pre_nodeadm") {
            Field::Given(parts) => {
                let (items, more) = list_items(Some(&parts));
                if let Some(c) = more {
                    texts.push(Val::unknown(c));
                }
                texts.extend(
                    items
                        .iter()
                        .map(|p| field(p, "content").unwrap_or_else(|| Val::str(""))),
                );
            }
            Field::Unknown(c) => texts.push(Val::unknown(c)),
            Field::Absent => {}
        }
        for text in &texts {
            self.read_flags(&mut pool, text);
        }
        if let Some(t) = get("instance_type").val() {
            pool.label_val("node.kubernetes.io/instance-type", t);
        }
        pool.max_nodes = module_max_size(get("max_size"));
        pool
    }
}

/// A node group of the module that cannot be read (its value, or the map or list it is in,
/// is not known): every label and taint unknown, of unknown size. It stands for pools that
/// exist but that the files do not show, so no finding rests on their absence.
fn unknown_group(cause: &Cause) -> Pool {
    let mut pool = Pool::new();
    pool.extended_resource_toleration = true;
    pool.unknown(cause);
    pool.max_nodes = None;
    pool
}

/// A module group's `max_size` (the module's default when neither the group nor the defaults
/// give one).
fn module_max_size(f: Field) -> Option<u32> {
    match f {
        Field::Given(n) => n.count(),
        Field::Absent => Some(MODULE_MAX_SIZE),
        Field::Unknown(_) => None,
    }
}

/// `capacity_type` (EKS labels nodes `eks.amazonaws.com/capacityType`, `ON_DEMAND` by default)
/// and a single instance type (`node.kubernetes.io/instance-type`).
pub(super) fn eks_capacity_and_type(pool: &mut Pool, capacity: Option<&Val>, types: Option<&Val>) {
    let capacity = match capacity {
        None => Some("ON_DEMAND".to_string()),
        Some(c) => {
            pool.note_val("labels.eks.amazonaws.com/capacityType", c);
            c.text()
        }
    };
    pool.provider_label("eks.amazonaws.com/capacityType", capacity);
    if let Some(s) = types.and_then(Val::as_seq)
        && s.more.is_none()
        && s.items.len() == 1
    {
        pool.label_val("node.kubernetes.io/instance-type", &s.items[0]);
    }
}
