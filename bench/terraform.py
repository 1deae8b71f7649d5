#!/usr/bin/env python3
"""Terraform-heavy benchmark (issue 29): N node groups in .tf files (a quarter each of
`aws_eks_node_group`, `google_container_node_pool`, `azurerm_kubernetes_cluster_node_pool`,
and terraform-aws-modules/eks `eks_managed_node_groups` entries; one in ten with a label or
taint from a variable), and N Deployments selecting and tolerating them; then the same pools as
Karpenter NodePools in YAML, so the two readers can be compared. Prints figures; asserts
nothing.

usage: bench/terraform.py [--bin target/release/taintlint] [--groups 1000] [--runs 5]

Without --bin, and without a release build, it runs `cargo build --release` first. No
third-party modules needed."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EFFECTS = [("NO_SCHEDULE", "NoSchedule"), ("NO_EXECUTE", "NoExecute")]


def tf_group(i):
    kind = i % 4
    effect_tf, _ = EFFECTS[i % 2]
    unknown = i % 10 == 9
    labels = f'{{ pool = "p{i:04d}", team = "t{i % 7}" }}' if not unknown else "var.labels"
    if kind == 0:
        return f'''resource "aws_eks_node_group" "g{i:04d}" {{
  cluster_name    = var.cluster
  node_group_name = "p{i:04d}"
  node_role_arn   = var.role
  subnet_ids      = var.subnets
  instance_types  = ["m5.large"]
  capacity_type   = "{'SPOT' if i % 3 == 0 else 'ON_DEMAND'}"
  labels          = {labels}

  taint {{
    key    = "dedicated"
    value  = "p{i:04d}"
    effect = "{effect_tf}"
  }}

  scaling_config {{
    desired_size = 1
    max_size     = 3
    min_size     = 0
  }}
}}
'''
    if kind == 1:
        return f'''resource "google_container_node_pool" "g{i:04d}" {{
  name    = "p{i:04d}"
  cluster = var.cluster

  node_config {{
    machine_type = "e2-standard-4"
    spot         = {'true' if i % 3 == 0 else 'false'}
    labels       = {labels}
    taint {{
      key    = "dedicated"
      value  = "p{i:04d}"
      effect = "{effect_tf}"
    }}
  }}
}}
'''
    if kind == 2:
        effect = EFFECTS[i % 2][1]
        return f'''resource "azurerm_kubernetes_cluster_node_pool" "g{i:04d}" {{
  name                  = "p{i:04d}"
  kubernetes_cluster_id = var.cluster_id
  vm_size               = "Standard_D4s_v5"
  node_labels           = {labels}
  node_taints           = ["dedicated=p{i:04d}:{effect}"]
}}
'''
    return None  # module entries are written together


def module_entry(i):
    effect_tf, _ = EFFECTS[i % 2]
    unknown = i % 10 == 9
    labels = f'{{ pool = "p{i:04d}", team = "t{i % 7}" }}' if not unknown else "var.labels"
    return f'''    p{i:04d} = {{
      instance_types = ["m5.large"]
      capacity_type  = "SPOT"
      labels         = {labels}
      taints = {{
        dedicated = {{ key = "dedicated", value = "p{i:04d}", effect = "{effect_tf}" }}
      }}
    }}
'''


def nodepool_yaml(i):
    effect = EFFECTS[i % 2][1]
    return f"""---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: p{i:04d}
spec:
  template:
    metadata:
      labels:
        pool: p{i:04d}
        team: t{i % 7}
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: [m5.large]
      taints:
        - key: dedicated
          value: p{i:04d}
          effect: {effect}
"""


def deployment(i):
    effect = EFFECTS[i % 2][1]
    # One in ten tolerates the wrong effect.
    if i % 10 == 3:
        effect = EFFECTS[(i + 1) % 2][1]
    return f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{i:04d}
spec:
  selector:
    matchLabels: {{app: app-{i:04d}}}
  template:
    metadata:
      labels: {{app: app-{i:04d}}}
    spec:
      nodeSelector:
        pool: p{i:04d}
      tolerations:
        - key: dedicated
          operator: Equal
          value: p{i:04d}
          effect: {effect}
      containers:
        - name: app
          image: app:1
"""


def write(root, groups):
    tf_dir = os.path.join(root, "tf", "infra")
    yaml_dir = os.path.join(root, "yaml", "infra")
    for d in (tf_dir, yaml_dir, os.path.join(root, "tf", "apps"), os.path.join(root, "yaml", "apps")):
        os.makedirs(d, exist_ok=True)
    per_file = 100
    for start in range(0, groups, per_file):
        ids = range(start, min(start + per_file, groups))
        with open(os.path.join(tf_dir, f"pools-{start // per_file:03d}.tf"), "w") as f:
            for i in ids:
                block = tf_group(i)
                if block:
                    f.write(block + "\n")
            entries = [module_entry(i) for i in ids if i % 4 == 3]
            if entries:
                f.write(
                    f'module "eks{start // per_file:03d}" {{\n'
                    '  source  = "terraform-aws-modules/eks/aws"\n'
                    '  version = "~> 20.0"\n\n'
                    "  eks_managed_node_groups = {\n" + "".join(entries) + "  }\n}\n"
                )
        with open(os.path.join(yaml_dir, f"pools-{start // per_file:03d}.yaml"), "w") as f:
            for i in ids:
                f.write(nodepool_yaml(i))
    apps = "".join(deployment(i) for i in range(groups))
    for side in ("tf", "yaml"):
        with open(os.path.join(root, side, "apps", "apps.yaml"), "w") as f:
            f.write(apps)


def size(path):
    total = 0
    for d, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return total


def measure(binary, path, runs):
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(
            [binary, "check", path, "--format", "json"],
            capture_output=True,
            text=True,
        )
        times.append(time.perf_counter() - t)
        out = r.stdout
    findings = json.loads(out)["findings"] if out else []
    by_rule = {}
    for f in findings:
        by_rule[f["rule"]] = by_rule.get(f["rule"], 0) + 1
    return statistics.median(times), by_rule


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the binary to measure (default: target/release/taintlint)")
    ap.add_argument("--groups", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if not a.bin:
        a.bin = os.path.join(ROOT, "target", "release", "taintlint")
        if not os.path.exists(a.bin):
            subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    a.bin = os.path.abspath(a.bin)
    with tempfile.TemporaryDirectory() as root:
        write(root, a.groups)
        for side, what in (("tf", "Terraform"), ("yaml", "Karpenter YAML")):
            infra = os.path.join(root, side, "infra")
            whole = os.path.join(root, side)
            t_infra, _ = measure(a.bin, infra, a.runs)
            t_all, rules = measure(a.bin, whole, a.runs)
            mb = size(infra) / 1e6
            print(
                f"{what:15} {a.groups} node groups, {mb:.2f} MB: pools only {t_infra * 1000:.0f} ms "
                f"({mb / t_infra:.1f} MB/s); with {a.groups} Deployments {t_all * 1000:.0f} ms; "
                f"findings {dict(sorted(rules.items()))}"
            )


if __name__ == "__main__":
    main()
