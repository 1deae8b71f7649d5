#!/usr/bin/env python3
"""taintlint's benchmark (issue 7), run by hand, never by CI. bench/README.md explains the
corpora and the method; only the Python standard library is needed.

    python3 bench/run.py [--runs 5] [--work DIR] [--scale 1,2,4] [--source DIR]
                         [--skip-scaling] [--skip-formats] [--skip-xref] [--skip-peer]
                         [--bin PATH] [--ref PATH | --no-ref] [--quick]

It builds the release binary and the `parse_reference` example (a bare saphyr-parser event
pass over the same files; not built with --bin and --ref, or --no-ref), generates the
corpora it needs under --work (default target/bench): the corpus of bench/gen_corpus.py
(real manifests copied into 10,000 files; from the repository's testdata/corpus, or from
--source), its 2x and 4x variants, and the cross-reference corpora of bench/gen_xref.py.
`--scale 1,2,4,8` adds an 8x corpus to the scaling series (its generation takes minutes and
gigabytes of disk).

It prints medians of --runs runs (taintlint and the reference in turns, so that a shared
machine's drift weighs on both), the taintlint/reference time ratio, MB/s, documents/s and
peak RSS, the scaling series with the reference beside each size, time and peak RSS of
every output format, a single-small-file startup time, and Checkov's Kubernetes framework on
a subset as the peer a user would otherwise run (installed into a venv under --work; needs
the network).

--quick is a smoke test (seconds, not minutes): tiny corpora, one run, no scaling series and
no peer; its figures mean nothing."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import measure

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "taintlint")
REF = os.path.join(ROOT, "target", "release", "examples", "parse_reference")
SOURCE = None


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd):
    """(seconds, peak RSS in MB) of one run; output discarded."""
    r = measure.run(cmd)
    if r.code not in (0, 1):
        sys.exit(f"{cmd} failed ({r.code}):\n{r.stderr.decode(errors='replace')[-2000:]}")
    return r.seconds, r.rss_mb


def median_run(cmd, runs):
    results = [timed(cmd) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def paired(cmd, ref, runs):
    """Medians of `cmd` and `ref` run in turns, so that the machine's drift (a shared VM)
    weighs on both alike: (cmd seconds, cmd peak RSS, ref seconds or None)."""
    a, b = [], []
    for _ in range(runs):
        a.append(timed(cmd))
        if ref:
            b.append(timed(ref))
    return (statistics.median(r[0] for r in a), max(r[1] for r in a),
            statistics.median(r[0] for r in b) if b else None)


def corpus(work, name, n_single, n_bundle):
    out = os.path.join(work, name)
    if not os.path.exists(os.path.join(out, "INDEX.tsv")):
        cmd = [sys.executable, os.path.join(ROOT, "bench", "gen_corpus.py"), out,
               str(n_single), str(n_bundle)]
        if SOURCE:
            cmd += ["--source", SOURCE]
        sh(cmd, stdout=subprocess.DEVNULL)
    return out


def size_and_docs(path):
    """Bytes and documents of the YAML and JSON files under `path`: the reference parse
    counts them; without it, the bytes only (documents `None`)."""
    if REF:
        out = subprocess.run([REF, "--threads", "2", path], check=True, capture_output=True,
                             text=True).stdout.split()
        return int(out[2]), int(out[1])
    total = 0
    for d, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files
                     if f.endswith((".yaml", ".yml", ".json")))
    return total, None


def secs_or_dash(x):
    return f"{x:.2f} s" if x is not None else "—"


def ratio(a, b):
    return f"{a / b:.2f}" if b else "—"


def compare(path, runs, label):
    nbytes, docs = size_and_docs(path)
    print(f"\n## {label}: {nbytes / 1e6:.1f} MB, {docs if docs is not None else '?'} documents")
    print("| threads | taintlint check --format json | reference parse | ratio | MB/s | docs/s | peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    rows = {}
    for t in (1, 2):
        tl, rss, ref = paired([BIN, "check", path, "--format", "json", "--threads", str(t),
                               "--isolated"], REF and [REF, "--threads", str(t), path], runs)
        rows[t] = tl
        per_doc = f"{docs / tl:.0f}" if docs is not None else "—"
        print(f"| {t} | {tl:.2f} s | {secs_or_dash(ref)} | {ratio(tl, ref)} | "
              f"{nbytes / 1e6 / tl:.0f} | {per_doc} | {rss:.0f} MB |")
    return rows


def main():
    global BIN, REF, SOURCE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", type=measure.output_dir, default=os.path.join(ROOT, "target", "bench"),
                    help="where the corpora are generated and kept (default: target/bench)")
    ap.add_argument("--scale", default="1,2,4",
                    help="corpus multiples of the scaling series (1x = 9,000 files and 1,000 bundles)")
    ap.add_argument("--source", help="the real manifests to copy (default: testdata/corpus)")
    ap.add_argument("--bin", help="the taintlint to measure (default: cargo build --release)")
    ap.add_argument("--ref", help="the parse_reference example (default: built)")
    ap.add_argument("--no-ref", action="store_true", help="no reference parse")
    ap.add_argument("--quick", action="store_true", help="a smoke test: tiny corpora, one run")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--skip-xref", action="store_true")
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--skip-formats", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.runs, a.skip_scaling, a.skip_peer = 1, True, True
    SOURCE = a.source and os.path.abspath(a.source)
    os.makedirs(a.work, exist_ok=True)
    build = []
    if a.bin:
        BIN = os.path.abspath(a.bin)
    else:
        build += ["--bin", "taintlint"]
    if a.no_ref:
        REF = None
    elif a.ref:
        REF = os.path.abspath(a.ref)
    else:
        build += ["--example", "parse_reference"]
    if build:
        sh(["cargo", "build", "--release", "--quiet"] + build, cwd=ROOT)
    print(f"# taintlint benchmark — {os.cpu_count()} cores, "
          f"{subprocess.run([BIN, '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"{time.strftime('%Y-%m-%d')}{' (--quick: the figures mean nothing)' if a.quick else ''}")
    print(f"medians of {a.runs} runs; peak RSS is the maximum over the runs")

    single, bundles = (40, 8) if a.quick else (9000, 1000)
    big = corpus(a.work, "corpus-quick" if a.quick else "corpus-1x", single, bundles)
    compare(big, a.runs, "corpus 1x (gen_corpus.py defaults)")

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
                                     "--isolated"], REF and [REF, "--threads", "2", path], runs)
            print(f"| {name} | {nbytes / 1e6:.0f} | {secs:.2f} | {secs / (nbytes / 1e8):.2f} | "
                  f"{secs_or_dash(ref)} | {ratio(secs, ref)} | {rss:.0f} MB |")

    if not a.skip_formats:
        # Every output format holds what it writes: the peak must not grow with the format.
        print("\n## output formats on the 1x corpus (2 threads)")
        print("| format | seconds | peak RSS |")
        print("|---|---:|---:|")
        for fmt in ("json", "sarif", "human", "concise", "github", "markdown"):
            secs, rss = median_run([BIN, "check", big, "--format", fmt, "--threads", "2",
                                    "--isolated"], max(1, a.runs // 2))
            print(f"| {fmt} | {secs:.2f} | {rss:.0f} MB |")

    if not a.skip_xref:
        # gen_xref.py's sizes: Nodes, pools, Deployments.
        sizes = ["200", "10", "400"] if a.quick else []
        xref = os.path.join(a.work, "xref-quick" if a.quick else "xref")
        if not os.path.exists(xref):
            sh([sys.executable, os.path.join(ROOT, "bench", "gen_xref.py"), xref] + sizes,
               stdout=subprocess.DEVNULL)
        scale = "200 Nodes in 10 pools, 400 Deployments" if a.quick else \
            "5,000 Nodes in 50 pools, 20,000 Deployments"
        compare(xref, a.runs, f"cross-reference: {scale}")
        # Issue 18's case: the same inventory, 21 files, a quarter of the Deployments
        # unschedulable — tolerating another pool's taint (`--wrong-pools`, the issue's own
        # case), or with value and effect typos besides (`--unschedulable`: a finding on the
        # toleration too) — thousands of findings.
        for flag, what in (("--wrong-pools", "a quarter tolerating another pool"),
                           ("--unschedulable", "a quarter unschedulable, with typos")):
            many = os.path.join(a.work, "xref" + flag[1:].replace("-", "_")
                                + ("-quick" if a.quick else ""))
            if not os.path.exists(many):
                sh([sys.executable, os.path.join(ROOT, "bench", "gen_xref.py"), flag, many]
                   + sizes, stdout=subprocess.DEVNULL)
            compare(many, a.runs, f"cross-reference with many findings: {scale}, {what}")
            nbytes, _ = size_and_docs(many)
            for fmt in ("json", "sarif"):
                out = subprocess.run([BIN, "check", many, "--format", fmt, "--threads", "2",
                                      "--isolated"], capture_output=True).stdout
                doc = json.loads(out)
                n = len(doc["findings"]) if fmt == "json" else len(doc["runs"][0]["results"])
                print(f"{fmt} output: {len(out) / 1e6:.1f} MB for {nbytes / 1e6:.1f} MB of "
                      f"input, {n} findings ({len(out) / max(n, 1):.0f} bytes each)")

    small = os.path.join(ROOT, "testdata", "examples", "pod-debug.yaml")
    n = 3 if a.quick else 21
    times = sorted(timed([BIN, "check", small, "--isolated"])[0] for _ in range(n))
    print(f"\n## startup: one small file: median {times[n // 2] * 1000:.1f} ms ({n} runs)")

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
