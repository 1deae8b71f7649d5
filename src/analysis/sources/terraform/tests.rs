use super::*;
use crate::analysis::inventory::LabelValues;

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
