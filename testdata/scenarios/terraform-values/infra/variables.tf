# Values Terraform knows without a cloud: defaults, terraform.tfvars, *.auto.tfvars.
variable "managed_node_groups" {
  description = "More node groups (none by default)"
  type        = any
  default     = {}
}

variable "gpu_enabled" {
  type    = bool
  default = false
}

variable "batch_taint_value" {
  type    = string
  default = "batch"
}

variable "team" {
  type = string
  # Set in terraform.tfvars.
}

variable "spot_pools" {
  type = map(object({
    instance = string
    max      = optional(number, 5)
    labels   = optional(map(string), {})
  }))
  default = {}
}

# Comes from outside the files (the command line, the environment): unknown.
variable "cost_center" {
  type = string
}
