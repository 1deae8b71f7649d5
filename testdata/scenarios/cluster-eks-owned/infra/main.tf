# One EKS cluster made by the terraform-aws-modules/eks module: every pool of it (these node
# groups and the Karpenter NodePool deployed with it) sets NodeGroupType.
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "analytics"

  eks_managed_node_groups = {
    core = {
      instance_types = ["m6a.xlarge"]
      labels = {
        NodeGroupType = "core"
      }
    }
    spark = {
      instance_types = ["r6g.2xlarge"]
      labels = {
        NodeGroupType = "SparkMemoryOptimized"
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

# NodePools made by a chart from values taintlint does not read as pools: the labels they
# write (`accelerator`, `gpuType`) may be on nodes, so pods selecting them are not judged.
resource "helm_release" "gpu_nodepools" {
  name  = "karpenter-resources-gpu"
  chart = "./charts/karpenter-resources"
  values = [
    <<-EOT
      nodePool:
        labels:
          - accelerator: nvidia
    EOT
    ,
    file("${path.module}/helm-values/nodepools.yaml")
  ]
}
