# Terraform accepts a key repeated in an object and keeps the last value
# (hashicorp/terraform#28727): the file is read, the last value wins, and the repeat is
# reported.
module "eks" {
  source = "terraform-aws-modules/eks/aws"

  eks_managed_node_groups = {
    search = {
      min_size = 1
      max_size = 2
      labels = {
        workload = "serach"
      }
      min_size = 2
      labels = {
        workload = "search"
      }
    }
  }
}
