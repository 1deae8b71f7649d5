# The node groups: the known defaults merged with a variable that has no value in the files.
# The defaults keep their labels and taints; `eks_managed_node_groups[*]` stands for the
# groups the variable may add, and absorbs no judgement of a key the shown groups own.
variable "extra_node_groups" {
  type = any
}

locals {
  groups = {
    core = {
      instance_types = ["m6a.xlarge"]
      labels = {
        NodeGroupType = "core"
      }
    }
    spark = {
      instance_types = ["r6g.xlarge"]
      labels = {
        NodeGroupType = "spark"
      }
      taints = {
        spark = {
          key    = "spark"
          value  = "true"
          effect = "NO_SCHEDULE"
        }
      }
    }
  }
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name            = "demo"
  eks_managed_node_groups = merge(local.groups, var.extra_node_groups)
}
