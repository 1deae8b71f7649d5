module "again" {
  source = "../loop"
}

resource "aws_eks_node_group" "looped" {
  cluster_name    = "prod"
  node_group_name = "looped"
  labels          = { workload = "loop" }
}
