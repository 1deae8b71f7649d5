# Merged into main.tf.json's resource as Terraform merges override files: this `taint` block
# replaces every `taint` of the base; the other arguments stay.
resource "aws_eks_node_group" "pool" {
  taint {
    key    = "dedicated"
    value  = each.key
    effect = "NO_EXECUTE"
  }
}
