#!/usr/bin/env python3
"""Cross-reference at scale: N_NODES Nodes in N_POOLS pools (each pool its own taint and
label), and N_DEPLOYMENTS Deployments spread over the pools (most select and tolerate their
pool; some tolerate without selecting; some select a pool they do not tolerate).

usage: gen_xref.py [--unschedulable | --wrong-pools] OUT_DIR [N_NODES=5000] [N_POOLS=50] [N_DEPLOYMENTS=20000]

By default one Deployment in ten cannot schedule (it tolerates the next pool's taint). With
`--unschedulable` (issue 18's case: many findings), the Nodes go into one file and the
Deployments into 20, and about a quarter cannot schedule: besides those, one in ten tolerates
its pool with a value typo (`Pool-07`) and one in twenty with the wrong effect. With
`--wrong-pools`, the same quarter tolerates another pool's taint instead (no typos).
No third-party modules needed."""
import os
import sys

flags = {"--unschedulable", "--wrong-pools"}
args = [a for a in sys.argv[1:] if a not in flags]
many = "--unschedulable" in sys.argv[1:] or "--wrong-pools" in sys.argv[1:]
# Issue 18's own case: the quarter that cannot schedule tolerate another pool's taint (no
# typos, so no toleration-level findings besides).
wrong_pools = "--wrong-pools" in sys.argv[1:]
out = args[0]
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
