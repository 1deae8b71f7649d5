# The team's conventions for node groups, as outputs.
variable "team" {}

variable "zones" {
  default = [
    { name = "a", id = "use1-az1" },
    { name = "a", id = "use1-az2" },
  ]
}

locals {
  labels = {
    team     = var.team
    workload = "${var.team}-workers"
  }
}

output "labels" {
  value = local.labels
}

output "taint" {
  value = { key = "dedicated", value = var.team, effect = "NO_SCHEDULE" }
}

# Two zones named `a`: Terraform refuses this `for` expression ("Duplicate object key").
output "zone_ids" {
  value = { for z in var.zones : z.name => z.id }
}
