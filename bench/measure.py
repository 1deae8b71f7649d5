"""Wall time and peak resident memory of one command, with the standard library only (the
child's own `wait4` usage, so no `/usr/bin/time` is needed). Used by the bench scripts, and
on its own:

    python3 bench/measure.py [--timeout SECONDS] [--runs N] -- COMMAND [ARG...]

prints the seconds and peak RSS of each run of COMMAND (its output is thrown away)."""
import argparse
import os
import subprocess
import threading
import time


class Result:
    def __init__(self, seconds, rss_mb, code, timed_out, stdout, stderr):
        self.seconds = seconds
        #: Peak resident set size of the command, in MB.
        self.rss_mb = rss_mb
        #: Exit code; negative: killed by that signal.
        self.code = code
        self.timed_out = timed_out
        self.stdout = stdout
        self.stderr = stderr


def run(cmd, timeout=None, preexec_fn=None, capture=False, env=None, cwd=None, stdin=None):
    """Runs `cmd` (in `cwd`, reading `stdin`: a file, or nothing), killing it after `timeout`
    seconds; its output is read (and kept with `capture`, else the stdout is thrown away)
    while it runs."""
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=preexec_fn, env=env, cwd=cwd,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL)
    out = {"stdout": b"", "stderr": b""}

    def drain(name, stream):
        out[name] = stream.read()
        stream.close()

    readers = [threading.Thread(target=drain, args=("stderr", p.stderr))]
    if capture:
        readers.append(threading.Thread(target=drain, args=("stdout", p.stdout)))
    for r in readers:
        r.start()
    killed = threading.Event()

    def kill():
        killed.set()
        p.kill()

    timer = threading.Timer(timeout, kill) if timeout else None
    if timer:
        timer.start()
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.monotonic() - t
    if timer:
        timer.cancel()
    for r in readers:
        r.join()
    code = os.waitstatus_to_exitcode(status)
    p.returncode = code
    return Result(secs, usage.ru_maxrss / 1024, code, killed.is_set(), out["stdout"], out["stderr"])


def output_dir(value):
    """An argparse type for a folder a script writes into: refused when it starts with `-`
    (`gen_xref.py --help` once took `--help` for its output folder and filled it)."""
    if not value or value.startswith("-"):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an output folder (it starts with '-'; write ./{value} if you mean it)"
            if value else "the output folder is empty")
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timeout", type=float, help="kill the command after this many seconds")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command, after `--`")
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command given")
    for _ in range(a.runs):
        r = run(cmd, timeout=a.timeout)
        state = "timed out" if r.timed_out else f"exit {r.code}"
        print(f"{r.seconds:.3f} s, {r.rss_mb:.1f} MB peak RSS, {state}")


if __name__ == "__main__":
    main()
