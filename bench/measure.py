"""Wall time and peak resident memory of one command, with the standard library only (the
child's own `wait4` usage, so no `/usr/bin/time` is needed). Used by the bench scripts."""
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
