# Each key once; a block's repeated blocks (`taint { }` twice) are not keys.
resource "aws_eks_node_group" "gpu" {
  node_group_name = "gpu"
  labels = {
    workload = "gpu"
    tier     = "training"
  }
  taint {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NO_SCHEDULE"
  }
  taint {
    key    = "dedicated"
    value  = "gpu"
    effect = "NO_SCHEDULE"
  }
}

# A `for` expression whose keys repeat on purpose groups their values (`...`).
locals {
  zones   = [{ name = "a", id = "use1-az1" }, { name = "a", id = "use1-az2" }]
  by_name = { for z in local.zones : z.name => z.id... }
}

resource "aws_eks_node_group" "zoned" {
  node_group_name = "zoned"
  labels          = { zones = join("-", local.by_name["a"]) }
}
