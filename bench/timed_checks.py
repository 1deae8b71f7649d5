#!/usr/bin/env python3
"""What the tests once timed (issue 39: a test asserts no wall-clock time; `tests/action.rs`
failed a whole `cargo test` when a download took 5.07 s on a busy machine). The tests keep
checking the outcome; this script measures how long it takes. Run by hand, never by CI:

    python3 bench/timed_checks.py [--bin target/release/taintlint] [--runs 3] [--quick]

Without --bin it runs `cargo build --release` first. Printed, per check, the median and the
worst of --runs runs and the exit codes:

  action download      `action/run.sh download` (the Action's download step) fetching a
                       release of --bin from a local HTTP server: SHA256SUMS, the archive,
                       the checksum, the unpacking (tests/action.rs checks it installs)
  --baseline /dev/zero a special file given as a baseline, policy or config is refused
  --config FIFO        before it is read (tests/security.rs checks the refusal)
  --threads 100000     the thread count is clamped (tests/security.rs)
  fuzz regressions     each file of testdata/fuzz-regressions through `check`, and the
                       slowest (tests/hostile.rs lints them in-process)

--quick runs each once; its figures mean nothing. Needs nothing outside the repository and
no third-party modules."""
import argparse
import hashlib
import http.server
import io
import os
import statistics
import subprocess
import tarfile
import tempfile
import threading

import measure

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POD = """apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  tolerations:
    - key: dedicated
      operator: Exists
      value: gpu
  containers:
    - name: web
      image: nginx:1.27
"""


def version_of(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split()[1]


def serve(folder):
    """A local HTTP server of `folder` in a thread: (server, base URL)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=folder, **kw)

        def log_message(self, *a):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def release(binary, folder):
    """A release of `binary` as the release workflow lays it out: v<version>/SHA256SUMS and
    v<version>/taintlint-v<version>-<target>.tar.gz. Returns the archive's name."""
    version = version_of(binary)
    target = subprocess.run(["bash", os.path.join(ROOT, "action", "run.sh"), "target"],
                            capture_output=True, text=True, check=True).stdout.strip()
    if not target:
        raise SystemExit("no release target for this machine (action/run.sh target)")
    name = f"taintlint-v{version}-{target}"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        t.add(binary, arcname=f"{name}/taintlint")
    data = buf.getvalue()
    d = os.path.join(folder, f"v{version}")
    os.makedirs(d)
    with open(os.path.join(d, f"{name}.tar.gz"), "wb") as f:
        f.write(data)
    with open(os.path.join(d, "SHA256SUMS"), "w") as f:
        f.write(f"{hashlib.sha256(data).hexdigest()}  {name}.tar.gz\n")
    return f"{name}.tar.gz"


def timed(cmd, runs, env=None, cwd=None, fresh=None):
    """(median seconds, worst seconds, sorted exit codes) of `runs` runs of `cmd`; `fresh()`
    runs before each (a clean install folder)."""
    times, codes = [], set()
    for _ in range(runs):
        if fresh:
            fresh()
        old = os.getcwd()
        if cwd:
            os.chdir(cwd)
        try:
            r = measure.run(cmd, timeout=600, env=env)
        finally:
            os.chdir(old)
        times.append(r.seconds)
        codes.add("timeout" if r.timed_out else str(r.code))
    return statistics.median(times), max(times), ",".join(sorted(codes))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the binary to measure (default: cargo build --release)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one run each (a smoke test)")
    a = ap.parse_args()
    if a.bin:
        binary = os.path.abspath(a.bin)
    else:
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, "target", "release", "taintlint")
    runs = 1 if a.quick else a.runs
    rows = []

    with tempfile.TemporaryDirectory() as tmp:
        # The Action's download step against a local release.
        served = os.path.join(tmp, "releases")
        os.makedirs(served)
        archive = release(binary, served)
        httpd, url = serve(served)
        install = os.path.join(tmp, "install")
        env = dict(os.environ, GITHUB_ACTION_PATH=ROOT, TAINTLINT_RELEASE_URL=url,
                   TAINTLINT_INSTALL_DIR=install, GITHUB_OUTPUT=os.path.join(tmp, "output"),
                   GITHUB_PATH=os.path.join(tmp, "path"), NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
        for k in ("GITHUB_ACTION_REPOSITORY", "RUNNER_TOOL_CACHE"):
            env.pop(k, None)

        def clean_install():
            subprocess.run(["rm", "-rf", install], check=True)

        rows.append((f"action download ({archive}, {os.path.getsize(binary) / 1e6:.0f} MB binary)",
                     *timed(["bash", os.path.join(ROOT, "action", "run.sh"), "download"], runs,
                            env=env, fresh=clean_install)))
        httpd.shutdown()
        if not os.path.isfile(os.path.join(install, "taintlint")):
            raise SystemExit("the download step installed nothing")

        # Special files and a huge thread count, in a repository of one Pod.
        repo = os.path.join(tmp, "repo")
        os.makedirs(os.path.join(repo, ".git"))
        with open(os.path.join(repo, "pod.yaml"), "w") as f:
            f.write(POD)
        os.symlink("/dev/zero", os.path.join(repo, "zero.json"))
        os.mkfifo(os.path.join(repo, "fifo.json"))
        for flag, file in [("--baseline", "zero.json"), ("--policy", "fifo.json"), ("--config", "fifo.json")]:
            rows.append((f"check {flag} {file} (refused)",
                         *timed([binary, "check", "pod.yaml", flag, file], runs, cwd=repo)))
        rows.append(("check --threads 100000 (clamped)",
                     *timed([binary, "check", "pod.yaml", "--isolated", "--threads", "100000"], runs, cwd=repo)))

    # The fuzzer's regressions, one run of `check` each.
    folder = os.path.join(ROOT, "testdata", "fuzz-regressions")
    files = sorted(f for f in os.listdir(folder) if f.endswith(".fuzz")) if os.path.isdir(folder) else []
    each = []
    for f in files:
        med, worst, codes = timed([binary, "check", os.path.join(folder, f), "--isolated"], runs)
        each.append((worst, f, codes))
    if each:
        each.sort(reverse=True)
        total = sum(w for w, _, _ in each)
        rows.append((f"fuzz regressions: {len(each)} files, each", statistics.median(w for w, _, _ in each),
                     each[0][0], ",".join(sorted({c for _, _, c in each}))))
        rows.append((f"  slowest: {each[0][1]}", each[0][0], each[0][0], each[0][2]))
        rows.append((f"  all {len(each)} one after the other", total, total, ""))

    print(f"| check ({runs} run{'s' if runs > 1 else ''}) | median | worst | exit |")
    print("|---|---:|---:|---|")
    for what, med, worst, codes in rows:
        print(f"| {what} | {med:.3f} s | {worst:.3f} s | {codes} |")


if __name__ == "__main__":
    main()
