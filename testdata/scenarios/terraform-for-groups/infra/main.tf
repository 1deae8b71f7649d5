# The EKS module's node groups built from a variable with a `for` expression: groups whose
# number, names, labels and taints only Terraform knows. They exist: a pod selecting a label
# none of the readable pools has may run on them.
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  eks_managed_node_groups = {
    for name, group in var.node_groups : name => {
      instance_types = group.instance_types
      labels         = group.labels
      taints         = group.taints
      max_size       = group.max_size
    }
  }
}

# A group Terraform writes literally: still judged.
resource "aws_eks_node_group" "web" {
  cluster_name    = "prod"
  node_group_name = "web"
  node_role_arn   = "arn:aws:iam::111122223333:role/node"
  subnet_ids      = ["subnet-1"]
  labels          = { tier = "web" }
  taint {
    key    = "tier"
    value  = "web"
    effect = "NO_EXECUTE"
  }
  scaling_config {
    desired_size = 2
    max_size     = 2
    min_size     = 1
  }
}
