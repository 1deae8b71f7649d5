# Pools from `for_each` and `count`, with their sizes from their scaling limits.
resource "google_container_node_pool" "pools" {
  for_each = {
    search = { machine = "n2-highmem-8", max = 3 }
    ml     = { machine = "g2-standard-8", max = 2 }
  }
  name     = each.key
  cluster  = google_container_cluster.main.id
  location = "europe-west1-b"

  autoscaling {
    min_node_count = 0
    max_node_count = each.value.max
  }

  node_config {
    machine_type = each.value.machine
    labels = {
      workload = each.key
    }
    taint {
      key    = "dedicated"
      value  = each.key
      effect = "NO_SCHEDULE"
    }
  }
}

# Two identical node groups (one per subnet): four nodes at most in all.
resource "aws_eks_node_group" "cache" {
  count           = 2
  cluster_name    = aws_eks_cluster.main.name
  node_group_name = "cache-${count.index}"
  subnet_ids      = [var.subnets[count.index]]
  labels = {
    workload = "cache"
  }
  scaling_config {
    desired_size = 2
    max_size     = 2
    min_size     = 1
  }
}

# May not exist at all: read once, of unknown size.
resource "azurerm_kubernetes_cluster_node_pool" "extra" {
  count                 = var.extra ? 1 : 0
  name                  = "extra"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = "Standard_D4s_v5"
  node_count            = 1
  node_labels = {
    workload = "extra"
  }
}
