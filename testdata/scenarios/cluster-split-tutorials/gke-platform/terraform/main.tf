# A second cluster of the repository: its stack is `gke-platform/` (`terraform` and
# `gke-platform` name infrastructure, and the folder above holds the other tutorial).
resource "google_container_cluster" "platform" {
  name                     = "platform"
  location                 = "us-central1"
  remove_default_node_pool = true
  initial_node_count       = 1
}

resource "google_container_node_pool" "general" {
  name    = "general"
  cluster = google_container_cluster.platform.id

  node_config {
    machine_type = "e2-standard-8"
    labels = {
      accelerator = "none"
    }
  }
}
