# What the two most used modules add: the GKE module's own node labels, and the EKS module's
# self-managed groups, whose labels and taints are kubelet flags in their user data.
module "gke" {
  source  = "terraform-google-modules/kubernetes-engine/google"
  version = "~> 33.0"

  project_id = var.project_id
  name       = "apps"
  region     = "europe-west1"

  node_pools = [
    {
      name         = "general"
      machine_type = "e2-standard-4"
    },
    {
      name         = "ingest"
      machine_type = "n2-standard-8"
    },
  ]

  node_pools_taints = {
    ingest = [
      {
        key    = "dedicated"
        value  = "ingest"
        effect = "NO_SCHEDULE"
      },
    ]
  }
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "prod"

  self_managed_node_group_defaults = {
    instance_type = "m6i.large"
  }

  self_managed_node_groups = {
    spot = {
      max_size             = 6
      bootstrap_extra_args = "--kubelet-extra-args '--node-labels=lifecycle=spot --register-with-taints=lifecycle=spot:NoExecute'"
    }
  }
}
