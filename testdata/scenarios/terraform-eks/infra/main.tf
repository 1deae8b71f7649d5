# EKS managed node groups, as resources and through terraform-aws-modules/eks.
resource "aws_eks_node_group" "gpu" {
  cluster_name    = aws_eks_cluster.this.name
  node_group_name = "gpu"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = var.subnet_ids
  instance_types  = ["g5.2xlarge"]
  capacity_type   = "SPOT"

  labels = {
    workload = "gpu"
  }

  taint {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NO_EXECUTE"
  }

  scaling_config {
    desired_size = 1
    max_size     = 4
    min_size     = 0
  }
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "prod"

  eks_managed_node_groups = {
    batch = {
      instance_types = ["m5.xlarge"]
      capacity_type  = "SPOT"
      labels = {
        workload = "batch"
      }
      taints = {
        dedicated = {
          key    = "dedicated"
          value  = "batch"
          effect = "NO_SCHEDULE"
        }
      }
    }
    general = {
      instance_types = ["m5.large", "m5a.large"]
      labels = {
        workload = "general"
      }
    }
  }
}
