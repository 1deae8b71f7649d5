# Inline node pools: GKE makes no `default-pool` beside them. Workload Identity on the
# cluster: its pools run the GKE metadata server unless they say otherwise.
resource "google_container_cluster" "inline" {
  name     = "inline"
  location = "europe-west1-b"

  workload_identity_config {
    workload_pool = "my-project.svc.id.goog"
  }

  node_pool {
    name       = "general"
    node_count = 3
    node_config {
      machine_type = "e2-standard-4"
    }
  }

  node_pool {
    name       = "legacy"
    node_count = 1
    node_config {
      machine_type = "e2-standard-2"
      workload_metadata_config {
        mode = "GCE_METADATA"
      }
    }
  }
}

# A separate node pool in a cluster with Workload Identity: it inherits the metadata server.
resource "google_container_cluster" "main" {
  name                     = "main"
  location                 = "europe-west1"
  remove_default_node_pool = true
  initial_node_count       = 1

  workload_identity_config {
    workload_pool = "my-project.svc.id.goog"
  }
}

resource "google_container_node_pool" "batch" {
  name     = "batch"
  cluster  = google_container_cluster.main.id
  location = "europe-west1"
  node_config {
    machine_type = "n2-standard-8"
    labels       = { workload = "batch" }
  }
}

# A cluster without Workload Identity: its default pool runs no metadata server, unless a
# pool asks for it.
resource "google_container_cluster" "plain" {
  name               = "plain"
  location           = "europe-west1-c"
  initial_node_count = 2
  node_config {
    machine_type = "e2-medium"
    labels       = { workload = "plain" }
  }
}
