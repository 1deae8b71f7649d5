# Manifests in an indented heredoc: Terraform strips `<<-` heredocs by their smallest
# indentation, so the first line `---` starts a document.
resource "kubectl_manifest" "web" {
  for_each  = toset(split("\n---\n", local.manifests))
  yaml_body = each.value
}

locals {
  manifests = <<-EOT
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: frontend
    spec:
      selector:
        matchLabels: {app: frontend}
      template:
        metadata:
          labels: {app: frontend}
        spec:
          nodeSelector:
            agentpool: user
          containers:
            - name: web
              image: web:1
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: frontend
    data:
      mode: "prod"
  EOT
}
