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
    # Two zones of one name: a `for` expression's repeated key is Terraform's error
    # ("Duplicate object key"), the labels unknown.
    batch = {
      labels = { for z in local.zones : z.name => z.id } # expect: duplicate-key
    }
  }
}

locals {
  zones = [{ name = "a", id = "use1-az1" }, { name = "a", id = "use1-az2" }]
}
