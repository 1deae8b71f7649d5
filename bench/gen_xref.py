#!/usr/bin/env python3
"""Cross-reference at scale: N_NODES Nodes in N_POOLS pools (each pool its own taint and
label), and N_DEPLOYMENTS Deployments spread over the pools (most select and tolerate their
pool; some tolerate without selecting; some select a pool they do not tolerate).

usage: gen_xref.py [--unschedulable | --wrong-pools] OUT_DIR [N_NODES=5000] [N_POOLS=50] [N_DEPLOYMENTS=20000]
       gen_xref.py --distinct-pools [--same-key] [--nodepools] OUT_DIR [N_POOLS=4000] [N_DEPLOYMENTS=N_POOLS]

By default one Deployment in ten cannot schedule (it tolerates the next pool's taint). With
`--unschedulable` (issue 18's case: many findings), the Nodes go into one file and the
Deployments into 20, and about a quarter cannot schedule: besides those, one in ten tolerates
its pool with a value typo (`Pool-07`) and one in twenty with the wrong effect. With
`--wrong-pools`, the same quarter tolerates another pool's taint instead (no typos).

With `--distinct-pools` (issue 36's row 6: thousands of distinct pools), every pool is one
Node with a label and a taint of its own (`example.com/pool: pool-N`, taint key
`example.com/dedicated-N`), and each Deployment selects one pool and tolerates its taint with
the wrong value, so that no pool admits any Deployment: N_POOLS classes of pools by
N_DEPLOYMENTS distinct scheduling signatures, every one of them unschedulable. `--same-key`
gives every taint one key (`example.com/dedicated=pool-N`: the key no longer tells the pools
apart); `--nodepools` makes the pools Karpenter NodePools instead of Nodes (pools found in the
files, not a closed world: the evidence checks run).
No third-party modules needed."""
import os
import sys

flags = {"--unschedulable", "--wrong-pools", "--distinct-pools", "--same-key", "--nodepools"}
args = [a for a in sys.argv[1:] if a not in flags]
many = "--unschedulable" in sys.argv[1:] or "--wrong-pools" in sys.argv[1:]
# Issue 18's own case: the quarter that cannot schedule tolerate another pool's taint (no
# typos, so no toleration-level findings besides).
wrong_pools = "--wrong-pools" in sys.argv[1:]
out = args[0]
if "--distinct-pools" in sys.argv[1:]:
    same_key = "--same-key" in sys.argv[1:]
    nodepools = "--nodepools" in sys.argv[1:]
    n_pools = int(args[1]) if len(args) > 1 else 4000
    n_deploy = int(args[2]) if len(args) > 2 else n_pools
    os.makedirs(out, exist_ok=True)

    def taint(i):
        return ("example.com/dedicated", f"pool-{i:05d}") if same_key else (f"example.com/dedicated-{i:05d}", "dedicated")

    with open(os.path.join(out, "pools.yaml"), "w") as f:
        for i in range(n_pools):
            key, value = taint(i)
            if nodepools:
                f.write(
                    f"""---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool-{i:05d}
spec:
  template:
    metadata:
      labels:
        example.com/pool: pool-{i:05d}
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      taints:
        - {{key: {key}, value: {value}, effect: NoSchedule}}
"""
                )
            else:
                f.write(
                    f"""---
apiVersion: v1
kind: Node
metadata:
  name: node-{i:05d}
  labels:
    kubernetes.io/hostname: node-{i:05d}
    example.com/pool: pool-{i:05d}
spec:
  taints:
    - {{key: {key}, value: {value}, effect: NoSchedule}}
"""
                )
    with open(os.path.join(out, "apps.yaml"), "w") as f:
        for i in range(n_deploy):
            pool = i % n_pools
            key, value = taint(pool)
            f.write(
                f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{i:05d}
spec:
  selector:
    matchLabels: {{app: app-{i:05d}}}
  template:
    metadata:
      labels: {{app: app-{i:05d}}}
    spec:
      nodeSelector:
        example.com/pool: pool-{pool:05d}
      tolerations:
        - {{key: {key}, operator: Equal, value: {value}-x, effect: NoSchedule}}
      containers:
        - {{name: app, image: "registry.example.com/app:1"}}
"""
            )
    print(out)
    sys.exit(0)
n_nodes = int(args[1]) if len(args) > 1 else 5000
n_pools = int(args[2]) if len(args) > 2 else 50
n_deploy = int(args[3]) if len(args) > 3 else 20000
os.makedirs(os.path.join(out, "nodes"), exist_ok=True)
os.makedirs(os.path.join(out, "apps"), exist_ok=True)

per_file = n_nodes if many else 100
for start in range(0, n_nodes, per_file):
    with open(os.path.join(out, "nodes", f"nodes-{start // per_file:04d}.yaml"), "w") as f:
        f.write("apiVersion: v1\nkind: NodeList\nitems:\n")
        for i in range(start, min(start + per_file, n_nodes)):
            pool = i % n_pools
            f.write(
                f"""  - apiVersion: v1
    kind: Node
    metadata:
      name: node-{i:05d}
      labels:
        kubernetes.io/hostname: node-{i:05d}
        node.kubernetes.io/instance-type: m5.{pool % 4}xlarge
        example.com/pool: pool-{pool:02d}
    spec:
      taints:
        - key: example.com/dedicated
          value: pool-{pool:02d}
          effect: NoSchedule
"""
            )

per_file = max(1, n_deploy // 20) if many else 100
for start in range(0, n_deploy, per_file):
    with open(os.path.join(out, "apps", f"apps-{start // per_file:04d}.yaml"), "w") as f:
        for i in range(start, min(start + per_file, n_deploy)):
            pool = i % n_pools
            kind = i % 10
            selector = f"      nodeSelector:\n        example.com/pool: pool-{pool:02d}\n" if kind != 7 else ""
            tol_pool = pool if kind != 8 else (pool + 1) % n_pools
            if wrong_pools and (kind == 9 or i % 20 == 3):
                tol_pool = (pool + 1) % n_pools
            value, effect = f"pool-{tol_pool:02d}", "NoSchedule"
            if wrong_pools:
                pass
            elif many and kind == 9:
                value = f"Pool-{tol_pool:02d}"
            elif many and i % 20 == 3:
                effect = "NoExecute"
            f.write(
                f"""---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{i:05d}
  namespace: team-{pool:02d}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: app-{i:05d}}}
  template:
    metadata:
      labels: {{app: app-{i:05d}}}
    spec:
{selector}      tolerations:
        - key: example.com/dedicated
          operator: Equal
          value: {value}
          effect: {effect}
      containers:
        - name: app
          image: registry.example.com/app:{i % 7}
          resources:
            requests: {{cpu: 100m, memory: 128Mi}}
"""
            )
print(out)
