# A heredoc with a Terraform directive: a template, reported as such (info).
resource "kubectl_manifest" "flavor" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: spot
    spec:
      template:
        spec:
          taints:
    %{ for t in var.taints ~}
            - key: ${t.key}
              effect: NoSchedule
    %{ endfor ~}
  YAML
}
