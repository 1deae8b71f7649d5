# Another stack of the same repository: this root creates the ML cluster, with a GPU group.
resource "aws_eks_cluster" "ml" {
  name     = "ml"
  role_arn = "arn:aws:iam::123456789012:role/eks"
  vpc_config {
    subnet_ids = ["subnet-1"]
  }
}

resource "aws_eks_node_group" "gpu" {
  cluster_name    = aws_eks_cluster.ml.name
  node_group_name = "gpu"
  node_role_arn   = "arn:aws:iam::123456789012:role/node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["g5.xlarge"]
  labels = {
    NodeGroupType = "gpu"
  }
  taint {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NO_SCHEDULE"
  }
  scaling_config {
    desired_size = 1
    max_size     = 2
    min_size     = 0
  }
}

resource "aws_eks_node_group" "system" {
  cluster_name    = aws_eks_cluster.ml.name
  node_group_name = "system"
  node_role_arn   = "arn:aws:iam::123456789012:role/node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["m6i.large"]
  labels = {
    NodeGroupType = "system"
  }
  scaling_config {
    desired_size = 1
    max_size     = 2
    min_size     = 1
  }
}
