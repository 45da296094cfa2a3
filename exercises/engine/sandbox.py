"""The supervisor between RouterLab and a student's code: `python -I -S -B sandbox.py < REQUEST`.

It is a standalone script that imports only the standard library, so that it starts fast and owns
nothing a student's code could reach. It reads one JSON request on stdin, runs the command in it
as a child process with limits, and writes one JSON reply on stdout. Why a separate process: it
becomes the *subreaper* of everything the student's code starts (Linux `PR_SET_CHILD_SUBREAPER`),
so a double-forked grandchild that left the process group and the session is re-parented here
and killed with the rest when the run ends. The caller (a terminal, a notebook kernel, a teacher's
regrade) never becomes a subreaper itself.

The child gets:
- its own session and process group (`start_new_session`), killed at the end with every
  descendant;
- `RLIMIT_CPU`, `RLIMIT_AS` (memory), `RLIMIT_FSIZE` (largest file), `RLIMIT_CORE` = 0;
- a fresh temporary folder as its HOME, TMPDIR and working directory, removed afterwards;
- stdin from /dev/null, stdout+stderr into a pipe of which only the end is kept (so printing for
  seconds costs memory bounded by `output_limit`, and no disk), and one more pipe for its result,
  the only file descriptor it inherits.

Request: {"argv": [...], "env": {...}, "timeout": s, "startup": s, "cpu": s, "memory": bytes,
"fsize": bytes, "output_limit": bytes, "result_limit": bytes}. The child finds its result
pipe's number in the environment variable ROUTERLAB_RESULT_FD; `timeout` counts from the first
bytes it writes there (its own start-up gets `startup` seconds more). Reply: {"returncode",
"timed_out", "result" (text), "result_truncated", "output" (text, the end), "output_bytes",
"stragglers" (processes killed after the child ended)}.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

_PR_SET_CHILD_SUBREAPER = 36
_GRACE = 0.5
"""Seconds to keep reading after the child exits, for output still in flight."""


def _become_subreaper() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # without it, the process-group kill below still ends everything that stayed in it


def _limits(request: dict[str, Any]) -> Any:
    cpu, memory, fsize = int(request["cpu"]), int(request["memory"]), int(request["fsize"])

    def apply() -> None:
        for which, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, memory),
                             (resource.RLIMIT_FSIZE, fsize), (resource.RLIMIT_CORE, 0)):
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(which, (value, value))

    return apply


def _children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (orphans re-parented to us are among them)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read().decode(errors="replace")
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if len(fields) > 1 and fields[1] == str(pid) and fields[0] != "Z":
                found.append(int(entry))
    return found


def reap_exited() -> None:
    """Collect every child of this process that has exited (none left as a zombie)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill_everything(group: int) -> int:
    """Kill the child's process group, then every process re-parented to us, until none is
    left; reap them all. Returns how many processes outside the group had to be killed."""
    with contextlib.suppress(OSError):
        os.killpg(group, signal.SIGKILL)
    stragglers = 0
    for _ in range(200):
        alive = _children(os.getpid())
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        stragglers += len(alive)
        reap_exited()
        if not alive and not _children(os.getpid()):
            break
        time.sleep(0.01)
    return stragglers


def run(request: dict[str, Any]) -> dict[str, Any]:
    _become_subreaper()
    scratch = tempfile.mkdtemp(prefix="routerlab-sandbox-")
    home, work, tmp = (os.path.join(scratch, name) for name in ("home", "work", "tmp"))
    for folder in (home, work, tmp):
        os.mkdir(folder)
    result_read, result_write = os.pipe()
    out_read, out_write = os.pipe()
    env = {**request.get("env", {}), "HOME": home, "TMPDIR": tmp,
           "ROUTERLAB_RESULT_FD": str(result_write), "ROUTERLAB_SCRATCH": scratch}
    output_limit, result_limit = int(request["output_limit"]), int(request["result_limit"])
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            request["argv"], stdin=subprocess.DEVNULL, stdout=out_write, stderr=out_write,
            pass_fds=(result_write,), close_fds=True, cwd=work, env=env,
            start_new_session=True, preexec_fn=_limits(request))
    except OSError as error:
        shutil.rmtree(scratch, ignore_errors=True)
        return {"returncode": None, "timed_out": False, "result": "", "result_truncated": False,
                "output": f"cannot start the check: {error}", "output_bytes": 0, "stragglers": 0}
    os.close(result_write)
    os.close(out_write)
    result, output = bytearray(), bytearray()
    output_bytes, result_truncated, timed_out = 0, False, False
    # The time limit is the student's: it starts at the child's first result line, sent once
    # RouterLab's own imports are done (slow on a loaded machine), which get `startup` seconds.
    deadline = started + float(request.get("startup", 0)) + float(request["timeout"])
    ready = False
    exited_at: float | None = None
    selector = selectors.DefaultSelector()
    selector.register(result_read, selectors.EVENT_READ, "result")
    selector.register(out_read, selectors.EVENT_READ, "output")
    while selector.get_map():
        now = time.monotonic()
        if exited_at is None and child.poll() is not None:
            exited_at = now
        if now >= deadline or (exited_at is not None and now - exited_at > _GRACE):
            timed_out = exited_at is None
            break
        for key, _ in selector.select(timeout=0.05):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                selector.unregister(key.fd)
            elif key.data == "result":
                if not ready:
                    ready, deadline = True, time.monotonic() + float(request["timeout"])
                room = result_limit - len(result)
                result += chunk[:max(room, 0)]
                result_truncated |= len(chunk) > room
            else:
                output_bytes += len(chunk)
                output += chunk
                del output[:-output_limit]
    selector.close()
    if exited_at is None and not timed_out:  # it closed its pipes; give it until the deadline
        try:
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    returncode = None if timed_out else child.returncode
    stragglers = _kill_everything(child.pid)
    os.close(result_read)
    os.close(out_read)
    shutil.rmtree(scratch, ignore_errors=True)
    return {"returncode": returncode, "timed_out": timed_out,
            "result": result.decode("utf-8", errors="replace"),
            "result_truncated": result_truncated,
            "output": output.decode("utf-8", errors="replace"), "output_bytes": output_bytes,
            "stragglers": stragglers, "seconds": time.monotonic() - started}


def main() -> int:
    request = json.loads(sys.stdin.read())
    reply = run(request)
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
