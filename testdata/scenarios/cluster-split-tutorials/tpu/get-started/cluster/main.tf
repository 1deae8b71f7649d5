# One tutorial's cluster, kept in the tutorial's `cluster/` folder beside its `train/` folder.
# Its stack is `tpu/get-started/` (`cluster` names infrastructure); the `dws/` tutorial beside
# it runs on a cluster made elsewhere and is no part of it.
resource "google_container_cluster" "tpu" {
  name                     = "tpu"
  location                 = "us-east5"
  remove_default_node_pool = true
  initial_node_count       = 1
}

resource "google_container_node_pool" "v5e" {
  name    = "tpu-v5e"
  cluster = google_container_cluster.tpu.id

  node_config {
    machine_type = "ct5lp-hightpu-4t"
    labels = {
      accelerator = "tpu-v5e"
    }
    taint {
      key    = "google.com/tpu"
      value  = "present"
      effect = "NO_SCHEDULE"
    }
  }
}

resource "google_container_node_pool" "cpu" {
  name    = "cpu"
  cluster = google_container_cluster.tpu.id

  node_config {
    machine_type = "e2-standard-4"
    labels = {
      accelerator = "none"
    }
  }
}
