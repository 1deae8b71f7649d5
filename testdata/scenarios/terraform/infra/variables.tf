# No manifest here: not linted, no finding.
variable "name" {
  type    = string
  default = "demo"
}

locals {
  user_data = <<-EOT
    #!/bin/bash
    echo "kind: not a manifest"
  EOT
}
