# Terraform keeps the last value of a key repeated in an object (hashicorp/terraform#28727).
module "eks" {
  source = "terraform-aws-modules/eks/aws"

  eks_managed_node_groups = {
    gpu = {
      min_size = 1 # expect: duplicate-key
      max_size = 4
      labels = { workload = "gpu", workload = "training" } # expect: duplicate-key
      min_size = 2
    }
  }
}
