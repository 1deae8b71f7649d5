use super::*;
use crate::analysis::types::{LabelValues, UnknownTaints};

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
  node_pool {
name = "default-pool"
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
    // A self-managed group without user data: its kubelet registers no label or taint of
    // the user's; the module's default `max_size` is 3.
    assert!(!d[1].any_label && d[1].unknown_taints == UnknownTaints::None);
    assert!(d[1].taints.is_empty());
    assert_eq!((d[0].max_nodes, d[1].max_nodes), (Some(3), Some(3)));
    // The module's own labels, with the pool's name.
    assert_eq!(label(&d[2], "node_pool"), Some(LabelValues::one("p")));
    assert_eq!(label(&d[2], "cluster_name"), Some(LabelValues::Any));
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

/// Sizes from scaling limits: EKS `scaling_config.max_size`, GKE per-zone counts times the
/// zones (unknown for a region), AKS `max_count` with autoscaling, else `node_count`.
#[test]
fn sizes() {
    let d = decls(
        r#"resource "aws_eks_node_group" "a" {
  scaling_config {
    max_size = 5
  }
}
resource "google_container_node_pool" "zonal" {
  location = "europe-west1-b"
  autoscaling {
    max_node_count = 4
  }
}
resource "google_container_node_pool" "three" {
  location       = "europe-west1"
  node_locations = ["europe-west1-b", "europe-west1-c", "europe-west1-d"]
  node_count     = 2
}
resource "google_container_node_pool" "regional" {
  location = "europe-west1"
  autoscaling {
    max_node_count = 4
  }
}
resource "google_container_node_pool" "total" {
  location = var.region
  autoscaling {
    total_max_node_count = 7
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "auto" {
  auto_scaling_enabled = true
  node_count           = 1
  max_count            = 6
}
resource "azurerm_kubernetes_cluster_node_pool" "fixed" {
  node_count = 2
  max_count  = 9
}
resource "azurerm_kubernetes_cluster_node_pool" "unknown" {
  enable_auto_scaling = var.autoscale
  max_count           = 6
}"#,
    );
    let sizes: Vec<(&str, Option<u32>)> =
        d.iter().map(|d| (d.name.as_str(), d.max_nodes)).collect();
    assert_eq!(
        sizes,
        [
            ("aws_eks_node_group.a", Some(5)),
            ("google_container_node_pool.zonal", Some(4)),
            ("google_container_node_pool.three", Some(6)),
            ("google_container_node_pool.regional", None),
            ("google_container_node_pool.total", Some(7)),
            ("azurerm_kubernetes_cluster_node_pool.auto", Some(6)),
            ("azurerm_kubernetes_cluster_node_pool.fixed", Some(2)),
            ("azurerm_kubernetes_cluster_node_pool.unknown", None),
        ]
    );
}

/// A literal `for_each` is a pool per key, with `each.key` and `each.value` read; a literal
/// `count` is one pool for its copies (its size times the count); `count = 0` is none; an
/// unknown `for_each` or `count` is one pool of unknown size.
#[test]
fn count_and_for_each() {
    let d = decls(
        r#"resource "aws_eks_node_group" "groups" {
  for_each        = { gpu = { effect = "NO_EXECUTE", max = 2 }, batch = { effect = "NO_SCHEDULE", max = 8 } }
  node_group_name = each.key
  labels          = { workload = each.key, team = each.value.team }
  taint {
    key    = "dedicated"
    value  = each.key
    effect = each.value["effect"]
  }
  scaling_config {
    max_size = lookup(each.value, "max", 1)
  }
}
resource "aws_eks_node_group" "set" {
  for_each        = toset(["a", "b", "a"])
  node_group_name = each.value
}
resource "aws_eks_node_group" "copies" {
  count = 3
  scaling_config {
    max_size = 2
  }
}
resource "aws_eks_node_group" "one" {
  count = 1
}
resource "aws_eks_node_group" "none" {
  count = 0
}
resource "aws_eks_node_group" "maybe" {
  count = var.enabled ? 1 : 0
  scaling_config {
    max_size = 2
  }
}
resource "google_container_node_pool" "unknown" {
  for_each = var.pools
  name     = each.key
}"#,
    );
    let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            r#"aws_eks_node_group.groups["batch"]"#,
            r#"aws_eks_node_group.groups["gpu"]"#,
            r#"aws_eks_node_group.set["a"]"#,
            r#"aws_eks_node_group.set["b"]"#,
            "aws_eks_node_group.copies[*]",
            "aws_eks_node_group.one[0]",
            "aws_eks_node_group.maybe[*]",
            "google_container_node_pool.unknown[*]",
        ]
    );
    // Instances in Terraform's order of their keys.
    assert_eq!(taints(&d[1]), ["dedicated=gpu:NoExecute"]);
    assert_eq!(taints(&d[0]), ["dedicated=batch:NoSchedule"]);
    assert_eq!(label(&d[1], "workload"), Some(LabelValues::one("gpu")));
    // `each.value.team` names no field of the value: Terraform rejects it, unknown.
    assert_eq!(label(&d[1], "team"), Some(LabelValues::Any));
    assert_eq!(
        label(&d[0], "eks.amazonaws.com/nodegroup"),
        Some(LabelValues::one("batch"))
    );
    assert_eq!(
        label(&d[3], "eks.amazonaws.com/nodegroup"),
        Some(LabelValues::one("b"))
    );
    assert_eq!((d[0].max_nodes, d[1].max_nodes), (Some(8), Some(2)));
    assert_eq!(d[4].max_nodes, Some(6));
    assert_eq!(d[6].max_nodes, None);
    assert_eq!(
        label(&d[7], "cloud.google.com/gke-nodepool"),
        Some(LabelValues::Any)
    );
}

/// The EKS module: a group's field replaces the defaults' (`try(each.value.X,
/// var.*_defaults.X)`), self-managed groups' kubelet flags are read from their user data,
/// and the managed node group's name label is known only without the name prefix.
#[test]
fn eks_module_defaults_and_self_managed_flags() {
    let d = decls(
        r#"module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_group_defaults = {
    labels   = { tier = "default" }
    taints   = { d = { key = "d", value = "1", effect = "NO_SCHEDULE" } }
    max_size = 10
  }
  eks_managed_node_groups = {
    plain = {}
    own = {
      labels          = { tier = "own" }
      use_name_prefix = false
      max_size        = 2
    }
  }
  self_managed_node_group_defaults = {
    instance_type = "m5.large"
  }
  self_managed_node_groups = {
    al2 = {
      bootstrap_extra_args = "--kubelet-extra-args '--node-labels=lifecycle=spot,team=ml --register-with-taints=spot=true:NoSchedule,gpu:NoExecute'"
      max_size             = 4
    }
    al2023 = {
      cloudinit_pre_nodeadm = [{
        content_type = "application/node.eks.aws"
        content      = <<-EOT
          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            kubelet:
              flags:
                - --node-labels=os=al2023
        EOT
      }]
    }
    templated = {
      bootstrap_extra_args = "--kubelet-extra-args '--node-labels=team=${var.team}'"
    }
    bottlerocket = {
      bootstrap_extra_args = <<-EOT
        [settings.kubernetes.node-labels]
        "team" = "ml"
      EOT
    }
  }
}"#,
    );
    let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "eks_managed_node_groups.plain",
            "eks_managed_node_groups.own",
            "self_managed_node_groups.al2",
            "self_managed_node_groups.al2023",
            "self_managed_node_groups.templated",
            "self_managed_node_groups.bottlerocket",
        ]
    );
    let (plain, own) = (&d[0], &d[1]);
    assert_eq!(label(plain, "tier"), Some(LabelValues::one("default")));
    assert_eq!(taints(plain), ["d=1:NoSchedule"]);
    assert_eq!(plain.max_nodes, Some(10));
    assert_eq!(
        label(plain, "eks.amazonaws.com/nodegroup"),
        Some(LabelValues::Any)
    );
    // The group's labels replace the defaults'; the defaults' taints still apply.
    assert_eq!(label(own, "tier"), Some(LabelValues::one("own")));
    assert_eq!(taints(own), ["d=1:NoSchedule"]);
    assert_eq!(own.max_nodes, Some(2));
    assert_eq!(
        label(own, "eks.amazonaws.com/nodegroup"),
        Some(LabelValues::one("own"))
    );
    let al2 = &d[2];
    assert_eq!(label(al2, "lifecycle"), Some(LabelValues::one("spot")));
    assert_eq!(label(al2, "team"), Some(LabelValues::one("ml")));
    assert_eq!(taints(al2), ["spot=true:NoSchedule", "gpu:NoExecute"]);
    assert_eq!(
        label(al2, "node.kubernetes.io/instance-type"),
        Some(LabelValues::one("m5.large"))
    );
    assert!(!al2.any_label && al2.unknown_taints == UnknownTaints::None);
    assert_eq!(al2.max_nodes, Some(4));
    assert_eq!(label(&d[3], "os"), Some(LabelValues::one("al2023")));
    assert!(!d[3].any_label);
    for unknown in &d[4..] {
        assert!(unknown.any_label, "{}", unknown.name);
        assert_eq!(unknown.unknown_taints, UnknownTaints::Any);
    }
}

/// The EKS module's worker groups before v18: `kubelet_extra_args` flags, merged over
/// `workers_group_defaults`, `asg_max_size` (3 by default), named by `name` or index.
#[test]
fn eks_module_worker_groups() {
    let d = decls(
        r#"module "eks" {
  source = "terraform-aws-modules/eks/aws"
  version = "17.24.0"
  workers_group_defaults = {
    kubelet_extra_args = "--node-labels=tier=default"
  }
  worker_groups = [
    {
      name               = "gpu"
      instance_type      = "p3.2xlarge"
      asg_max_size       = 2
      kubelet_extra_args = "--node-labels=gpu=true --register-with-taints=nvidia.com/gpu=true:NoSchedule"
    },
    {
      instance_type = "m5.large"
    },
  ]
}"#,
    );
    let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["worker_groups.gpu", "worker_groups.1"]);
    assert_eq!(taints(&d[0]), ["nvidia.com/gpu=true:NoSchedule"]);
    assert_eq!(label(&d[0], "gpu"), Some(LabelValues::one("true")));
    // The group's own flags replace the defaults' (a map merge, key by key).
    assert_eq!(label(&d[0], "tier"), None);
    assert_eq!(label(&d[1], "tier"), Some(LabelValues::one("default")));
    assert_eq!((d[0].max_nodes, d[1].max_nodes), (Some(2), Some(3)));
}

#[test]
fn kubelet_flag_forms() {
    let f = crate::analysis::sources::kubelet::kubelet_flags(
        "--kubelet-extra-args \"--node-labels a=b,c --register-with-taints=k=v:NoSchedule\"",
    );
    assert_eq!(
        f.labels,
        [("a".into(), "b".into()), ("c".into(), String::new())]
    );
    assert_eq!(f.taints, [("k".into(), "v".into(), "NoSchedule".into())]);
    assert_eq!(
        crate::analysis::sources::kubelet::kubelet_flags("--node-labels"),
        Default::default()
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

/// Node groups the module gets from an expression that needs evaluation (a `for` expression,
/// a variable, `merge`, a group that is a variable, a key that is one) are not left out: each
/// is a pool `[*]` (or its key) of unknown size, whose labels and taints are unknown except
/// what a `for` template writes literally; `null` and `{}` declare nothing.
#[test]
fn eks_module_groups_that_need_evaluation() {
    let d = decls(
        r#"module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = {
    for k, v in var.groups : k => {
      instance_types = v.types
      max_size       = 4
      taints         = [{ key = "dedicated", value = k, effect = "NO_SCHEDULE" }]
      labels         = { team = "ml" }
    }
  }
  self_managed_node_groups = var.self_managed
}
module "eks2" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
  eks_managed_node_groups = {
    fixed = { max_size = 2 }
    gpu   = var.gpu_group
    (var.extra_name) = { labels = { extra = "yes" } }
  }
  self_managed_node_groups = null
}
module "eks3" {
  source                  = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = merge(local.base, { a = {} })
  self_managed_node_groups = {}
}
module "old" {
  source        = "terraform-aws-modules/eks/aws"
  version       = "17.24.0"
  worker_groups = [for w in var.workers : { name = w.name }]
  worker_groups_launch_template = [{ name = "lt", asg_max_size = 2 }, local.more]
}
module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  node_pools = var.node_pools
}
module "gke2" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  node_pools = [{ name = "p" }, local.extra_pool]
}"#,
    );
    let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "eks_managed_node_groups[*]",
            "self_managed_node_groups[*]",
            "eks_managed_node_groups.fixed",
            "eks_managed_node_groups.gpu",
            "eks_managed_node_groups[*]",
            // `merge(local.base, { a = {} })`: `a` is known, other groups may come from
            // `local.base`.
            "eks_managed_node_groups[*]",
            "eks_managed_node_groups.a",
            "worker_groups[*]",
            "worker_groups_launch_template.lt",
            "worker_groups_launch_template.1",
            "node_pools[*]",
            "node_pools.p",
            "node_pools[*]",
        ]
    );
    // (`node_pools.p`'s size is the GKE module's, tested with `modules`.)
    let sizes: Vec<Option<u32>> = d
        .iter()
        .filter(|d| d.name != "node_pools.p")
        .map(|d| d.max_nodes)
        .collect();
    assert_eq!(
        sizes,
        [
            None,
            None,
            Some(2),
            None,
            None,
            None,
            Some(3),
            None,
            Some(2),
            None,
            None,
            None
        ]
    );
    // The `for` template: its literal label is read, the taint whose value is the loop's key
    // is unknown (by key), the instance type unknown.
    let template = &d[0];
    assert_eq!(label(template, "team"), Some(LabelValues::one("ml")));
    assert!(!template.any_label);
    assert!(template.taints.is_empty());
    assert!(template.unknown_taints.may_have("dedicated"));
    assert!(!template.unknown_taints.may_have("other"));
    // A group, or a map of groups, that needs evaluation: anything.
    for i in [1, 3, 5, 7, 9, 10, 12] {
        assert!(d[i].any_label, "{}", d[i].name);
        assert_eq!(d[i].unknown_taints, UnknownTaints::Any, "{}", d[i].name);
        assert!(d[i].taints.is_empty(), "{}", d[i].name);
    }
    // A literal group under a key that needs evaluation: read, its size unknown.
    assert_eq!(label(&d[4], "extra"), Some(LabelValues::one("yes")));
    assert!(!d[4].any_label);
    assert!(!d[2].any_label && d[2].unknown_taints == UnknownTaints::None);
}

/// A module with `for_each` (or a `count` that needs evaluation) is read once: its groups are
/// there, each of unknown size (any number of copies); what comes from `each` is unknown.
#[test]
fn eks_module_with_for_each_or_count() {
    let d = decls(
        r#"module "eks" {
  source   = "terraform-aws-modules/eks/aws"
  for_each = var.clusters
  eks_managed_node_groups = {
    gpu = {
      max_size = 2
      labels   = each.value.labels
      taints   = [{ key = "gpu", value = "true", effect = "NO_SCHEDULE" }]
    }
  }
  self_managed_node_groups = each.value.self_managed
}
module "maybe" {
  source = "terraform-aws-modules/eks/aws"
  count  = var.enabled ? 1 : 0
  eks_managed_node_groups = { web = { max_size = 3 } }
}
module "twice" {
  source = "terraform-aws-modules/eks/aws"
  count  = 2
  eks_managed_node_groups = { web = { max_size = 3 } }
}
module "none" {
  source = "terraform-aws-modules/eks/aws"
  count  = 0
  eks_managed_node_groups = { web = { max_size = 3 } }
}"#,
    );
    let got: Vec<(&str, Option<u32>)> = d.iter().map(|d| (d.name.as_str(), d.max_nodes)).collect();
    assert_eq!(
        got,
        [
            ("eks_managed_node_groups.gpu", None),
            ("self_managed_node_groups[*]", None),
            ("eks_managed_node_groups.web", None),
            ("eks_managed_node_groups.web", Some(6)),
        ]
    );
    assert_eq!(taints(&d[0]), ["gpu=true:NoSchedule"]);
    assert!(d[0].any_label);
    assert!(d[1].any_label && d[1].unknown_taints == UnknownTaints::Any);
}

/// A module directory of several files (and variable files), evaluated as a root, with local
/// modules from `modules` (by path).
fn dir_decls(
    files: &[(&str, &str)],
    tfvars: &[(&str, &str)],
    modules: &[(&str, &[(&str, &str)])],
) -> Vec<NodeDecl> {
    dir_outcome(files, tfvars, modules).decls
}

/// [`dir_decls`], with the directories read and the evaluation's errors.
fn dir_outcome(
    files: &[(&str, &str)],
    tfvars: &[(&str, &str)],
    modules: &[(&str, &[(&str, &str)])],
) -> RootOutcome {
    fn dir(path: &str, files: &[(&str, &str)]) -> Dir {
        Dir {
            path: path.to_string(),
            files: files
                .iter()
                .map(|(name, text)| {
                    let source = SourceFile::new(
                        Arc::from(format!("{path}/{name}").as_str()),
                        text.to_string(),
                    );
                    DirFile::parse(source).expect("parses")
                })
                .collect(),
            tfvars: Vec::new(),
        }
    }
    struct Mods(Vec<(String, Arc<Dir>)>);
    impl Loader for Mods {
        fn module(&mut self, from: &Dir, source: &str) -> Result<Arc<Dir>, String> {
            let mut parts: Vec<&str> = from.path.split('/').collect();
            for p in source.split('/') {
                match p {
                    "." | "" => {}
                    ".." => {
                        parts.pop();
                    }
                    p => parts.push(p),
                }
            }
            let path = parts.join("/");
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, d)| Arc::clone(d))
                .ok_or_else(|| format!("no module at {path}"))
        }
    }
    let mut root = dir("root", files);
    root.tfvars = tfvars
        .iter()
        .map(|(name, text)| {
            SourceFile::new(Arc::from(format!("root/{name}").as_str()), text.to_string())
        })
        .collect();
    let mut mods = Mods(
        modules
            .iter()
            .map(|(path, files)| (path.to_string(), Arc::new(dir(path, files))))
            .collect(),
    );
    evaluate_root(Arc::new(root), &mut mods)
}

fn names(d: &[NodeDecl]) -> Vec<&str> {
    d.iter().map(|d| d.name.as_str()).collect()
}

fn by_name<'a>(d: &'a [NodeDecl], name: &str) -> &'a NodeDecl {
    d.iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no pool {name} in {:?}", names(d)))
}

/// The data-on-eks pattern across files: default groups in `locals`, merged with a variable
/// whose default is `{}`, a conditional group, a `for` over a map from `*.auto.tfvars.json`,
/// a label from `terraform.tfvars` and a taint value from a variable default.
#[test]
fn values_across_the_files_of_a_directory() {
    let d = dir_decls(
        &[
            (
                "variables.tf",
                r#"variable "managed_node_groups" {
  type    = any
  default = {}
}
variable "gpu" {
  default = false
}
variable "taint_value" {
  default = "batch"
}
variable "team" {}
variable "spot" {
  type = map(object({ size = string, labels = optional(map(string), {}) }))
  default = {}
}"#,
            ),
            (
                "main.tf",
                r#"locals {
  defaults = {
    core = {
      labels = { NodeGroupType = "core", team = var.team }
    }
    batch = {
      labels = { NodeGroupType = lower("BATCH") }
      taints = { dedicated = { key = "dedicated", value = var.taint_value, effect = "NO_SCHEDULE" } }
    }
  }
  gpu = var.gpu ? { gpu = { labels = { NodeGroupType = "gpu" } } } : {}
  spot = { for k, v in var.spot : "spot-${k}" => {
    instance_types = [v.size]
    labels         = merge(v.labels, { NodeGroupType = "spot" })
  } }
}
module "eks" {
  source                  = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = merge(local.defaults, local.gpu, local.spot, var.managed_node_groups)
}"#,
            ),
        ],
        &[
            ("terraform.tfvars", "team = \"data\"\n"),
            (
                "spot.auto.tfvars.json",
                r#"{"spot": {"crawl": {"size": "m6a.large", "labels": {"tier": "crawl"}}}}"#,
            ),
        ],
        &[],
    );
    assert_eq!(
        names(&d),
        [
            "eks_managed_node_groups.core",
            "eks_managed_node_groups.batch",
            "eks_managed_node_groups.spot-crawl",
        ]
    );
    let core = by_name(&d, "eks_managed_node_groups.core");
    assert_eq!(label(core, "NodeGroupType"), Some(LabelValues::one("core")));
    assert_eq!(label(core, "team"), Some(LabelValues::one("data")));
    assert!(!core.any_label && core.unknown_taints == UnknownTaints::None);
    let batch = by_name(&d, "eks_managed_node_groups.batch");
    assert_eq!(
        label(batch, "NodeGroupType"),
        Some(LabelValues::one("batch"))
    );
    assert_eq!(taints(batch), ["dedicated=batch:NoSchedule"]);
    let spot = by_name(&d, "eks_managed_node_groups.spot-crawl");
    assert_eq!(label(spot, "tier"), Some(LabelValues::one("crawl")));
    assert_eq!(label(spot, "NodeGroupType"), Some(LabelValues::one("spot")));
    assert_eq!(
        label(spot, "node.kubernetes.io/instance-type"),
        Some(LabelValues::one("m6a.large"))
    );
    // Each pool says where it comes from, and located where its group is written.
    let tf = core.terraform.as_ref().expect("provenance");
    assert_eq!(&*tf.root, "root");
    assert!(tf.modules.is_empty() && tf.unknown.is_empty());
    let Place::Here(loc) = &core.loc else {
        panic!()
    };
    assert_eq!(&*loc.source.name, "root/main.tf");
}

/// An unknown piece stays local: one unknown label value, one unknown map merged before known
/// labels, an unknown list of taints beside known ones.
#[test]
fn unknown_parts_stay_local() {
    let d = decls(
        r#"variable "extra" {}
variable "team" {}
variable "more_taints" {}
resource "aws_eks_node_group" "a" {
  node_group_name = "a"
  labels = merge(var.extra, { role = "gpu", team = var.team })
  dynamic "taint" {
    for_each = concat([{ key = "gpu", value = "true", effect = "NO_SCHEDULE" }], var.more_taints)
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }
}
resource "aws_eks_node_group" "b" {
  node_group_name = "b"
  labels = merge({ role = "web" }, var.extra)
}"#,
    );
    let a = &d[0];
    // The known label is known, the unknown one is "any value", others may exist.
    assert_eq!(label(a, "role"), Some(LabelValues::one("gpu")));
    assert_eq!(label(a, "team"), Some(LabelValues::Any));
    assert!(a.any_label);
    // The known taint is read; the unknown ones may be anything.
    assert_eq!(taints(a), ["gpu=true:NoSchedule"]);
    assert_eq!(a.unknown_taints, UnknownTaints::Any);
    let tf = a.terraform.as_ref().expect("provenance");
    let what: Vec<&str> = tf.unknown.iter().map(|u| &*u.what).collect();
    assert!(
        what.contains(&"labels") && what.contains(&"labels.team"),
        "{what:?}"
    );
    assert!(tf.unknown.iter().all(|u| matches!(
        &u.cause,
        crate::analysis::types::terraform::Cause::Variable(_)
    )));
    // A map merged after the known labels adds others; the known ones keep their values
    // (unknown is local, issue 38).
    let b = &d[1];
    assert_eq!(label(b, "role"), Some(LabelValues::one("web")));
    assert!(b.any_label);
}

/// Modules with a local `source`: read with each call's arguments (one instance per
/// `for_each` key), their pools named by module address and located at the module's lines; a
/// module calling itself is read once; a module the loader refuses declares nothing.
#[test]
fn local_modules_with_their_inputs() {
    let d = dir_decls(
        &[(
            "main.tf",
            r#"module "np" {
  source   = "./modules/np"
  for_each = { gpu = "g5.xlarge", web = "m6i.large" }
  name     = each.key
  instance = each.value
}
module "self" {
  source = "./modules/loop"
}
module "outside" {
  source = "../../elsewhere"
}"#,
        )],
        &[],
        &[
            (
                "root/modules/np",
                &[(
                    "main.tf",
                    r#"variable "name" {}
variable "instance" {}
variable "max" {
  default = 3
}
resource "aws_eks_node_group" "this" {
  node_group_name = var.name
  instance_types  = [var.instance]
  labels          = { workload = var.name }
  scaling_config {
    max_size = var.max
  }
}"#,
                )],
            ),
            (
                "root/modules/loop",
                &[(
                    "main.tf",
                    r#"module "again" {
  source = "../loop"
}
resource "aws_eks_node_group" "x" {
  node_group_name = "x"
}"#,
                )],
            ),
        ],
    );
    assert_eq!(
        names(&d),
        [
            // In the order of their files.
            "module.self.aws_eks_node_group.x",
            r#"module.np["gpu"].aws_eks_node_group.this"#,
            r#"module.np["web"].aws_eks_node_group.this"#,
        ]
    );
    let gpu = &d[1];
    assert_eq!(label(gpu, "workload"), Some(LabelValues::one("gpu")));
    assert_eq!(
        label(gpu, "node.kubernetes.io/instance-type"),
        Some(LabelValues::one("g5.xlarge"))
    );
    assert_eq!(gpu.max_nodes, Some(3));
    let Place::Here(loc) = &gpu.loc else { panic!() };
    assert_eq!(&*loc.source.name, "root/modules/np/main.tf");
    let tf = gpu.terraform.as_ref().expect("provenance");
    assert_eq!(tf.module_path(), r#"module.np["gpu"]"#);
    assert_eq!(&*tf.modules[0].source, "./modules/np");
}

/// GKE: inline `node_pool` blocks mean no default pool; Workload Identity on the cluster gives
/// its pools (and a separate node pool in it) the metadata-server label unless they set
/// `GCE_METADATA`; a pool whose cluster is not in the files may or may not have it.
#[test]
fn gke_inline_pools_and_workload_identity() {
    let d = decls(
        r#"resource "google_container_cluster" "c" {
  workload_identity_config {
    workload_pool = "p.svc.id.goog"
  }
  node_pool {
    name = "a"
  }
  node_pool {
    name = "b"
    node_config {
      workload_metadata_config {
        mode = "GCE_METADATA"
      }
    }
  }
}
resource "google_container_node_pool" "sep" {
  name    = "sep"
  cluster = google_container_cluster.c.id
}
resource "google_container_node_pool" "elsewhere" {
  name    = "elsewhere"
  cluster = var.cluster
}
resource "google_container_cluster" "plain" {
  node_config {
    workload_metadata_config {
      mode = "GKE_METADATA"
    }
  }
}"#,
    );
    assert_eq!(
        names(&d),
        [
            "google_container_cluster.c.a",
            "google_container_cluster.c.b",
            "google_container_node_pool.sep",
            "google_container_node_pool.elsewhere",
            "google_container_cluster.plain.default-pool",
        ]
    );
    let wi = "iam.gke.io/gke-metadata-server-enabled";
    assert_eq!(label(&d[0], wi), Some(LabelValues::one("true")));
    assert_eq!(label(&d[1], wi), None);
    assert_eq!(label(&d[2], wi), Some(LabelValues::one("true")));
    assert_eq!(label(&d[3], wi), Some(LabelValues::Any));
    assert_eq!(label(&d[4], wi), Some(LabelValues::one("true")));
}

/// A key repeated in an object keeps the last value (the file is read); a `for` expression's
/// repeated key is Terraform's error: its value is not known.
#[test]
fn repeated_keys() {
    let d = decls(
        r#"resource "aws_eks_node_group" "a" {
  node_group_name = "a"
  labels = {
    tier = "one"
    zone = "a"
    tier = "two"
  }
}
resource "aws_eks_node_group" "b" {
  node_group_name = "b"
  labels = { for k in ["x", "x"] : "k" => k }
}"#,
    );
    assert_eq!(label(&d[0], "tier"), Some(LabelValues::one("two")));
    assert_eq!(label(&d[0], "zone"), Some(LabelValues::one("a")));
    assert!(d[1].any_label);
    let tf = d[1].terraform.as_ref().expect("provenance");
    assert!(matches!(
        tf.unknown[0].cause,
        crate::analysis::types::terraform::Cause::Invalid(_)
    ));
}

/// The functions node-pool code uses.
#[test]
fn functions() {
    let d = decls(
        r#"locals {
  m    = { a = "1", b = "2" }
  l    = ["x", "y", "x"]
}
resource "aws_eks_node_group" "f" {
  node_group_name = format("%s-%d", "np", 3)
  labels = {
    lookup    = lookup(local.m, "a", "none")
    lookupd   = lookup(local.m, "z", "none")
    try       = try(local.m.z, "fallback")
    can       = can(local.m.z) ? "yes" : "no"
    coalesce  = coalesce("", null, "c")
    keys      = join(",", keys(local.m))
    values    = join(",", values(local.m))
    distinct  = join(",", distinct(local.l))
    toset     = length(toset(local.l))
    flatten   = length(flatten([["a"], ["b", ["c"]]]))
    contains  = contains(local.l, "y")
    split     = element(split("-", "p-q-r"), 1)
    replace   = replace("a.b.c", ".", "_")
    upper     = upper("up")
    zipmap    = zipmap(["k"], ["v"]).k
    json      = jsonencode({ a = 1 })
    concat    = length(concat(local.l, ["z"]))
    regex     = replace("abc", "/b/", "x")
    cond      = length(local.l) > 2 ? "many" : "few"
    tmpl      = "%{ for x in distinct(local.l) }${x}%{ endfor }"
  }
}"#,
    );
    let f = &d[0];
    let want = [
        ("lookup", "1"),
        ("lookupd", "none"),
        ("try", "fallback"),
        ("can", "no"),
        ("coalesce", "c"),
        ("keys", "a,b"),
        ("values", "1,2"),
        ("distinct", "x,y"),
        ("toset", "2"),
        ("flatten", "3"),
        ("contains", "true"),
        ("split", "q"),
        ("replace", "a_b_c"),
        ("upper", "UP"),
        ("zipmap", "v"),
        ("json", "{\"a\":1}"),
        ("concat", "4"),
        ("cond", "many"),
        ("tmpl", "xy"),
        ("eks.amazonaws.com/nodegroup", "np-3"),
    ];
    for (k, v) in want {
        assert_eq!(label(f, k), Some(LabelValues::one(v)), "{k}");
    }
    // A regular expression is not evaluated.
    assert_eq!(label(f, "regex"), Some(LabelValues::Any));
}

/// Hostile input (issue 36, row 5): a literal `for_each` map of 200,000 entries. hcl-edit's
/// parse of one object costs the square of its keys; past `MAX_OBJECT_KEYS` the file is refused
/// after a linear scan (a clear error, its pools not read); up to it, every key is a pool.
#[test]
fn a_large_literal_for_each_map() {
    let map = |n: usize| {
        let mut text = String::from("resource \"aws_eks_node_group\" \"g\" {\n  for_each = {\n");
        for i in 0..n {
            text.push_str(&format!("    k{i} = {{ t = \"v{i}\" }}\n"));
        }
        text.push_str("  }\n  node_group_name = each.key\n  labels = { t = each.value.t }\n}\n");
        text
    };
    let source = SourceFile::new(Arc::from("big.tf"), map(200_000));
    let e = terraform_decls(&source).expect_err("refused");
    assert!(
        e.limit && e.message.contains("200000 keys"),
        "{}",
        e.message
    );
    assert_eq!(&source.text[e.at..e.at + 1], "{");
    let n = scan::MAX_OBJECT_KEYS;
    let d = decls(&map(n));
    assert_eq!(d.len(), n);
    let last = format!("aws_eks_node_group.g[\"k{}\"]", n - 1);
    let last = d.iter().find(|d| d.name == last).expect("last key");
    assert_eq!(
        label(last, "t"),
        Some(LabelValues::one(&format!("v{}", n - 1)))
    );
}

/// Evaluation is bounded: a chain of locals doubling a string stops at the string limit, a
/// chain of locals referring to each other in a cycle is unknown, never a hang or a crash.
#[test]
fn evaluation_is_bounded() {
    let mut text = String::from("locals {\n  s0 = \"xxxxxxxxxxxxxxxx\"\n");
    for i in 1..80 {
        text.push_str(&format!(
            "  s{i} = \"${{local.s{}}}${{local.s{}}}\"\n",
            i - 1,
            i - 1
        ));
    }
    text.push_str("  c1 = local.c2\n  c2 = local.c1\n}\n");
    text.push_str("resource \"aws_eks_node_group\" \"g\" {\n  node_group_name = local.s79\n  labels = { c = local.c1 }\n}\n");
    let d = decls(&text);
    assert_eq!(
        label(&d[0], "eks.amazonaws.com/nodegroup"),
        Some(LabelValues::Any)
    );
    // Unknown: the label, or (the meter spent on the doubled strings) the whole map.
    assert!(
        matches!(label(&d[0], "c"), None | Some(LabelValues::Any)),
        "{:?}",
        label(&d[0], "c")
    );
}

/// The line (1-based) of a place in its file.
fn line_of(d: &NodeDecl) -> (String, usize) {
    let Place::Here(loc) = &d.loc else {
        panic!("not here")
    };
    let line = loc.source.text[..loc.span.start].matches('\n').count() + 1;
    (loc.source.name.to_string(), line)
}

/// A `for` expression that produces a key twice without `...` is Terraform's error ("Duplicate
/// object key", hashicorp/hcl `ForExpr.Value`): reported once at the expression (however often
/// it is evaluated), its value unknown, the rest of the file read; with `...` the values are
/// grouped by key; inside `try` the error is caught.
#[test]
fn for_expressions_with_repeated_keys() {
    let main = r#"locals {
  nodes   = [{ name = "a", zone = "x" }, { name = "b", zone = "x" }, { name = "c", zone = "y" }]
  by_zone = { for n in local.nodes : n.zone => n.name }
  grouped = { for n in local.nodes : n.zone => n.name... }
  caught  = try({ for n in local.nodes : n.zone => n.name }, { fallback = "yes" })
}
resource "aws_eks_node_group" "dup" {
  node_group_name = "dup"
  labels          = local.by_zone
  tags            = local.by_zone
}
resource "aws_eks_node_group" "grouped" {
  node_group_name = "grouped"
  labels = {
    zones = join(",", keys(local.grouped))
    x     = join("+", local.grouped["x"])
    y     = length(local.grouped["y"])
  }
}
resource "aws_eks_node_group" "caught" {
  node_group_name = "caught"
  labels          = local.caught
}
resource "aws_eks_node_group" "after" {
  node_group_name = "after"
  labels          = { ok = "yes" }
}
"#;
    let out = dir_outcome(&[("main.tf", main)], &[], &[]);
    let d = &out.decls;
    assert_eq!(
        names(d),
        [
            "aws_eks_node_group.dup",
            "aws_eks_node_group.grouped",
            "aws_eks_node_group.caught",
            "aws_eks_node_group.after"
        ]
    );
    assert!(d[0].any_label);
    let tf = d[0].terraform.as_ref().expect("provenance");
    assert!(
        tf.unknown.iter().any(|u| matches!(
            &u.cause,
            crate::analysis::types::terraform::Cause::Invalid(m) if m.contains("duplicate object key `x`")
        )),
        "{:?}",
        tf.unknown
    );
    assert_eq!(label(&d[1], "zones"), Some(LabelValues::one("x,y")));
    assert_eq!(label(&d[1], "x"), Some(LabelValues::one("a+b")));
    assert_eq!(label(&d[1], "y"), Some(LabelValues::one("1")));
    assert_eq!(label(&d[2], "fallback"), Some(LabelValues::one("yes")));
    assert_eq!(label(&d[3], "ok"), Some(LabelValues::one("yes")));
    // Once, at the `for` of `by_zone` (not the one `try` catches), its key expression named.
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    let p = &out.problems[0];
    let EvalProblemKind::DuplicateKey { key, key_at } = &p.kind else {
        panic!("{p:?}");
    };
    assert_eq!(key, "x");
    assert_eq!(&main[p.at.start..p.at.end], "for n in local.nodes :");
    assert_eq!(main[..p.at.start].lines().count(), 3);
    let k = key_at.expect("key");
    assert_eq!(&main[k.start..k.end], "n.zone");
}

/// `*.tf.json` (Terraform's JSON syntax): blocks by labels, strings as templates where
/// Terraform reads expressions (keys too), a variable's default as a literal, a `type` in a
/// string, nested blocks, `dynamic` blocks, `"//"` comments; pools at their JSON lines.
#[test]
fn json_files_are_read_as_terraform_reads_them() {
    let json = r#"{
  "//": "generated",
  "variable": {
    "team": { "default": "ml" },
    "extra": { "type": "map(string)", "default": { "tier": "${gold}" } },
    "spot": { "default": true }
  },
  "locals": [
    { "pools": { "gpu": { "instance": "g5.xlarge" }, "cpu": { "instance": "m6i.large" } } },
    { "key_name": "${\"dedi\"}cated" }
  ],
  "resource": {
    "aws_eks_node_group": {
      "np": {
        "for_each": "${local.pools}",
        "node_group_name": "${each.key}-${var.team}",
        "instance_types": ["${each.value.instance}"],
        "capacity_type": "${var.spot ? \"SPOT\" : \"ON_DEMAND\"}",
        "labels": "${merge(var.extra, { team = var.team })}",
        "taint": [{ "key": "${local.key_name}", "value": "${each.key}", "effect": "NO_SCHEDULE" }],
        "scaling_config": { "max_size": 3 },
        "lifecycle": { "ignore_changes": ["scaling_config"] }
      }
    },
    "google_container_node_pool": {
      "g": {
        "name": "g",
        "node_config": {
          "labels": { "${var.team}-role": "batch", "cost": "$${not-a-template}" },
          "dynamic": {
            "taint": {
              "for_each": "${[\"a\", \"b\"]}",
              "iterator": "t",
              "content": { "key": "${t.value}", "value": "x", "effect": "NO_EXECUTE" }
            }
          }
        }
      }
    },
    "aws_iam_role": { "r": { "name": "${unknown_function()}" } }
  }
}
"#;
    let d = dir_decls(&[("main.tf.json", json)], &[], &[]);
    assert_eq!(
        names(&d),
        [
            r#"aws_eks_node_group.np["cpu"]"#,
            r#"aws_eks_node_group.np["gpu"]"#,
            "google_container_node_pool.g"
        ]
    );
    let gpu = &d[1];
    assert_eq!(
        label(gpu, "eks.amazonaws.com/nodegroup"),
        Some(LabelValues::one("gpu-ml"))
    );
    assert_eq!(
        label(gpu, "node.kubernetes.io/instance-type"),
        Some(LabelValues::one("g5.xlarge"))
    );
    assert_eq!(
        label(gpu, "eks.amazonaws.com/capacityType"),
        Some(LabelValues::one("SPOT"))
    );
    // A default is a literal: `${gold}` is not a reference.
    assert_eq!(label(gpu, "tier"), Some(LabelValues::one("${gold}")));
    assert_eq!(label(gpu, "team"), Some(LabelValues::one("ml")));
    assert!(!gpu.any_label);
    assert_eq!(taints(gpu), ["dedicated=gpu:NoSchedule"]);
    assert_eq!(gpu.max_nodes, Some(3));
    assert_eq!(line_of(gpu), ("root/main.tf.json".to_string(), 14));
    let taint_line = {
        let Some(Place::Here(loc)) = gpu.taints[0].loc.as_ref() else {
            panic!("taint place")
        };
        json[..loc.span.start].matches('\n').count() + 1
    };
    assert_eq!(taint_line, 20);
    let g = &d[2];
    assert_eq!(label(g, "ml-role"), Some(LabelValues::one("batch")));
    assert_eq!(
        label(g, "cost"),
        Some(LabelValues::one("${not-a-template}"))
    );
    assert_eq!(taints(g), ["a=x:NoExecute", "b=x:NoExecute"]);
}

/// Override files (`override.tf`, `*_override.tf`, their `.tf.json` forms) merged as
/// Terraform merges them: an argument replaces the base's, a nested block type replaces all
/// the base's blocks of that type, `count` too; a variable's default and a local are
/// replaced; an override with no base block is not read.
#[test]
fn override_files_are_merged() {
    let main = r#"variable "size" {
  default = 2
}
locals {
  role = "base"
}
resource "aws_eks_node_group" "a" {
  node_group_name = "a"
  instance_types  = ["m5.large"]
  labels          = { role = local.role, kept = "yes" }
  taint {
    key    = "base"
    value  = "1"
    effect = "NO_SCHEDULE"
  }
  dynamic "taint" {
    for_each = ["base2"]
    content {
      key    = taint.value
      effect = "NO_SCHEDULE"
    }
  }
  scaling_config {
    max_size = var.size
  }
}
resource "aws_eks_node_group" "b" {
  node_group_name = "b"
  count           = 1
}
"#;
    let over = r#"variable "size" {
  default = 5
}
locals {
  role  = "overridden"
  fresh = "never declared in a primary file"
}
resource "aws_eks_node_group" "a" {
  taint {
    key    = "over"
    value  = "1"
    effect = "NO_EXECUTE"
  }
}
resource "aws_eks_node_group" "b" {
  count = 0
}
resource "aws_eks_node_group" "orphan" {
  node_group_name = "orphan"
}
"#;
    let json_over =
        r#"{"resource": {"aws_eks_node_group": {"a": {"instance_types": ["g5.xlarge"]}}}}"#;
    let d = dir_decls(
        &[
            ("a_override.tf.json", json_over),
            ("main.tf", main),
            ("override.tf", over),
        ],
        &[],
        &[],
    );
    assert_eq!(names(&d), ["aws_eks_node_group.a"]);
    let a = &d[0];
    assert_eq!(label(a, "role"), Some(LabelValues::one("overridden")));
    assert_eq!(label(a, "kept"), Some(LabelValues::one("yes")));
    assert_eq!(taints(a), ["over=1:NoExecute"]);
    assert_eq!(a.max_nodes, Some(5));
    assert_eq!(
        label(a, "node.kubernetes.io/instance-type"),
        Some(LabelValues::one("g5.xlarge"))
    );
    // Where the base block is.
    assert_eq!(line_of(a), ("root/main.tf".to_string(), 7));
    assert!(is_override("x/override.tf") && is_override("a_override.tf.json"));
    assert!(!is_override("overrides.tf") && !is_override("main.tf"));
}

/// `module.NAME.OUTPUT` of a local module: its `output` blocks evaluated with the call's
/// arguments, by key for a `for_each`, by index for a `count`; a registry module's outputs,
/// and a module that calls itself, are unknown; an error in a module called five times is
/// reported once.
#[test]
fn local_module_outputs() {
    let main = r#"module "labels" {
  source = "./modules/labels"
  team   = "data"
}
module "per" {
  source   = "./modules/labels"
  for_each = toset(["a", "b"])
  team     = each.key
}
module "counted" {
  source = "./modules/labels"
  count  = 2
  team   = "c${count.index}"
}
module "self" {
  source = "./modules/self"
}
module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
}
resource "aws_eks_node_group" "x" {
  node_group_name = "x"
  labels = merge(module.labels.labels, {
    per     = module.per["b"].labels.team
    counted = module.counted[1].labels.team
    n       = length(module.counted)
    vpc     = module.vpc.vpc_id
    loop    = module.self.value
  })
  taint {
    key    = module.labels.taint_key
    value  = "1"
    effect = "NO_SCHEDULE"
  }
}
"#;
    let labels = r#"variable "team" {}
locals {
  common = { team = var.team, managed = "terraform" }
  dup    = { for k in ["a", "a"] : k => k }
}
output "labels" {
  value = local.common
}
output "taint_key" {
  value = "dedicated-${var.team}"
}
output "dup" {
  value = local.dup
}
"#;
    let selfmod = r#"module "again" {
  source = "../self"
}
output "value" {
  value = module.again.value
}
"#;
    let out = dir_outcome(
        &[("main.tf", main)],
        &[],
        &[
            ("root/modules/labels", &[("main.tf", labels)]),
            ("root/modules/self", &[("main.tf", selfmod)]),
        ],
    );
    let x = by_name(&out.decls, "aws_eks_node_group.x");
    assert_eq!(label(x, "team"), Some(LabelValues::one("data")));
    assert_eq!(label(x, "managed"), Some(LabelValues::one("terraform")));
    assert_eq!(label(x, "per"), Some(LabelValues::one("b")));
    assert_eq!(label(x, "counted"), Some(LabelValues::one("c1")));
    assert_eq!(label(x, "n"), Some(LabelValues::one("2")));
    assert_eq!(label(x, "vpc"), Some(LabelValues::Any));
    assert_eq!(label(x, "loop"), Some(LabelValues::Any));
    assert!(!x.any_label);
    assert_eq!(taints(x), ["dedicated-data=1:NoSchedule"]);
    let Some(Place::Here(t)) = x.taints[0].loc.as_ref() else {
        panic!("taint place")
    };
    assert_eq!(&*t.source.name, "root/main.tf");
    // The module's `for` error, once for its five instances.
    assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
    assert_eq!(&*out.problems[0].source.name, "root/modules/labels/main.tf");
}

/// The local module `source`s a scan of the text finds: `.tf` and `.tf.json` forms, not `==`.
#[test]
fn local_source_hints_scan() {
    let text = "module \"a\" {\n  source = \"./a\"\n}\nmodule \"b\" {\n  source   =   \"../b\"\n}\nx = source == \"./c\"\n{\"module\": {\"d\": {\"source\": \"./d\"}}}\nmodule \"e\" {\n  source = \"terraform-aws-modules/eks/aws\"\n}\n";
    assert_eq!(local_source_hints(text), ["./a", "../b", "./d"]);
}

/// #49: the evaluator's work is charged by what it does, not per step: a short `for_each`
/// over a long collection makes no more pools than the files' size pays for; a function is
/// charged by what it reads and makes (`upper` of a large string, `contains` over a long list);
/// comparisons by the values compared. Where the meter runs out, the evaluation reports the
/// place, and the values after it are unknown.
#[test]
fn the_evaluator_is_charged_by_its_work() {
    let out_of_work = |out: &RootOutcome| {
        out.problems
            .iter()
            .filter(|p| matches!(p.kind, EvalProblemKind::OutOfWork))
            .map(|p| p.at)
            .collect::<Vec<_>>()
    };
    // 200 bytes, a million instances asked: bounded by the meter, the rest one unknown pool.
    let each = r#"resource "aws_eks_node_group" "g" {
  for_each        = { for i in range(1000000) : "k${i}" => i }
  node_group_name = each.key
  labels          = { team = each.key }
}
"#;
    let out = dir_outcome(&[("main.tf", each)], &[], &[]);
    assert!(out.decls.len() < 20_000, "{} pools", out.decls.len());
    let at = out_of_work(&out);
    assert_eq!(at.len(), 1, "{:?}", out.problems);
    assert_eq!(
        each[..at[0].start].lines().count(),
        2,
        "the for_each line: {at:?}"
    );
    // `range` past its million items: refused, and reported like any budget run out.
    let huge = each.replace("range(1000000)", "range(2000000)");
    let out = dir_outcome(&[("main.tf", &huge)], &[], &[]);
    assert_eq!(out_of_work(&out).len(), 1, "{:?}", out.problems);
    // The same over a thousand: every pool, no problem.
    let small = each.replace("1000000", "1000");
    let out = dir_outcome(&[("main.tf", &small)], &[], &[]);
    assert_eq!(out.decls.len(), 1000);
    assert!(out_of_work(&out).is_empty());
    // `upper` of a 1 MiB string, 4,000 times (4 GB made): stopped, reported.
    let big = format!(
        "locals {{\n  big = \"{}\"\n  x = [for i in range(4000) : upper(local.big)]\n}}\n\
         resource \"aws_eks_node_group\" \"g\" {{\n  node_group_name = \"g\"\n  labels = {{ n = length(local.x) }}\n}}\n",
        "a".repeat(1 << 20)
    );
    let out = dir_outcome(&[("main.tf", &big)], &[], &[]);
    assert_eq!(out_of_work(&out).len(), 1);
    assert_eq!(out.decls.len(), 1);
    assert!(
        matches!(label(&out.decls[0], "n"), None | Some(LabelValues::Any)),
        "unknown, not a number"
    );
    // `contains` over 100,000 items, 40,000 times; `==` of two long lists as often.
    for call in ["contains(local.l, \"zz\")", "local.l == local.m"] {
        let text = format!(
            "locals {{\n  l = [for i in range(100000) : tostring(i)]\n  m = [for i in range(100000) : tostring(i)]\n  x = [for i in range(40000) : {call}]\n}}\n\
             resource \"aws_eks_node_group\" \"g\" {{\n  node_group_name = \"g\"\n  labels = {{ n = length(local.x) }}\n}}\n"
        );
        let out = dir_outcome(&[("main.tf", &text)], &[], &[]);
        assert_eq!(out_of_work(&out).len(), 1, "{call}");
    }
}
