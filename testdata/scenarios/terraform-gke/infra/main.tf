# GKE node pools, as resources and through terraform-google-modules/kubernetes-engine.
resource "google_container_cluster" "primary" {
  name                     = "primary"
  location                 = var.region
  remove_default_node_pool = true
  initial_node_count       = 1
}

resource "google_container_node_pool" "gpu" {
  name    = "gpu-pool"
  cluster = google_container_cluster.primary.id

  node_config {
    machine_type = "g2-standard-8"
    spot         = true
    labels = {
      team = "ml"
    }
    guest_accelerator {
      type  = "nvidia-l4"
      count = 1
    }
  }
}

resource "google_container_node_pool" "batch" {
  name    = "batch"
  cluster = google_container_cluster.primary.id

  node_config {
    machine_type = "e2-standard-4"
    labels = {
      workload = "batch"
    }
    taint {
      key    = "dedicated"
      value  = "batch"
      effect = "NO_SCHEDULE"
    }
  }
}

module "gke" {
  source  = "terraform-google-modules/kubernetes-engine/google"
  version = "~> 33.0"

  project_id = var.project_id
  name       = "apps"

  node_pools = [
    {
      name         = "general"
      machine_type = "e2-standard-4"
    },
    {
      name         = "highmem"
      machine_type = "n2-highmem-8"
      preemptible  = true
    },
  ]

  node_pools_labels = {
    all = {
      env = "prod"
    }
    highmem = {
      memory = "high"
    }
  }

  node_pools_taints = {
    all = []
    highmem = [
      {
        key    = "memory"
        value  = "high"
        effect = "NO_EXECUTE"
      },
    ]
  }
}
