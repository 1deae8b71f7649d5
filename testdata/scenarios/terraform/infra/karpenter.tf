# Karpenter NodePools applied by Terraform (`kubectl_manifest`): part of the inventory.
module "eks" {
  source       = "terraform-aws-modules/eks/aws"
  cluster_name = var.name
}

resource "kubectl_manifest" "gpu_node_pool" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: gpu
    spec:
      template:
        metadata:
          labels:
            workload: gpu
        spec:
          nodeClassRef:
            group: karpenter.k8s.aws
            kind: EC2NodeClass
            name: ${module.eks.cluster_name}
          taints:
            - key: nvidia.com/gpu
              value: "true"
              effect: NoSchedule
  YAML

  depends_on = [module.eks]
}

resource "kubectl_manifest" "bad" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: batch
    spec:
      template:
        spec:
          taints:
            - key: batch
              value: "yes please"
              effect: NoSchedul
  YAML
}
