# Node groups built from a local module's outputs (`module.conventions.*`).
module "conventions" {
  source = "../../modules/conventions"
  team   = "search"
}

resource "aws_eks_node_group" "search" {
  cluster_name    = "prod"
  node_group_name = "search"
  labels          = module.conventions.labels

  taint {
    key    = module.conventions.taint.key
    value  = module.conventions.taint.value
    effect = module.conventions.taint.effect
  }

  scaling_config {
    min_size     = 1
    max_size     = 4
    desired_size = 2
  }
}
