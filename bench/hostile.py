#!/usr/bin/env python3
"""Hostile input at scale (issue 22): each class of input that used to take minutes or
gigabytes, at two sizes (half and full), with its wall time and peak RSS (the child's own,
from `wait4`: bench/measure.py). Run by hand, never by CI:

    python3 bench/hostile.py [--bin target/release/taintlint] [--only CLASS,...]
                             [--timeout 120] [--mem-limit-gb 8] [--workdir DIR] [--quick]
                             [--sizes both|half|full] [--scale X] [--escapes]

Without --bin it runs `cargo build --release` first (and nothing else is built). The inputs
are generated into a temporary folder (or --workdir, kept). A run slower than --timeout is
killed and shown as `>T`; a run is also refused more than --mem-limit-gb of address space,
so a regression cannot take the machine down (it then shows as `killed`). Growth is linear
when the full size takes about twice the half size, in time and in memory over the ~10 MB
the binary needs anyway. --quick is a smoke test: every class at a thousandth of its sizes;
--scale multiplies every size (4: four times the half and full sizes). --escapes runs the
escape probes instead (below) and exits 1 when a name got out.

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

Issue 49's classes (each a hole a hostile pull request's files could open):
  tf-count-range   ~200 bytes of `.tf` making N pools: `for_each = toset(range(N))` in one
                   `aws_eks_node_group` (labels from `each.key`). The evaluator's meter (2 M
                   units + 8 a byte) lets about 650,000 pools through: past that (and 4x) the
                   `for_each` is unknown and the run is cheap again
  tf-count-range-for
                   the same through `toset([for i in range(N) : tostring(i)])` (about 4 units
                   a pool: the meter stops it near 350,000; at 1,000,000 it is one pool `[*]`)
  tf-count         `count = N` with `count.index` in the body: one pool past 256 (a control;
                   it did not open the hole)
  tf-hidden-keys-in
                   an object constructor of N keys after a `for` expression's `in`
                   (`[for k, v in {k0=1,…} : k]`), where the key pre-scan (which looks only at
                   `{` after `=`, `(`, `[`, `,`, `:`, `?`, `{`) does not count it: hcl-edit's
                   parse is quadratic in its keys
  tf-hidden-keys-interp
                   the object inside a `"${ {k0=1,…} }"` interpolation (the pre-scan skips strings)
  tf-hidden-keys-json
                   a `.tf.json` file whose JSON string is that interpolation
  tf-repeat-keys   N objects of 4,990 keys (under the pre-scan's 5,000), with 199 keys written
                   twice spread over their ends: every repeat is a parse of the file again (up
                   to 200), each quadratic in the objects
  tf-func-work     a 1 MiB string and `[for i in range(N) : upper(local.big)]` read by a node
                   group's label: N MiB made (4,000 aborted the process)
  tf-cond-work     `[for i in range(N) : local.l == local.l ? 1 : 0]` over a list of 100,000
                   strings: each conditional compares the whole list
  tf-contains-work the same with `contains(local.l, "zz")`
  flow-reindent    a flow sequence opened at column 100,000 (its key's indentation) and
                   continued on N lines at column 0: each line is indented to the bracket's
                   column before the text is parsed again (N x 100,000 bytes)
  quoted-mends     N documents of 66 KB, each ending in 900 double-quoted scalars with go-yaml's
                   `\'` escape: one mend and one parse of the document (up to its error) per
                   scalar; dense one-character annotations before them make each parse long
  line-sep-retries one such document and N quoted annotation keys holding a U+2028 or U+0085:
                   go-yaml reads them as text; the breaks made LFs break the keys, and the
                   whole read (900 mends) runs again once per break, up to 16 (a valid file at
                   16; past 16 the read fails and the file is read again from the start)
  diff-big         `check --diff --unsafe-fixes` on N MB of tolerations each with two fixes on
                   its line (`operator: equal`, `effect: noSchedule`): the diff of a file whose
                   every line changed (duplicate tolerations, each removal a whole line, give an
                   easy diff: 0.7 s at 4.5 MB)
  ignore-globs     a config whose `per-file-ignores` has N globs (`x/I/*.yaml`) matching nothing,
                   and N empty YAML files: every glob asked about every file, N findings
  ignore-globs-big the same config with N globs (2.5 MB at 60,000) and one file
  server-edits     the language server given a 2 MB Pod of é and CJK lines, then one
                   `didChange` of N ranged insertions (an editor's replace-all) and a hover: the
                   time from the change to the hover's answer

The escape probes (--escapes; issue 49's mermaid-names and hover-names): Nodes and
Deployments whose `metadata.name` is HTML, a link, backticks, `&`, `#` or `"`, and a Terraform
node group whose `for_each` keys are those names (a pool's address). It runs `matrix --format
mermaid` and `--format markdown`, and the server's hovers on each Deployment's toleration and
nodeSelector entry, and prints each line where a raw `<` (outside code spans and `<code>`; any
`<` in Mermaid, whose labels are HTML), a link or an odd number of backticks got through.
"""
import argparse
import json
import os
import queue
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


# Issue 49's classes: what a hostile pull request can commit, one per hole.


def eks_group(name, head, labels):
    """An `aws_eks_node_group` with `head` (its `for_each` or `count` line) and `labels`."""
    return (f'resource "aws_eks_node_group" "{name}" {{\n  {head}\n  cluster_name    = "c"\n'
            f'  node_group_name = "g"\n  labels          = {labels}\n'
            "  scaling_config {\n    max_size = 1\n  }\n}\n")


def gen_tf_count_range(path, n, form="set"):
    """About 200 bytes making N pools: `for_each = toset(range(N))` (`set`), the same through a
    `for` expression (`for`), or `count = N` with `count.index` in the body (`count`)."""
    head = {
        "set": f"for_each        = toset(range({n}))",
        "for": f"for_each        = toset([for i in range({n}) : tostring(i)])",
        "count": f"count           = {n}",
    }[form]
    labels = '{ team = "t${count.index}" }' if form == "count" else "{ team = each.key }"
    with open(path, "w") as f:
        f.write(eks_group("g", head, labels))


def tf_keys(n):
    """The items of an object of N keys, as short as they come (`k0=1,k1=1,…`)."""
    return ",".join(f"k{i}=1" for i in range(n))


def gen_tf_hidden_keys(path, n, shape):
    """An object constructor of N keys where a pre-scan for `= {…}` objects does not look:
    after a `for` expression's `in` (`in`), inside a `"${ {…} }"` interpolation (`interp`),
    and in a `.tf.json` file, inside a JSON string that is such an interpolation (`json`)."""
    keys = tf_keys(n)
    with open(path, "w") as f:
        if shape == "in":
            f.write("locals {\n  x = [for k, v in {" + keys + "} : k]\n}\n")
        elif shape == "interp":
            f.write('locals {\n  x = "${ {' + keys + '} }"\n}\n')
        else:
            json.dump({"locals": {"x": "${ {" + keys + "} }"}}, f)
            f.write("\n")


def gen_tf_repeat_keys(path, n, keys=4_990, repeats=199):
    """N objects of `keys` keys each (just under the 5,000 the parser is allowed), the last
    `repeats` keys spread over the ends of the objects each a key written again: every
    repeat is a parse of the file again (hcl-edit refuses a repeated key; it is renamed and
    the file parsed anew), each parse quadratic in the objects' sizes."""
    per = [repeats // n + (1 if o < repeats % n else 0) for o in range(n)]
    with open(path, "w") as f:
        f.write("locals {\n")
        for o in range(n):
            items = [f"k{i:04d}=1" for i in range(keys - per[o])]
            items += [f"k{i:04d}=2" for i in range(per[o])]
            f.write(f"  o{o} = {{" + ",".join(items) + "}\n")
        f.write("}\n")


def gen_tf_func_work(path, n):
    """A 1 MiB string and a `for` of N `upper()` of it, read by a node group's label: N MiB
    made by a file of 1 MiB."""
    big = "a" * ((1 << 20) - 16)
    with open(path, "w") as f:
        f.write(f'locals {{\n  big = "{big}"\n  x   = [for i in range({n}) : upper(local.big)]\n}}\n\n')
        f.write(eks_group("g", "", "{ a = length(local.x) }"))


def gen_tf_cond_work(path, n, form="cond", length=100_000):
    """A list of `length` strings and a `for` of N steps each over the whole list: a
    conditional comparing it with itself (`cond`), or a `contains` (`contains`)."""
    step = 'local.l == local.l ? 1 : 0' if form == "cond" else 'contains(local.l, "zz")'
    with open(path, "w") as f:
        f.write(f"locals {{\n  l = [for i in range({length}) : tostring(i)]\n"
                f"  x = [for i in range({n}) : {step}]\n}}\n\n")
        f.write(eks_group("g", "", "{ a = length(local.x) }"))


def gen_flow_reindent(path, n, column=100_000):
    """A flow sequence opened at column `column` (the key's indentation) and continued on N
    short lines at column 0: go-yaml reads them; each is indented to the opening bracket's
    column before saphyr parses the text again (N x column bytes)."""
    with open(path, "w") as f:
        f.write(pod_head("reindent"))
        f.write("  nodeSelector:\n" + " " * column + "a: [\n")
        f.write("1,\n" * n)
        f.write("1]\n")


def annotated_head(name):
    """A Pod's first lines, up to its `annotations:` (its spec comes after them)."""
    return f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations:\n"


def escaped_quote_pod(name, quoted, size, tail=""):
    """A Pod of about `size` bytes: annotations (one-character values) up to its size, then
    `quoted` double-quoted values holding go-yaml's `\\'` escape (saphyr refuses it: each is
    one mend and one parse of the document again, each parse reading everything before it),
    then `tail` (more annotation lines)."""
    head = annotated_head(name)
    end = "spec:\n  containers: [{name: c, image: nginx:1.27}]\n"
    mends = "".join(f"    q{i:03d}: \"\\'\"\n" for i in range(quoted))
    room = size - len(head) - len(end) - len(mends) - len(tail.encode())
    pad, i = [], 0
    while room > 0:
        line = f"    a{i}: b\n"
        pad.append(line)
        room -= len(line)
        i += 1
    return head + "".join(pad) + mends + tail + end


def gen_quoted_mends(path, n, quoted=900, size=66_000):
    """N documents of about 66 KB, each with 900 `\\'` escapes at its end (the mends a
    document of that size may make: 64 MiB of parses over its size)."""
    with open(path, "w") as f:
        f.write("---\n".join(escaped_quote_pod(f"p{d}", quoted, size) for d in range(n)))


def gen_line_sep_retries(path, n, quoted=900, size=66_000):
    """One document as `quoted-mends`, then N annotation keys (double-quoted) holding a
    U+2028 or U+0085: go-yaml reads them as the key's text; saphyr is given each as a line
    break (one that ends a comment), which breaks the quoted key, and the whole read (900
    mends) runs again with the break nearest the error kept, up to 16 times."""
    keys = "".join(f'    "s{i}' + ("\u2028" if i % 2 else "\u0085") + 'x": v\n' for i in range(n))
    with open(path, "w", encoding="utf-8") as f:
        f.write(escaped_quote_pod("line-separators", quoted, size, keys))


def gen_diff_big(path, mb):
    """A Pod of `mb` MB of distinct tolerations, each with two fixable findings on its line
    (`operator: equal`, `effect: noSchedule`): `--diff` prints a diff where every line
    changed (Myers: the lines times the changes)."""
    limit = int(mb * 1_000_000)
    with open(path, "w") as f:
        f.write(pod_head("case-fixes"))
        f.write("  tolerations:\n")
        size, i = 0, 0
        while size < limit:
            line = f"    - {{key: k{i:06d}, operator: equal, value: v, effect: noSchedule}}\n"
            f.write(line)
            size += len(line)
            i += 1


def gen_ignore_globs(path, n, files=None):
    """A config whose `per-file-ignores` has N globs that match no file, and `files` (N)
    empty YAML files: every glob is asked about every file, and each unmatched glob is a
    finding."""
    files = n if files is None else files
    in_folder(path, "per-file-ignores:\n" + "".join(
        f'  "x/{i}/*.yaml": [shadowed-toleration]\n' for i in range(n)))
    d = os.path.join(path, "m")
    os.makedirs(d, exist_ok=True)
    for i in range(files):
        open(os.path.join(d, f"f{i}.yaml"), "w").close()


def server_edits_text(mb):
    """A Pod of `mb` MB, most of it comment and annotation lines of é and CJK (UTF-16
    positions differ from bytes on every line)."""
    out = [annotated_head("non-ascii")]
    size, i = sum(len(s.encode()) for s in out), 0
    while size < mb * 1_000_000:
        line = f"    # é 日本語のコメント {i}\n    a{i}: \"café 中文 {i}\"\n"
        out.append(line)
        size += len(line.encode())
        i += 1
    out.append("spec:\n  containers: [{name: c, image: nginx:1.27}]\n"
               "  tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]\n")
    return "".join(out)


def gen_server_edits(path, n, mb=2):
    """A folder with a 2 MB non-ASCII Pod (`pod.yaml`) and `changes.json`: N ranged
    insertions, one into each of N comment lines (an editor's replace-all)."""
    os.makedirs(os.path.join(path, ".git"), exist_ok=True)
    text = server_edits_text(mb)
    with open(os.path.join(path, "pod.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    lines = text.split("\n")
    comments = [i for i, l in enumerate(lines) if l.startswith("    # ")]
    every = max(1, len(comments) // max(n, 1))
    changes = []
    for line in comments[::every][:n]:
        # After `    # `: the same place in UTF-16 and in bytes.
        at = {"line": line, "character": 6}
        changes.append({"range": {"start": at, "end": at}, "text": "é"})
    with open(os.path.join(path, "changes.json"), "w") as f:
        json.dump(changes, f)


class Lsp:
    """`taintlint server` in `folder`, its messages read by a thread into a queue."""

    def __init__(self, binary, folder, mem_limit):
        self.q = queue.Queue()
        self.p = subprocess.Popen([binary, "server", "--debounce-ms", "0"], cwd=folder,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, preexec_fn=mem_limit)
        self.folder = folder

        def read():
            while True:
                m = lsp_read(self.p.stdout)
                self.q.put((time.monotonic(), m))
                if m is None:
                    return

        threading.Thread(target=read, daemon=True).start()

    def send(self, *msgs):
        self.p.stdin.write(b"".join(lsp_frame(m) for m in msgs))
        self.p.stdin.flush()

    def start(self, opened):
        """Initializes, and opens each (uri, languageId, text) of `opened`."""
        init = {"processId": None, "rootUri": "file://" + self.folder, "capabilities": {}}
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
                  {"jsonrpc": "2.0", "method": "initialized", "params": {}},
                  *({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                      "textDocument": {"uri": u, "languageId": lang, "version": 1, "text": t}}}
                    for u, lang, t in opened))

    def wait(self, want, timeout):
        """The first message `want` accepts and when it came; None after `timeout` seconds
        or at the end of the server's output."""
        end = time.monotonic() + timeout
        while True:
            try:
                at, m = self.q.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                return None
            if m is None:
                return None
            if want(m):
                return at, m

    def diagnostics(self, uri, timeout):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri, timeout)

    def hover(self, rid, uri, line, character, timeout):
        self.send({"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character}}})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def peak_mb(self):
        try:
            with open(f"/proc/{self.p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return None

    def stop(self):
        self.p.kill()
        self.p.wait()


def run_server_edits(binary, folder, timeout, mem_limit):
    """Opens the folder's pod.yaml in `taintlint server` and waits for its diagnostics; then
    sends one `didChange` with the content changes of changes.json and a hover: the time
    from the change to the hover's answer (every ranged change was applied to the whole
    text, positions counted from its start)."""
    path = os.path.join(folder, "pod.yaml")
    text = open(path, encoding="utf-8").read()
    changes = json.load(open(os.path.join(folder, "changes.json")))
    uri = "file://" + path
    s = Lsp(binary, folder, mem_limit)
    try:
        s.start([(uri, "yaml", text)])
        if s.diagnostics(uri, timeout) is None:
            return None, s.peak_mb(), None, "timeout (opening)"
        start = time.monotonic()
        s.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2}, "contentChanges": changes}})
        answer = s.hover(2, uri, 0, 0, timeout)
        rss = s.peak_mb()
    finally:
        s.stop()
    if answer is None:
        return None, rss, None, "timeout"
    return answer[0] - start, rss, len(changes), "hover answered"


# Names a pull request may give its objects, each a way out of a Markdown or Mermaid text:
# HTML, a link, backticks, entities (`!` first: the hovers list the first pools by name). Label values cannot hold them; a `metadata.name` in a
# file is just text to taintlint, and a Terraform map key (a pool's address) may be any string.
HOSTILE_NAMES = [
    '<a href="https://x">a</a>',
    "<img src=https://x/b.png>",
    "!tick`tick",
    "!`<img src=https://x/c.png>`",
    "](javascript:alert(1))",
    "a&amp;b",
    "#h1 ## x",
    'q"q',
]


def gen_escape_names(path):
    """Nodes and Deployments named with HOSTILE_NAMES (each Deployment selecting and
    tolerating the Nodes' pool), and a Terraform node group whose `for_each` keys are those
    names: the matrix and the hovers show them."""
    in_folder(path, "{}\n")
    docs = []
    for name in HOSTILE_NAMES:
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {json.dumps(name)}\n"
                    "  labels: {pool: gpu}\nspec:\n"
                    "  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]\n")
    with open(os.path.join(path, "nodes.yaml"), "w") as f:
        f.write("---\n".join(docs))
    docs = []
    for name in HOSTILE_NAMES:
        docs.append(f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {json.dumps(name)}\n"
                    "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n"
                    "    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector:\n        pool: gpu\n"
                    "      tolerations: [{key: dedicated, value: gpu, effect: NoSchedule}]\n"
                    "      containers: [{name: c, image: i}]\n")
    with open(os.path.join(path, "apps.yaml"), "w") as f:
        f.write("---\n".join(docs))
    keys = ",\n".join(f"    {json.dumps(n)} = 1" for n in HOSTILE_NAMES)
    with open(os.path.join(path, "main.tf"), "w") as f:
        f.write('resource "aws_eks_node_group" "g" {\n  for_each = {\n' + keys + "\n  }\n"
                '  cluster_name    = "c"\n  node_group_name = "g"\n  labels          = { pool = "gpu" }\n'
                '  taint {\n    key    = "dedicated"\n    value  = "gpu"\n    effect = "NO_SCHEDULE"\n  }\n'
                "  scaling_config {\n    max_size = 1\n  }\n}\n")


def escape_problems(text, markdown=True):
    """What of `text` escaped: a line with an odd number of backticks (a code span left open);
    in Markdown, a `<` (HTML) or `](` (a link) outside code spans and `<code>` tags; in a
    Mermaid chart (`markdown` false: its labels are HTML), any `<`."""
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        shown = line.strip()[:110]
        if line.count("`") % 2:
            out.append(f"line {no}: odd backticks: {shown}")
            continue
        if not markdown:
            if "<" in line:
                out.append(f"line {no}: raw '<': {shown}")
            continue
        bare = re.sub(r"`[^`]*`", "", line).replace("<code>", "").replace("</code>", "")
        if "<" in bare:
            out.append(f"line {no}: raw '<': {shown}")
        if "](" in bare:
            out.append(f"line {no}: link syntax: {shown}")
    return out


def run_escapes(binary, work, timeout):
    """The escape probes (issue 49, `mermaid-names` and `hover-names`): prints what of
    HOSTILE_NAMES reaches `matrix --format mermaid|markdown` and the server's hovers raw."""
    path = os.path.join(os.path.abspath(work), "escape-names")
    shutil.rmtree(path, ignore_errors=True)
    gen_escape_names(path)
    failed = 0
    for fmt in ("mermaid", "markdown"):
        r = measure.run([binary, "matrix", ".", "--format", fmt], timeout=timeout, capture=True, cwd=path)
        out = r.stdout.decode(errors="replace")
        problems = escape_problems(out, fmt == "markdown")
        print(f"## matrix --format {fmt}: exit {r.code}, {len(problems)} problem(s)")
        for p in problems:
            print("  " + p)
        failed += bool(problems)
    apps = os.path.join(path, "apps.yaml")
    text = open(apps).read()
    uri = "file://" + apps
    s = Lsp(binary, path, None)
    hovers = []
    try:
        s.start([(uri, "yaml", text)])
        s.diagnostics(uri, timeout)
        lines = text.split("\n")
        places = [(i, l.index("key:") + 5) for i, l in enumerate(lines) if "tolerations:" in l]
        places += [(i, l.index("pool:")) for i, l in enumerate(lines) if l.strip() == "pool: gpu"]
        rid = 10
        for line, character in places:
            # The hovers are worked out right after the diagnostics: asked again until one comes.
            for _ in range(20):
                rid += 1
                got = s.hover(rid, uri, line, character, timeout)
                result = got and got[1].get("result")
                if result or got is None:
                    break
                time.sleep(0.1)
            if result:
                hovers.append((line, result["contents"]["value"]))
    finally:
        s.stop()
    # The same hover text at each Deployment: each problem once, with the lines it was at.
    seen = {}
    for line, md in hovers:
        for p in escape_problems(md):
            seen.setdefault(p, []).append(str(line + 1))
    problems = [f"{p} (hovers at lines {', '.join(at)})" for p, at in seen.items()]
    print(f"## server hovers: {len(hovers)} of {len(places)} answered, {len(problems)} problem(s)")
    for p in problems:
        print("  " + p)
    failed += bool(problems) or not hovers
    shutil.rmtree(path, ignore_errors=True)
    return failed


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
    # Issue 49.
    "tf-count-range": (gen_tf_count_range, (300_000, 600_000), "pools", []),
    "tf-count-range-for": (lambda p, n: gen_tf_count_range(p, n, "for"), (150_000, 300_000), "pools", []),
    "tf-count": (lambda p, n: gen_tf_count_range(p, n, "count"), (1_000_000, 2_000_000), "copies", []),
    "tf-hidden-keys-in": (lambda p, n: gen_tf_hidden_keys(p, n, "in"), (40_000, 80_000), "keys", []),
    "tf-hidden-keys-interp": (lambda p, n: gen_tf_hidden_keys(p, n, "interp"), (40_000, 80_000), "keys", []),
    "tf-hidden-keys-json": (lambda p, n: gen_tf_hidden_keys(p, n, "json"), (40_000, 80_000), "keys", []),
    "tf-repeat-keys": (gen_tf_repeat_keys, (4, 8), "objects", []),
    "tf-func-work": (gen_tf_func_work, (2_000, 4_000), "MiB made", []),
    "tf-cond-work": (gen_tf_cond_work, (40_000, 80_000), "conditionals", []),
    "tf-contains-work": (lambda p, n: gen_tf_cond_work(p, n, "contains"), (40_000, 80_000), "calls", []),
    "flow-reindent": (gen_flow_reindent, (4_000, 8_000), "lines", []),
    "quoted-mends": (gen_quoted_mends, (16, 32), "documents", []),
    "line-sep-retries": (gen_line_sep_retries, (16, 32), "separators", []),
    "diff-big": (gen_diff_big, (4.5, 9), "MB", ["--diff", "--unsafe-fixes"]),
    "ignore-globs": (gen_ignore_globs, (8_000, 16_000), "globs x files", []),
    "ignore-globs-big": (lambda p, n: gen_ignore_globs(p, n, 1), (60_000, 120_000), "globs", []),
    "server-edits": (gen_server_edits, (8_000, 16_000), "changes", []),
}

# The file name's extension, when not `.yaml`.
EXTENSION = {"tf-for-each": ".tf", "tf-count-range": ".tf", "tf-count-range-for": ".tf", "tf-count": ".tf",
             "tf-hidden-keys-in": ".tf", "tf-hidden-keys-interp": ".tf", "tf-hidden-keys-json": ".tf.json",
             "tf-repeat-keys": ".tf", "tf-func-work": ".tf", "tf-cond-work": ".tf", "tf-contains-work": ".tf"}
FOLDERS = {"policy-glob", "star-glob", "server-long-line", "ns-tolerations", "ns-tolerations-over",
           "distinct-pools", "tolerated-near", "many-clusters", "ignore-globs", "ignore-globs-big",
           "server-edits"}
#: Classes that talk to `taintlint server` instead of running `check`.
SERVER = {"server-long-line": run_server, "lsp-length": run_lsp_length, "server-edits": run_server_edits}
#: Classes whose input changes when linted (`--fix`): generated again for every run.
REWRITTEN = {"dup-tolerations-fix"}
#: With --quick, the generators of the classes whose documents or objects are of a fixed size
#: (a thousandth of N is not a thousandth of the work): their inner sizes made small too.
QUICK = {
    "tf-repeat-keys": lambda p, n: gen_tf_repeat_keys(p, n, keys=50, repeats=5),
    "quoted-mends": lambda p, n: gen_quoted_mends(p, n, quoted=9, size=660),
    "line-sep-retries": lambda p, n: gen_line_sep_retries(p, n, quoted=9, size=660),
}


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
    if "--diff" in extra:
        # The diff is the output; the count of fixes is on standard error.
        fixed = re.search(r"would fix (\d+) finding", r.stderr.decode(errors="replace"))
        findings = int(fixed.group(1)) if fixed else 0
        note = status if status != "ok" else f"diff of {stdout.count(chr(10)):,} lines"
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
    ap.add_argument("--scale", type=float, default=1,
                    help="multiply every size by this (4: four times the half and full sizes)")
    ap.add_argument("--escapes", action="store_true",
                    help="run the escape probes (mermaid-names, hover-names) instead of the classes")
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

    if args.escapes:
        with tempfile.TemporaryDirectory() as t:
            if args.workdir:
                os.makedirs(args.workdir, exist_ok=True)
            sys.exit(1 if run_escapes(binary, args.workdir or t, args.timeout) else 0)

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
        if args.quick and name in QUICK:
            gen = QUICK[name]
        if args.quick and name != "lsp-length":
            half, full = (round(x / 1000, 4) if unit == "MB" else max(1, x // 1000)
                          for x in (half, full))
        if args.scale != 1 and name != "lsp-length":
            half, full = (x * args.scale if unit == "MB" else int(x * args.scale) for x in (half, full))
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
