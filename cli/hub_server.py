"""The demo hub's processes: JupyterHub, its proxy and every student's server, stopped together.

`routerlab hub --demo` starts JupyterHub as a child in a session of its own and waits. Ctrl-C or
SIGTERM stops it; JupyterHub then stops the proxy and every student's server itself. Nothing is
left to chance: this process is a *child subreaper* (Linux `prctl`), so any process of the class
whose parent died is re-parented here, and after JupyterHub exits every process still below this
one is terminated, then killed, then reaped. JupyterHub dies with this process too (its parent
death signal), so even `kill -9` of the command leaves no hub running.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
READY_LIMIT_S = 120.0
"""How long JupyterHub may take to answer on its URL (it takes seconds)."""
STOP_LIMIT_S = 30.0
"""How long JupyterHub may take to stop its users' servers before it is killed."""


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # not Linux: the hub's own clean-up is all there is
        return False


def _die_with_parent() -> None:
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc; empty where there is no /proc)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    """Every live process below `pid`."""
    out, todo = [], [pid]
    while todo:
        below = children(todo.pop())
        out += below
        todo += below
    return out


def reap_all(limit_s: float = 10.0) -> list[int]:
    """Terminate every process still below this one, kill what outlives `limit_s`, reap them
    all; returns the pids that were found."""
    me = os.getpid()
    found: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        left = descendants(me)
        found += [p for p in left if p not in found]
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            _reap_zombies()
            if not descendants(me):
                return found
            time.sleep(0.1)
    _reap_zombies()
    return found


def _reap_zombies() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def free_port() -> int:
    """A port nothing listens on now on 127.0.0.1 (JupyterHub's own API and its proxy's)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def answers(url: str) -> bool:
    """Whether JupyterHub's API answers at `url` (its /hub/api/ root)."""
    try:
        with urllib.request.urlopen(url + "/hub/api/", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def run_hub(command: list[str], env: dict[str, str], log: Path, url: str,
            on_ready: Callable[[], None]) -> int:
    """Run JupyterHub until it exits, Ctrl-C or SIGTERM; then leave no process of the class
    behind. Returns 0 when stopped on request, JupyterHub's exit code otherwise. It runs in the
    folder of its `log` (the demo's): whatever JupyterHub or its proxy writes beside itself (a
    pid file) lands there, never in the folder the teacher typed the command in (a checkout)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with log.open("ab") as out:
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT,
                                       cwd=log.parent, start_new_session=True,
                                       preexec_fn=_die_with_parent)
        code = _serve(process, url, on_ready, stop)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        reap_all()
    return code


def _serve(process: subprocess.Popen[bytes], url: str, on_ready: Callable[[], None],
           stop: threading.Event) -> int:
    deadline = time.monotonic() + READY_LIMIT_S
    ready = False
    while not stop.is_set() and process.poll() is None:
        if not ready and answers(url):
            ready = True
            on_ready()
        elif not ready and time.monotonic() > deadline:
            stop.set()
            break
        stop.wait(0.25 if not ready else 1.0)
    if process.poll() is not None:
        return process.returncode or 1  # it exited on its own: a failure either way
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_LIMIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return 0 if ready else 1
