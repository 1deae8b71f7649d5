# A root module calling a local module once per pool, and once more directly.
locals {
  pools = {
    gpu = {
      instance = "g5.xlarge"
      labels   = { workload = "gpu" }
      taints   = [{ key = "nvidia.com/gpu", value = "true", effect = "NO_SCHEDULE" }]
      max      = 4
    }
    web = {
      instance = "m6i.large"
      labels   = { workload = "web" }
      taints   = []
      max      = 10
    }
  }
}

module "pools" {
  source   = "../../modules/nodegroup"
  for_each = local.pools

  name     = each.key
  instance = each.value.instance
  labels   = each.value.labels
  taints   = each.value.taints
  max_size = each.value.max
}

module "system" {
  source   = "../../modules/nodegroup"
  name     = "system"
  instance = "t3.large"
  labels   = { workload = "system" }
  taints   = [{ key = "CriticalAddonsOnly", value = "true", effect = "NO_SCHEDULE" }]
}

# A module that calls itself is read once, not forever.
module "loop" {
  source = "../../modules/loop"
}

# Outside the repository: never read.
module "elsewhere" {
  source = "../../../../../../../../outside"
}
