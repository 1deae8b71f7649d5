#!/usr/bin/env python3
"""The language server's latency and memory (issue 31). Run by hand, never by CI:

    python3 bench/server.py [--bin target/release/taintlint] [--lines 5000] [--edits 1000]
                            [--quick]

Without --bin it runs `cargo build --release` first. A workspace is generated in a temporary
folder: a `.taintlint.yaml` declaring 20 pools and a Deployment buffer of about --lines lines
(tolerations, nodeSelectors, affinity terms; some findings). Then:

  latency  `taintlint server` (default 150 ms debounce); 30 times, one edit of the buffer
           (an incremental change of one line) and the time until its diagnostics arrive.
           Printed: the median and the worst, and the same less the debounce ("after the
           debounce", the issue's figure: under 100 ms on this machine).
  memory   `taintlint server --debounce-ms 0`; --edits edits one after the other, each
           waited for (every one is linted), the server's resident set (VmRSS) every tenth of
           the way. Flat means the last figures are no higher than the first ones after
           warm-up, within a few MB.

--quick is a smoke test (200 lines, 3 timed edits, 10 edits for memory); its figures mean
nothing. No third-party modules needed."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
import threading
import queue

BIN = None
LINES = 5000
EDITS = 1000
LATENCY_EDITS = 30
DEBOUNCE = 0.150


def parse_args():
    """Sets the globals above from the command line; builds the release binary unless --bin."""
    global BIN, LINES, EDITS, LATENCY_EDITS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the binary to measure (default: cargo build --release)")
    ap.add_argument("--lines", type=int, help="lines of the buffer (default 5000; 200 with --quick)")
    ap.add_argument("--edits", type=int, help="edits of the memory run (default 1000; 10 with --quick)")
    ap.add_argument("--quick", action="store_true", help="a smoke test; its figures mean nothing")
    a = ap.parse_args()
    LINES = a.lines or (200 if a.quick else 5000)
    EDITS = a.edits or (10 if a.quick else 1000)
    LATENCY_EDITS = 3 if a.quick else 30
    if a.bin:
        BIN = os.path.abspath(a.bin)
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        subprocess.run(["cargo", "build", "--release"], cwd=root, check=True)
        BIN = os.path.join(root, "target", "release", "taintlint")


def workspace(dir):
    pools = []
    for i in range(20):
        pools.append(
            f"    - name: pool-{i:02}\n      labels: {{pool: p{i:02}}}\n"
            f"      taints: [\"dedicated=p{i:02}:NoSchedule\"]\n"
        )
    with open(os.path.join(dir, ".taintlint.yaml"), "w") as f:
        f.write("inventory:\n  pools:\n" + "".join(pools))
    os.mkdir(os.path.join(dir, ".git"))
    docs = []
    n = 0
    lines = 0
    while lines < LINES:
        p = n % 20
        # One in ten tolerates the next pool: unschedulable; one in seven has Exists + value.
        tp = (p + 1) % 20 if n % 10 == 0 else p
        value = "          operator: Exists\n          value: x\n" if n % 7 == 0 else f"          value: p{tp:02}\n"
        doc = (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
            f"  name: app-{n}\n  namespace: team-{n % 5}\n"
            "spec:\n  replicas: 2\n  selector:\n    matchLabels:\n"
            f"      app: app-{n}\n  template:\n    metadata:\n      labels:\n        app: app-{n}\n"
            "    spec:\n"
            f"      nodeSelector:\n        pool: p{p:02}\n"
            "      affinity:\n        nodeAffinity:\n"
            "          requiredDuringSchedulingIgnoredDuringExecution:\n"
            "            nodeSelectorTerms:\n            - matchExpressions:\n"
            f"              - key: pool\n                operator: In\n                values: [p{p:02}]\n"
            "      tolerations:\n"
            f"        - key: dedicated\n{value}          effect: NoSchedule\n"
            "      containers:\n        - name: main\n          image: registry.example/app:1.0\n"
        )
        docs.append(doc)
        lines += doc.count("\n") + 1
        n += 1
    return "---\n".join(docs), n


class Server:
    def __init__(self, root, extra):
        self.p = subprocess.Popen(
            [BIN, "server", *extra],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.q = queue.Queue()
        self.id = 0
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        out = self.p.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.startswith(b"Content-Length:"):
                    length = int(line.split(b":")[1])
            self.q.put((time.monotonic(), json.loads(out.read(length))))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.id and "method" not in m)

    def wait(self, want, timeout=60):
        end = time.monotonic() + timeout
        while True:
            at, m = self.q.get(timeout=max(0.001, end - time.monotonic()))
            if want(m):
                return at, m

    def diagnostics(self, uri, version):
        return self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and m["params"].get("version") == version
        )

    def rss_kb(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=30)


def session(root, text, extra):
    s = Server(root, extra)
    s.request(
        "initialize",
        {"processId": None, "rootUri": "file://" + root, "capabilities": {}},
    )
    s.notify("initialized", {})
    uri = "file://" + os.path.join(root, "apps.yaml")
    s.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    _, first = s.diagnostics(uri, 1)
    return s, uri, len(first["params"]["diagnostics"])


def edit(s, uri, version, line):
    """Rewrites the replica count on `line` (a `  replicas: N` line)."""
    s.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [
                {
                    "range": {"start": {"line": line, "character": 12}, "end": {"line": line, "character": 13}},
                    "text": str(version % 10),
                }
            ],
        },
    )


def main():
    parse_args()
    with tempfile.TemporaryDirectory() as root:
        text, n = workspace(root)
        replicas = [i for i, l in enumerate(text.split("\n")) if l == "  replicas: 2"]
        print(f"buffer: {text.count(chr(10)) + 1} lines, {n} Deployments, {len(text)} bytes")

        s, uri, found = session(root, text, [])
        print(f"diagnostics on open: {found}")
        times = []
        for v in range(2, 2 + LATENCY_EDITS):
            sent = time.monotonic()
            edit(s, uri, v, replicas[v % len(replicas)])
            at, _ = s.diagnostics(uri, v)
            times.append(at - sent)
            time.sleep(0.05)
        s.stop()
        med, worst = statistics.median(times), max(times)
        print(
            f"latency (edit to diagnostics, {LATENCY_EDITS} edits): median {med * 1000:.0f} ms, worst {worst * 1000:.0f} ms; "
            f"after the {DEBOUNCE * 1000:.0f} ms debounce: median {(med - DEBOUNCE) * 1000:.0f} ms, "
            f"worst {(worst - DEBOUNCE) * 1000:.0f} ms"
        )

        s, uri, _ = session(root, text, ["--debounce-ms", "0"])
        samples = [(0, s.rss_kb())]
        t = time.monotonic()
        for v in range(2, EDITS + 2):
            edit(s, uri, v, replicas[v % len(replicas)])
            s.diagnostics(uri, v)
            if (v - 1) % max(1, EDITS // 10) == 0:
                samples.append((v - 1, s.rss_kb()))
        took = time.monotonic() - t
        s.stop()
        print(f"memory over {EDITS} edits ({took:.1f} s, {took / EDITS * 1000:.0f} ms an edit, each linted):")
        print("  " + ", ".join(f"{e}: {kb / 1024:.1f} MB" for e, kb in samples))


if __name__ == "__main__":
    main()
