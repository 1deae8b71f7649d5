#!/usr/bin/env python3
"""taintlint's benchmark (issue 7), run by hand, never by CI.

    python3 bench/run.py [--runs 5] [--work DIR] [--scale 1,2,4] [--skip-scaling]
                         [--skip-formats] [--skip-xref] [--skip-peer]

It builds the release binary and the `parse_reference` example (a bare saphyr-parser event
pass over the same files), generates the corpora it needs under --work (default
target/bench): the ~160 MB corpus from ../shared/bench/gen_big.py (needs PyYAML; installed
into a throwaway venv under --work when missing), its 2x and 4x variants, and the
cross-reference corpus of bench/gen_xref.py. `--scale 1,2,4,8` adds an 8x corpus to the
scaling series (about 950 MB of YAML; its generation takes minutes and 2.4 GB of disk).

It prints medians of --runs runs (taintlint and the reference in turns, so that a shared
machine's drift weighs on both), the taintlint/reference time ratio, MB/s, documents/s and
peak RSS (/usr/bin/time -v), the scaling series with the reference beside each size, time
and peak RSS of every output format, a single-small-file startup time, and Checkov's
Kubernetes framework on a subset as the peer a user would otherwise run."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")
BIN = os.path.join(ROOT, "target", "release", "taintlint")
REF = os.path.join(ROOT, "target", "release", "examples", "parse_reference")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd):
    """(seconds, peak RSS in MB) of one run; output discarded."""
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t
    rss = 0
    for line in p.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1]) / 1024
    if p.returncode not in (0, 1):
        sys.exit(f"{cmd} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return secs, rss


def median_run(cmd, runs):
    results = [timed(cmd) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def paired(cmd, ref, runs):
    """Medians of `cmd` and `ref` run in turns, so that the machine's drift (a shared VM)
    weighs on both alike: (cmd seconds, cmd peak RSS, ref seconds)."""
    a, b = [], []
    for _ in range(runs):
        a.append(timed(cmd))
        b.append(timed(ref))
    return (statistics.median(r[0] for r in a), max(r[1] for r in a),
            statistics.median(r[0] for r in b))


def python_with_yaml(work):
    try:
        import yaml  # noqa: F401
        return sys.executable
    except ImportError:
        venv = os.path.join(work, "venv")
        if not os.path.exists(os.path.join(venv, "bin", "python3")):
            sh([sys.executable, "-m", "venv", venv])
            sh([os.path.join(venv, "bin", "pip"), "install", "-q", "pyyaml"])
        return os.path.join(venv, "bin", "python3")


def corpus(work, name, n_single, n_bundle):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "INDEX.tsv")):
        env = dict(os.environ, OUT=out, CORPUS=os.path.join(SHARED, "corpus"))
        sh([python_with_yaml(work), os.path.join(SHARED, "bench", "gen_big.py"),
            str(n_single), str(n_bundle)], env=env, stdout=subprocess.DEVNULL)
    return out


def size_and_docs(path):
    out = subprocess.run([REF, "--threads", "2", path], check=True, capture_output=True,
                         text=True).stdout.split()
    return int(out[2]), int(out[1])


def compare(path, runs, label):
    nbytes, docs = size_and_docs(path)
    print(f"\n## {label}: {nbytes / 1e6:.0f} MB, {docs} documents")
    print("| threads | taintlint check --format json | reference parse | ratio | MB/s | docs/s | peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    rows = {}
    for t in (1, 2):
        tl, rss, ref = paired([BIN, "check", path, "--format", "json", "--threads", str(t),
                               "--isolated"], [REF, "--threads", str(t), path], runs)
        rows[t] = tl
        print(f"| {t} | {tl:.2f} s | {ref:.2f} s | {tl / ref:.2f} | {nbytes / 1e6 / tl:.0f} | "
              f"{docs / tl:.0f} | {rss:.0f} MB |")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "bench"))
    ap.add_argument("--scale", default="1,2,4",
                    help="corpus multiples of the scaling series (1x = gen_big.py's defaults)")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--skip-xref", action="store_true")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--skip-formats", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    sh(["cargo", "build", "--release", "--quiet", "--bin", "taintlint", "--example",
        "parse_reference"], cwd=ROOT)
    print(f"# taintlint benchmark — {os.cpu_count()} cores, "
          f"{subprocess.run([BIN, '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"{time.strftime('%Y-%m-%d')}")
    print(f"medians of {a.runs} runs; peak RSS is the maximum over the runs")

    big = corpus(a.work, "corpus-1x", 9000, 1000)
    compare(big, a.runs, "corpus 1x (gen_big.py defaults)")

    if not a.skip_scaling:
        # The reference parse of the same files tells the run's own slowdown from the page
        # cache's: a corpus larger than the cache is read from disk by both.
        print("\n## scaling (2 threads)")
        print("| corpus | MB | seconds | s per 100 MB | reference parse | ratio | peak RSS |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for k in (int(x) for x in a.scale.split(",")):
            name = f"corpus-{k}x"
            path = corpus(a.work, name, 9000 * k, 1000 * k)
            nbytes, _ = size_and_docs(path)
            runs = max(1, a.runs // 2)
            secs, rss, ref = paired([BIN, "check", path, "--format", "json", "--threads", "2",
                                     "--isolated"], [REF, "--threads", "2", path], runs)
            print(f"| {name} | {nbytes / 1e6:.0f} | {secs:.2f} | {secs / (nbytes / 1e8):.2f} | "
                  f"{ref:.2f} s | {secs / ref:.2f} | {rss:.0f} MB |")

    if not a.skip_formats:
        # Every output format holds what it writes: the peak must not grow with the format.
        print("\n## output formats on corpus-1x (2 threads)")
        print("| format | seconds | peak RSS |")
        print("|---|---:|---:|")
        for fmt in ("json", "sarif", "human", "concise", "github", "markdown"):
            secs, rss = median_run([BIN, "check", big, "--format", fmt, "--threads", "2",
                                    "--isolated"], max(1, a.runs // 2))
            print(f"| {fmt} | {secs:.2f} | {rss:.0f} MB |")

    if not a.skip_xref:
        xref = os.path.join(a.work, "xref")
        if not os.path.exists(xref):
            sh([sys.executable, os.path.join(ROOT, "bench", "gen_xref.py"), xref],
               stdout=subprocess.DEVNULL)
        compare(xref, a.runs, "cross-reference: 5,000 Nodes in 50 pools, 20,000 Deployments")
        # Issue 18's case: the same inventory, 21 files, a quarter of the Deployments
        # unschedulable — tolerating another pool's taint (`--wrong-pools`, the issue's own
        # case), or with value and effect typos besides (`--unschedulable`: a finding on the
        # toleration too) — thousands of findings.
        for flag, what in (("--wrong-pools", "a quarter tolerating another pool"),
                           ("--unschedulable", "a quarter unschedulable, with typos")):
            many = os.path.join(a.work, "xref" + flag[1:].replace("-", "_"))
            if not os.path.exists(many):
                sh([sys.executable, os.path.join(ROOT, "bench", "gen_xref.py"), flag, many],
                   stdout=subprocess.DEVNULL)
            compare(many, a.runs, "cross-reference with many findings: 5,000 Nodes in 50 "
                    f"pools, 20,000 Deployments, {what}")
            nbytes, _ = size_and_docs(many)
            for fmt in ("json", "sarif"):
                out = subprocess.run([BIN, "check", many, "--format", fmt, "--threads", "2",
                                      "--isolated"], capture_output=True).stdout
                doc = json.loads(out)
                n = len(doc["findings"]) if fmt == "json" else len(doc["runs"][0]["results"])
                print(f"{fmt} output: {len(out) / 1e6:.1f} MB for {nbytes / 1e6:.1f} MB of "
                      f"input, {n} findings ({len(out) / max(n, 1):.0f} bytes each)")

    small = os.path.join(ROOT, "testdata", "examples", "pod-debug.yaml")
    times = sorted(timed([BIN, "check", small, "--isolated"])[0] for _ in range(21))
    print(f"\n## startup: one small file: median {times[10] * 1000:.1f} ms (21 runs)")

    if not a.skip_peer:
        venv = os.path.join(a.work, "checkov-venv")
        checkov = os.path.join(venv, "bin", "checkov")
        if not os.path.exists(checkov):
            sh([sys.executable, "-m", "venv", venv])
            sh([os.path.join(venv, "bin", "pip"), "install", "-q", "checkov"])
        subset = os.path.join(big, "s00")
        nbytes, _ = size_and_docs(subset)
        ck, ck_rss = timed([checkov, "-d", subset, "--framework", "kubernetes", "--quiet",
                            "--compact", "-o", "json"])
        tl, tl_rss = median_run([BIN, "check", subset, "--format", "json", "--isolated"], a.runs)
        print(f"\n## peer: Checkov (kubernetes framework) on {subset} ({nbytes / 1e6:.0f} MB)")
        print(f"checkov {ck:.1f} s ({ck_rss:.0f} MB) vs taintlint {tl:.2f} s ({tl_rss:.0f} MB): "
              f"taintlint is {ck / tl:.0f}x faster")


if __name__ == "__main__":
    main()
