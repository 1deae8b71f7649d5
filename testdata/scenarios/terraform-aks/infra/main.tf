# AKS: the cluster's system pool (critical add-ons only) and two user pools.
resource "azurerm_kubernetes_cluster" "main" {
  name                = "main"
  location            = var.location
  resource_group_name = var.resource_group
  dns_prefix          = "main"

  default_node_pool {
    name                         = "system"
    vm_size                      = "Standard_D4s_v5"
    node_count                   = 3
    only_critical_addons_enabled = true
  }

  identity {
    type = "SystemAssigned"
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "spot" {
  name                  = "spot"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = "Standard_D8s_v5"
  priority              = "Spot"
  eviction_policy       = "Delete"
  node_labels = {
    workload = "batch"
  }
  node_taints = ["dedicated=batch:NoSchedule"]
}

resource "azurerm_kubernetes_cluster_node_pool" "user" {
  name                  = "user"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = "Standard_D4s_v5"
  node_labels = {
    workload = "web"
  }
}
