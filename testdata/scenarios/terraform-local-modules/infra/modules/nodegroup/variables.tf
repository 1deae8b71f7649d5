variable "name" {
  type = string
}

variable "instance" {
  type = string
}

variable "labels" {
  type    = map(string)
  default = {}
}

variable "taints" {
  type = list(object({
    key    = string
    value  = optional(string)
    effect = string
  }))
  default = []
}

variable "max_size" {
  type    = number
  default = 3
}
