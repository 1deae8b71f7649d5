# One stack of a samples repository: this root creates the Spark cluster, whose every node
# group sets NodeGroupType.
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "spark"

  eks_managed_node_groups = {
    core = {
      instance_types = ["m6a.xlarge"]
      labels = {
        NodeGroupType = "core"
      }
    }
    executors = {
      instance_types = ["r6g.2xlarge"]
      labels = {
        NodeGroupType = "SparkExecutors"
      }
      taints = {
        spark = {
          key    = "spark-executor"
          value  = "true"
          effect = "NO_SCHEDULE"
        }
      }
    }
  }
}
