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
    mode.add_argument("--distinct-pools", action="store_true",
                      help="issue 36 row 6: every pool distinct, no Deployment admitted "
                           "(positionals: OUT_DIR [N_POOLS=4000] [N_DEPLOYMENTS=N_POOLS])")
    ap.add_argument("--same-key", action="store_true", help="with --distinct-pools: one taint key for all pools")
    ap.add_argument("--nodepools", action="store_true", help="with --distinct-pools: Karpenter NodePools, not Nodes")
    ap.add_argument("out", type=output_dir, metavar="OUT_DIR", help="the folder to write (created)")
    ap.add_argument("n_nodes", type=positive, nargs="?", metavar="N_NODES", help="default 5000")
    ap.add_argument("n_pools", type=positive, nargs="?", metavar="N_POOLS", help="default 50")
    ap.add_argument("n_deploy", type=positive, nargs="?", metavar="N_DEPLOYMENTS", help="default 20000")
    a = ap.parse_args()
    if a.distinct_pools:
        # The positionals count pools, then Deployments.
        n_pools = a.n_nodes or 4000
        generate_distinct(a.out, n_pools, a.n_pools or n_pools, a.same_key, a.nodepools)
        print(a.out)
        return
    if a.same_key or a.nodepools:
        ap.error("--same-key and --nodepools go with --distinct-pools")
    a.n_nodes, a.n_pools, a.n_deploy = a.n_nodes or 5000, a.n_pools or 50, a.n_deploy or 20000
    generate(a.out, a.n_nodes, a.n_pools, a.n_deploy, a.unschedulable or a.wrong_pools, a.wrong_pools)
    print(a.out)


def generate_distinct(out, n_pools, n_deploy, same_key, nodepools):
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
