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
