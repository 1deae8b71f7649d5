# Values Terraform knows only at plan time: each pool is read, nothing is claimed from them.
locals {
  common_labels = { env = var.env }
}

resource "aws_eks_node_group" "dynamic" {
  cluster_name    = var.cluster
  node_group_name = var.name
  capacity_type   = var.capacity_type
  instance_types  = var.instance_types
  labels          = var.labels

  dynamic "taint" {
    for_each = var.taints
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }
}

resource "aws_eks_node_group" "partial" {
  cluster_name    = var.cluster
  node_group_name = "partial"
  labels          = merge(local.common_labels, { workload = "partial" })

  taint {
    key    = "dedicated"
    value  = var.team
    effect = "NO_SCHEDULE"
  }
}

resource "google_container_node_pool" "pools" {
  for_each = var.pools
  name     = each.key
  cluster  = var.cluster

  node_config {
    machine_type = each.value.machine_type
    labels       = each.value.labels
    spot         = each.value.spot
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "pool" {
  name                  = var.pool_name
  kubernetes_cluster_id = var.cluster_id
  vm_size               = var.vm_size
  priority              = var.priority
  node_labels = {
    team = var.team
  }
  node_taints = var.node_taints
}

module "eks" {
  source = "terraform-aws-modules/eks/aws"

  eks_managed_node_groups = {
    for name, group in var.node_groups : name => {
      labels = group.labels
    }
  }
}
