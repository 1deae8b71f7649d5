#!/usr/bin/env python3
"""Minified JSON (issue 20, item 4): one `kubectl get -o json | jq -c` List on a single line,
against the same List pretty-printed. Run by hand, never by CI:

    python3 bench/long_lines.py [--bin target/release/taintlint] [--sizes 1,2,4,8] [--runs 3]

Each item is a Deployment with a toleration that the API server rejects (`Exists` with a
value), so every item gives findings whose columns lie far into the one line. Prints, per
size, the median seconds and MB/s of `check --format json` on both files; time must grow
linearly with the size (it grew with its square before: 0.88 MB in 1.33 s, 1.76 MB in
4.38 s, 38 MB killed after 9 CPU-minutes).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def item(i):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"web-{i}", "namespace": "shop", "labels": {"app": f"web-{i}"}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": f"web-{i}"}},
            "template": {
                "metadata": {"labels": {"app": f"web-{i}"}, "annotations": {"note": "é" * 8}},
                "spec": {
                    "tolerations": [
                        {"key": "dedicated", "operator": "Exists", "value": "web", "effect": "NoSchedule"}
                    ],
                    "containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}],
                },
            },
        },
    }


def listing(megabytes):
    one = len(json.dumps(item(0), separators=(",", ":"))) + 1
    n = max(1, int(megabytes * 1_000_000 / one))
    return {"apiVersion": "v1", "kind": "List", "items": [item(i) for i in range(n)]}, n


def run(binary, path, runs):
    times = []
    for _ in range(runs):
        t = time.monotonic()
        out = subprocess.run(
            [binary, "check", path, "--format", "json", "--isolated", "--max-file-size", str(1 << 40)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        times.append(time.monotonic() - t)
        if out.returncode not in (0, 1):
            sys.exit(f"{path}: exit {out.returncode}: {out.stderr.decode()}")
    findings = len(json.loads(out.stdout)["findings"])
    return statistics.median(times), findings


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the binary to measure (default: target/release/taintlint)")
    ap.add_argument("--sizes", default="1,2,4,8", help="MB of JSON, comma-separated")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if not args.bin:
        args.bin = os.path.join(ROOT, "target", "release", "taintlint")
        if not os.path.exists(args.bin):
            subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    args.bin = os.path.abspath(args.bin)
    print(f"{'MB':>6} {'items':>7} {'findings':>8} | {'minified s':>10} {'MB/s':>6} | {'pretty s':>8} {'MB/s':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in [float(s) for s in args.sizes.split(",")]:
            doc, n = listing(size)
            minified = os.path.join(tmp, "minified.json")
            pretty = os.path.join(tmp, "pretty.json")
            with open(minified, "w", encoding="utf-8") as f:
                f.write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n")
            with open(pretty, "w", encoding="utf-8") as f:
                f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
            mb = os.path.getsize(minified) / 1e6
            pmb = os.path.getsize(pretty) / 1e6
            t_min, found = run(args.bin, minified, args.runs)
            t_pretty, _ = run(args.bin, pretty, args.runs)
            print(f"{mb:6.2f} {n:7d} {found:8d} | {t_min:10.3f} {mb / t_min:6.1f} | {t_pretty:8.3f} {pmb / t_pretty:6.1f}")


if __name__ == "__main__":
    main()
