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
import argparse
import os

from measure import output_dir


def positive(value):
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive count")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--unschedulable", action="store_true",
                      help="many findings: a quarter cannot schedule, with value and effect typos")
    # Issue 18's own case: the quarter that cannot schedule tolerate another pool's taint (no
    # typos, so no toleration-level findings besides).
    mode.add_argument("--wrong-pools", action="store_true",
                      help="a quarter tolerates another pool's taint (no typos)")
    ap.add_argument("out", type=output_dir, metavar="OUT_DIR", help="the folder to write (created)")
    ap.add_argument("n_nodes", type=positive, nargs="?", default=5000, metavar="N_NODES")
    ap.add_argument("n_pools", type=positive, nargs="?", default=50, metavar="N_POOLS")
    ap.add_argument("n_deploy", type=positive, nargs="?", default=20000, metavar="N_DEPLOYMENTS")
    a = ap.parse_args()
    generate(a.out, a.n_nodes, a.n_pools, a.n_deploy, a.unschedulable or a.wrong_pools, a.wrong_pools)
    print(a.out)


def generate(out, n_nodes, n_pools, n_deploy, many, wrong_pools):
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


if __name__ == "__main__":
    main()
