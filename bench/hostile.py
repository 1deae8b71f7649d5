#!/usr/bin/env python3
"""Hostile input at scale (issue 22): each class of input that used to take minutes or
gigabytes, at two sizes (half and full), with its wall time and peak RSS (the child's own,
from `wait4`: bench/measure.py). Run by hand, never by CI:

    python3 bench/hostile.py [--bin target/release/taintlint] [--only CLASS,...]
                             [--timeout 120] [--mem-limit-gb 8] [--workdir DIR] [--quick]

Without --bin it runs `cargo build --release` first (and nothing else is built). The inputs
are generated into a temporary folder (or --workdir, kept). A run slower than --timeout is
killed and shown as `>T`; a run is also refused more than --mem-limit-gb of address space,
so a regression cannot take the machine down (it then shows as `killed`). Growth is linear
when the full size takes about twice the half size, in time and in memory over the ~10 MB
the binary needs anyway. --quick is a smoke test: every class at a thousandth of its sizes.

The classes:
  tolerations      one Pod with N tolerations (shadowed-toleration compared every pair);
                   1% exact duplicates, 1% shadowed by an earlier `Exists`
  map-keys         one Pod whose nodeSelector has N keys (duplicate-key, yaml-type-mismatch,
                   unknown-field were quadratic in a mapping's size); 0.1% duplicated keys
                   and 0.1% `yes` values
  unknown-fields   one Pod with a toleration of N unknown fields (unknown-field's findings)
  long-line        a minified `kubectl get -o json` List on one line (columns)
  flow-line        a List of Deployments written as one line of flow YAML (plain scalars,
                   not JSON), 15 and 30 MB: linted, two findings per item
  flow-line-max    the same at 45 and 60 MB (under the default 64 MiB file limit): its tree
                   would exceed the memory budget of one document; reported, not linted
  flow-dense       60 MB of one-character scalars on one line (`[0,0,0,...]`): a tree
                   of about 30 million nodes, over the memory budget; reported, not built
  docs-full        10^6 tiny Pods in one 55 MB file, with --full-parse
  docs-template    the same with a `# {{ x }}` comment line at the top, default mode
  alias-full       documents each just under the alias-expansion budget (billion laughs
                   of 98,995 nodes), with --full-parse
  alias-default    the same, in the default mode
  tf-for-each      a Terraform node group whose literal `for_each` map has N entries (issue 36,
                   row 5: 40,000 took 16 s, 200,000 over 120 s); a pool per entry

Issue 36's classes (a hostile pull request's files; each generator writes a folder with its
own `.taintlint.yaml` where the case needs one, and the run reads that config):
  dup-tolerations  one Pod with N identical tolerations: N-1 `shadowed-toleration` findings,
                   each with a fix (`fix::remove_item` checked the whole list per finding)
  dup-tolerations-fix
                   the same with `--fix --unsafe-fixes` (the fixes are planned and applied
                   in one pass; the file is rewritten, so it is generated again each run)
  policy-glob      8 tolerations whose keys are N bytes of `a` against a `policies:` glob
                   of 1,000 `a` and a `b` between stars (the old matcher backtracked at every
                   position of the key: pattern x key)
  star-glob        a `per-file-ignores` glob of N `*` (globset panicked compiling it: exit
                   101); now an `invalid-config` finding at the glob, the files still linted
  server-long-line the language server given one buffer, a minified one-line JSON Pod with
                   N tolerations: the time from opening it to its diagnostics (positions were
                   counted from the line's start for each one)
  ns-tolerations   a Namespace whose PodTolerationRestriction default tolerations and allow
                   list hold N distinct tolerations each (under the API server's 256 KiB
                   annotation limit), and 40 Pods in it: the merge into each pod was pairwise
  ns-tolerations-over
                   the same over the limit (20,000: 1.9 MB took 12 s for one pod): now one
                   `invalid-namespace-scheduling-annotation` with the API server's message
  distinct-pools   N Nodes each with a label and a taint of its own, N Deployments each
                   selecting one and tolerating its taint with the wrong value (4,000: 97 s,
                   growing as n^2.5): N `unschedulable-workload`
  lsp-length       the language server sent `Content-Length: N` and a few bytes: it must
                   refuse the message without allocating N bytes and exit cleanly
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import gen_xref
import measure

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pod_head(name):
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n"
        "spec:\n  containers:\n    - name: c\n      image: nginx:1.27\n"
    )


def gen_tolerations(path, n):
    with open(path, "w") as f:
        f.write(pod_head("many-tolerations"))
        f.write("  tolerations:\n")
        for i in range(n):
            if i % 100 == 50:
                # An exact duplicate of an earlier one.
                f.write(f"    - {{key: k{i - 7}, operator: Equal, value: v, effect: NoSchedule}}\n")
            elif i % 100 == 10:
                f.write(f"    - {{key: s{i}, operator: Exists, effect: NoSchedule}}\n")
            elif i % 100 == 20:
                # Shadowed by the `Exists` of ten items before.
                f.write(f"    - {{key: s{i - 10}, operator: Equal, value: x, effect: NoSchedule}}\n")
            else:
                f.write(f"    - {{key: k{i}, operator: Equal, value: v, effect: NoSchedule}}\n")


def gen_map_keys(path, n):
    with open(path, "w") as f:
        f.write(pod_head("many-keys"))
        f.write("  nodeSelector:\n")
        for i in range(n):
            if i % 1000 == 500:
                f.write(f"    k{i - 3}: again\n")
            elif i % 1000 == 600:
                f.write(f"    k{i}: yes\n")
            else:
                f.write(f"    k{i}: v\n")


def gen_unknown_fields(path, n):
    with open(path, "w") as f:
        f.write(pod_head("many-fields"))
        f.write("  tolerations:\n    - key: a\n      operator: Exists\n")
        for i in range(n):
            f.write(f"      f{i}: x\n")


def deployment_json(i):
    return (
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web-%d","namespace":"shop",'
        '"labels":{"app":"web-%d"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web-%d"}},'
        '"template":{"metadata":{"labels":{"app":"web-%d"}},"spec":{"tolerations":[{"key":"dedicated",'
        '"operator":"Exists","value":"web","effect":"NoSchedule"}],"containers":[{"name":"web",'
        '"image":"nginx:1.27","ports":[{"containerPort":80}]}]}}}}' % (i, i, i, i)
    )


def deployment_flow(i):
    return (
        "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web-%d, namespace: shop, "
        "labels: {app: web-%d}}, spec: {replicas: 2, selector: {matchLabels: {app: web-%d}}, "
        "template: {metadata: {labels: {app: web-%d}}, spec: {tolerations: [{key: dedicated, "
        "operator: Exists, value: web, effect: NoSchedule}], containers: [{name: web, "
        "image: 'nginx:1.27', ports: [{containerPort: 80}]}]}}}}" % (i, i, i, i)
    )


def gen_list(path, megabytes, item, head, sep, tail):
    limit = int(megabytes * 1_000_000)
    with open(path, "w") as f:
        f.write(head)
        size, i = len(head), 0
        while True:
            s = item(i)
            if size + len(s) + len(sep) + len(tail) > limit:
                break
            if i:
                f.write(sep)
                size += len(sep)
            f.write(s)
            size += len(s)
            i += 1
        f.write(tail)


def gen_long_line(path, mb):
    gen_list(path, mb, deployment_json, '{"apiVersion":"v1","kind":"List","items":[', ",", "]}\n")


def gen_flow_line(path, mb):
    gen_list(path, mb, deployment_flow, "{apiVersion: v1, kind: List, items: [", ", ", "]}\n")


def gen_flow_dense(path, mb):
    n = int(mb * 1_000_000) // 2
    with open(path, "w") as f:
        f.write("{apiVersion: v1, kind: ConfigMap, x: [")
        chunk = "0," * 100_000
        for _ in range(n // 100_000):
            f.write(chunk)
        f.write("0]}\n")


def gen_flow_indent(path, n):
    # n flow collections, each with its lines at column 0 (go-yaml reads them; saphyr wants
    # them indented): one scan indents them all, and the text is parsed again once.
    with open(path, "w") as f:
        f.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nx:\n")
        for i in range(n):
            f.write(f"  k{i}: [\n1,\n\t2]\n")


def gen_docs(path, n, template):
    with open(path, "w") as f:
        if template:
            f.write("# {{ x }}\n")
        for i in range(n):
            f.write(f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i:07d}\n")


def laughs():
    """One document whose aliases expand to 98,995 nodes, just under the budget (100,000)."""
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: laughs", "data:"]
    lines.append("  a: &a [x, x, x, x, x, x, x, x, x, x]")
    prev = "a"
    for name in "bcd":
        lines.append(f"  {name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
        prev = name
    # Aliases of a (11 nodes), b (111), c (1,111) and d (11,111): 110 + 1,110 + 11,110 in b,
    # c and d, then 7 of d and 8 of c in e: 98,995 in all.
    lines.append("  e: [" + ", ".join(["*d"] * 7 + ["*c"] * 8) + "]")
    return "\n".join(lines) + "\n"


def gen_alias(path, n):
    doc = laughs()
    with open(path, "w") as f:
        for _ in range(n):
            f.write("---\n" + doc)


def gen_tf_for_each(path, n):
    with open(path, "w") as f:
        f.write('resource "aws_eks_node_group" "g" {\n  for_each = {\n')
        for i in range(n):
            f.write(f'    k{i} = {{ team = "t{i % 97}", max = {i % 9 + 1} }}\n')
        f.write("  }\n  node_group_name = each.key\n  labels = { team = each.value.team }\n")
        f.write("  scaling_config {\n    max_size = each.value.max\n  }\n}\n")


def gen_ns_tolerations(path, n, pods=40):
    """A Namespace whose default tolerations and allow list are N distinct tolerations each
    (PodTolerationRestriction on), and `pods` Pods in it."""
    in_folder(path, "admission-plugins: [PodTolerationRestriction]\n")
    entries = ",".join('{"key":"example.com/k%05d","operator":"Exists"}' % i for i in range(n))
    added = ('{"key":"node.kubernetes.io/not-ready","operator":"Exists"},'
             '{"key":"node.kubernetes.io/unreachable","operator":"Exists"}')
    with open(os.path.join(path, "namespace.yaml"), "w") as f:
        f.write("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: big\n  annotations:\n"
                f"    scheduler.alpha.kubernetes.io/defaultTolerations: '[{entries}]'\n"
                f"    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{added},{entries}]'\n")
        for i in range(pods):
            f.write(f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: big\n"
                    "spec:\n  containers: [{name: c, image: nginx:1.27}]\n  nodeSelector: {pool: p}\n"
                    f"  tolerations:\n    - {{key: example.com/k{i * 7 % max(n, 1):05d}, operator: Exists}}\n")


def gen_distinct_pools(path, n):
    """Issue 36 row 6: N Nodes, each its own label and taint, and N Pods (Deployments) each
    selecting one and tolerating its taint with the wrong value (bench/gen_xref.py)."""
    in_folder(path, "{}\n")
    gen_xref.generate_distinct(path, n, n, False, False)


def gen_tolerated_near(path, n):
    """N Nodes, each its own label `role: rI` and taint `dedicated=vI`, and N Deployments each
    tolerating its taint but selecting `rIx` (one slip from many pools' values): every pod is
    unschedulable and every class tolerated by key, so the near miss was scored against every
    pool (quadratic)."""
    in_folder(path, "{}\n")
    for i in range(n):
        d = os.path.join(path, "examples", f"ex{i}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "node.yaml"), "w") as f:
            f.write(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{role: r{i}}}\n"
                    f"spec:\n  taints:\n    - {{key: dedicated, value: v{i}, effect: NoSchedule}}\n")
        with open(os.path.join(d, "app.yaml"), "w") as f:
            f.write(deployment_near(i))


def deployment_near(i):
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\nspec:\n"
            f"  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata: {{labels: {{app: a}}}}\n"
            f"    spec:\n      nodeSelector: {{role: r{i}x}}\n"
            f"      tolerations: [{{key: dedicated, value: v{i}, effect: NoSchedule}}]\n"
            f"      containers: [{{name: c, image: i}}]\n")


def gen_many_clusters(path, n):
    """N folders, each an eksctl ClusterConfig (a cluster the files define) and a Deployment
    missing its pool: N inferred clusters, each judged alone (every inventory once shared a
    copy of the run's list of stored places: quadratic memory)."""
    in_folder(path, "{}\n")
    for i in range(n):
        d = os.path.join(path, "examples", f"ex{i}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "cluster.yaml"), "w") as f:
            f.write(f"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c{i}\n"
                    f"  region: us-east-1\nmanagedNodeGroups:\n  - name: ng{i}\n    labels: {{role: r{i}}}\n"
                    f"    taints:\n      - {{key: dedicated, value: v{i}, effect: NoSchedule}}\n")
        with open(os.path.join(d, "app.yaml"), "w") as f:
            f.write(deployment_near(i))


def gen_dup_tolerations(path, n):
    with open(path, "w") as f:
        f.write(pod_head("duplicate-tolerations"))
        f.write("  tolerations:\n")
        f.write("    - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}\n" * n)


def in_folder(path, config):
    """Makes `path` a folder holding `config` as its `.taintlint.yaml` (and a `.git`, so it
    is a repository): the run then reads that config."""
    os.makedirs(os.path.join(path, ".git"), exist_ok=True)
    with open(os.path.join(path, ".taintlint.yaml"), "w") as f:
        f.write(config)


def gen_policy_glob(path, key_bytes):
    in_folder(path, "policies:\n  - taint: \"*" + "a" * 1000 + "b*\"\n    namespaces: [\"*" + "a" * 1000 + "b*\"]\n")
    with open(os.path.join(path, "pod.yaml"), "w") as f:
        f.write(pod_head("long-keys"))
        f.write("  tolerations:\n")
        for i in range(8):
            f.write(f"    - {{key: {'a' * key_bytes}b{i}, operator: Exists, effect: NoSchedule}}\n")


def gen_star_glob(path, n):
    # An explicit key (`? …`): YAML allows an implicit key of at most 1,024 characters.
    in_folder(path, "per-file-ignores:\n  ? \"" + "*" * n + "\"\n  : [shadowed-toleration]\n")
    with open(os.path.join(path, "pod.yaml"), "w") as f:
        f.write(pod_head("p"))


def one_line_pod(n):
    tolerations = ",".join(
        '{"key":"k%d","operator":"Equal","value":"v","effect":"NoSchedule"}' % i for i in range(n)
    )
    return (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"long-line"},"spec":{"containers":'
        '[{"name":"c","image":"nginx:1.27"}],"tolerations":[' + tolerations + "]}}\n"
    )


def gen_server_long_line(path, n):
    os.makedirs(os.path.join(path, ".git"), exist_ok=True)
    with open(os.path.join(path, "pod.json"), "w") as f:
        f.write(one_line_pod(n))


def lsp_frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def lsp_read(stream):
    """One message from the server, or None at the end of its output."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def run_server(binary, folder, timeout, mem_limit):
    """Opens the folder's pod.json in `taintlint server`; the time until its diagnostics."""
    text = open(os.path.join(folder, "pod.json")).read()
    uri = "file://" + os.path.join(folder, "pod.json")
    init = {"processId": None, "rootUri": "file://" + folder, "capabilities": {}}
    stdin = lsp_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    stdin += lsp_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    stdin += lsp_frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}})
    p = subprocess.Popen([binary, "server", "--debounce-ms", "0"], cwd=folder,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         preexec_fn=mem_limit)
    start = time.monotonic()
    p.stdin.write(stdin)
    p.stdin.flush()
    result = {}

    def read():
        while True:
            m = lsp_read(p.stdout)
            if m is None:
                return
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                result["at"] = time.monotonic()
                result["n"] = len(m["params"]["diagnostics"])
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    secs = result["at"] - start if "at" in result else None
    rss = None
    try:
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM"):
                    rss = int(line.split()[1]) / 1024
    except OSError:
        pass
    p.kill()
    p.wait()
    if secs is None:
        return None, rss, None, "timeout"
    return secs, rss, result["n"], "diagnostics published"


def run_lsp_length(binary, length, timeout, mem_limit):
    """Sends `Content-Length: length` and a short body; the exit code and peak memory."""
    init = lsp_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    cmd = [binary, "server"]
    with tempfile.TemporaryFile() as stdin:
        stdin.write(init + b"Content-Length: %d\r\n\r\n{\"jsonrpc\":\"2.0\"}" % length)
        stdin.seek(0)
        r = measure.run(cmd, timeout=timeout, preexec_fn=mem_limit, stdin=stdin)
    if r.timed_out:
        return None, None, None, "timeout"
    err = r.stderr.decode(errors="replace").strip().splitlines()
    note = f"exit {r.code}" + (f": {err[-1][:80]}" if err else "")
    return r.seconds, r.rss_mb, None, note


# name: (generator, (half, full), unit, extra arguments); a generator whose class name is in
# FOLDERS writes a folder (with its config), not a file.
CLASSES = {
    "tolerations": (gen_tolerations, (50_000, 100_000), "tolerations", []),
    "map-keys": (gen_map_keys, (50_000, 100_000), "keys", []),
    "unknown-fields": (gen_unknown_fields, (50_000, 100_000), "fields", []),
    "long-line": (gen_long_line, (0.88, 1.76), "MB", []),
    "flow-line": (gen_flow_line, (15, 30), "MB", []),
    "flow-line-max": (gen_flow_line, (45, 60), "MB", []),
    "flow-dense": (gen_flow_dense, (30, 60), "MB", []),
    "flow-indent": (gen_flow_indent, (100_000, 200_000), "collections", []),
    "docs-full": (lambda p, n: gen_docs(p, n, False), (500_000, 1_000_000), "documents", ["--full-parse"]),
    "docs-template": (lambda p, n: gen_docs(p, n, True), (500_000, 1_000_000), "documents", []),
    "alias-full": (gen_alias, (500, 1_000), "documents", ["--full-parse"]),
    "alias-default": (gen_alias, (2_500, 5_000), "documents", []),
    "tf-for-each": (gen_tf_for_each, (40_000, 200_000), "entries", []),
    "dup-tolerations": (gen_dup_tolerations, (125_000, 250_000), "tolerations", []),
    "dup-tolerations-fix": (gen_dup_tolerations, (125_000, 250_000), "tolerations", ["--fix", "--unsafe-fixes"]),
    "ns-tolerations": (gen_ns_tolerations, (1_250, 2_500), "tolerations", []),
    "ns-tolerations-over": (gen_ns_tolerations, (5_000, 20_000), "tolerations", []),
    "distinct-pools": (gen_distinct_pools, (2_000, 4_000), "pools x pods", []),
    "tolerated-near": (gen_tolerated_near, (4_000, 8_000), "pools x pods", []),
    "many-clusters": (gen_many_clusters, (4_000, 8_000), "clusters", []),
    "policy-glob": (gen_policy_glob, (100_000, 200_000), "bytes a key", []),
    "star-glob": (gen_star_glob, (50_000, 100_000), "stars", []),
    "server-long-line": (gen_server_long_line, (10_000, 20_000), "tolerations", []),
    "lsp-length": (None, (8_000_000_000, 18446744073709551615), "bytes", []),
}

# The file name's extension, when not `.yaml`.
EXTENSION = {"tf-for-each": ".tf"}
FOLDERS = {"policy-glob", "star-glob", "server-long-line", "ns-tolerations", "ns-tolerations-over",
           "distinct-pools", "tolerated-near", "many-clusters"}
#: Classes that talk to `taintlint server` instead of running `check`.
SERVER = {"server-long-line": run_server, "lsp-length": run_lsp_length}
#: Classes whose input changes when linted (`--fix`): generated again for every run.
REWRITTEN = {"dup-tolerations-fix"}


def run(binary, path, extra, timeout, limit, folder=False):
    # A folder holds its own config (read as a pull request's would be); a file is linted
    # alone.
    cmd = [binary, "check", "." if folder else path, "--format", "json"]
    cmd += ([] if folder else ["--isolated"]) + extra
    r = measure.run(cmd, timeout=timeout, preexec_fn=limit, capture=True, cwd=path if folder else None)
    if r.timed_out:
        return None, None, None, "timeout"
    status = "ok"
    if r.code not in (0, 1):
        status = "killed" if r.code < 0 else f"exit {r.code}"
    stdout = r.stdout.decode(errors="replace")
    findings = stdout.count('"rule":')
    rules = sorted(set(re.findall(r'"rule": ?"([a-z-]+)"', stdout)))
    note = status if status != "ok" else ", ".join(rules[:4]) + (" ..." if len(rules) > 4 else "")
    return r.seconds, r.rss_mb, findings, note


def du(path):
    """Bytes of a file, or of the files in a folder."""
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the binary to measure (default: cargo build --release)")
    ap.add_argument("--only", help="comma-separated classes (default: all)")
    ap.add_argument("--sizes", choices=["both", "half", "full"], default="both")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--mem-limit-gb", type=float, default=8)
    ap.add_argument("--workdir", type=measure.output_dir, help="generate the inputs here and keep them")
    ap.add_argument("--quick", action="store_true", help="a thousandth of the sizes (smoke test)")
    args = ap.parse_args()
    binary = args.bin
    if not binary:
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, "target", "release", "taintlint")
    binary = os.path.abspath(binary)
    names = args.only.split(",") if args.only else list(CLASSES)
    for n in names:
        if n not in CLASSES:
            sys.exit(f"unknown class {n}; classes: {', '.join(CLASSES)}")
    mem_limit = int(args.mem_limit_gb * (1 << 30)) if args.mem_limit_gb else 0

    def limit():
        if mem_limit:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))

    tmp = None
    if args.workdir:
        work = args.workdir
        os.makedirs(work, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory()
        work = tmp.name
    print(f"| class | size | input | time | peak RSS | findings | rules / status |")
    print(f"|---|---:|---:|---:|---:|---:|---|")
    for name in names:
        gen, (half, full), unit, extra = CLASSES[name]
        if args.quick and name != "lsp-length":
            half, full = (round(x / 1000, 4) if unit == "MB" else max(1, x // 1000)
                          for x in (half, full))
        sizes = {"both": (half, full), "half": (half,), "full": (full,)}[args.sizes]
        for size in sizes:
            folder = name in FOLDERS
            path = os.path.join(work, f"{name}-{size}" + ("" if folder else EXTENSION.get(name, ".yaml")))
            fresh = not args.workdir or name in REWRITTEN or not os.path.exists(path)
            if gen and fresh:
                gen(path, size)
            mb = du(path) / 1e6 if gen else 0
            if name in SERVER:
                secs, rss, findings, note = SERVER[name](
                    binary, path if gen else size, args.timeout, limit)
            else:
                secs, rss, findings, note = run(binary, path, extra, args.timeout, limit, folder)
            t = f"{secs:.2f} s" if secs is not None else f">{args.timeout:.0f} s"
            m = f"{rss:.0f} MB" if rss is not None else "?"
            shown = f"{size:,}" if isinstance(size, int) else f"{size}"
            print(
                f"| {name}{' ' + ' '.join(extra) if extra else ''} | {shown} {unit} | {mb:.2f} MB | {t} | {m} | "
                f"{findings if findings is not None else '?'} | {note} |",
                flush=True,
            )
            if gen and not args.workdir:
                shutil.rmtree(path) if folder else os.remove(path)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
