resource "aws_eks_node_group" "this" {
  cluster_name    = "prod"
  node_group_name = var.name
  instance_types  = [var.instance]
  labels          = merge(var.labels, { "pool" = var.name })

  dynamic "taint" {
    for_each = var.taints
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }

  scaling_config {
    desired_size = 1
    max_size     = var.max_size
    min_size     = 0
  }
}
