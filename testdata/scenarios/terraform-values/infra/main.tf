locals {
  name = "analytics"

  # The data-on-eks pattern: default groups merged with a variable whose default is `{}`.
  default_node_groups = {
    core_node_group = {
      name           = "core-node-group"
      instance_types = ["m6a.xlarge"]
      max_size       = 8
      labels = {
        NodeGroupType = "core"
        WorkerType    = "ON_DEMAND"
      }
    }
    batch = {
      max_size = 4
      labels = {
        NodeGroupType = "batch"
        team          = var.team
        cost-center   = var.cost_center
      }
      taints = [{
        key    = "dedicated"
        value  = var.batch_taint_value
        effect = "NO_SCHEDULE"
      }]
    }
  }

  # A conditional: no GPU group unless enabled.
  gpu_groups = var.gpu_enabled ? {
    gpu = {
      labels = { NodeGroupType = "gpu" }
    }
  } : {}

  # A `for` expression over a map known from a tfvars file.
  spot_groups = {
    for name, p in var.spot_pools : "spot-${name}" => {
      instance_types = [p.instance]
      capacity_type  = "SPOT"
      max_size       = p.max
      labels         = merge(p.labels, { NodeGroupType = "spot" })
    }
  }
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"

  name                    = local.name
  eks_managed_node_groups = merge(local.default_node_groups, local.gpu_groups, local.spot_groups, var.managed_node_groups)
}

# `for_each` over a local map: one node group per key, `each.*` read for each.
locals {
  ingest = {
    kafka = { effect = "NO_EXECUTE", size = 3 }
    flink = { effect = "NO_SCHEDULE", size = 2 }
  }
}

resource "aws_eks_node_group" "ingest" {
  for_each        = local.ingest
  cluster_name    = module.eks.cluster_name
  node_group_name = "ingest-${each.key}"
  labels = {
    workload = upper(each.key)
  }
  taint {
    key    = "ingest"
    value  = each.key
    effect = each.value.effect
  }
  scaling_config {
    desired_size = each.value.size
    max_size     = each.value.size
    min_size     = 1
  }
}
