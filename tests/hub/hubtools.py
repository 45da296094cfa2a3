"""The class tests' helpers: a demo hub run as a teacher runs it, and process checks."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from routerlab.cli.hub_server import descendants, free_port
from routerlab.exercises.teacher.hub import PROXY_INSTALL, find_proxy

START_LIMIT_S = 120


def need_hub() -> None:
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.skip("jupyterhub is not installed: pip install 'routerlab[class]'")
    if find_proxy() is None:
        pytest.skip(f"configurable-http-proxy is not installed ({PROXY_INSTALL}; "
                    "`./run test` installs it when npm is here)")


def alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


class DemoHub:
    """`routerlab hub --demo` as a teacher runs it, in a process of its own."""

    def __init__(self, folder: Path, students: int, password: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.folder = folder
        self.password = password
        self.process = subprocess.Popen(
            [sys.executable, "-m", "routerlab", "hub", "--demo", "--port", str(self.port),
             "--students", str(students), "--password", password, "--dir", str(folder)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        self.lines: list[str] = []
        self.seen: set[int] = set()
        assert self.process.stdout is not None
        deadline = time.monotonic() + START_LIMIT_S
        for line in self.process.stdout:  # ends when the command exits
            self.lines.append(line)
            if "JupyterHub class running" in line or time.monotonic() > deadline:
                break
        assert any("JupyterHub class running" in line for line in self.lines), \
            "".join(self.lines) + self.log_tail()

    @property
    def token_file(self) -> Path:
        return self.folder / "teacher.token"

    def log_tail(self) -> str:
        log = self.folder / "jupyterhub.log"
        return "\n".join(log.read_text().splitlines()[-30:]) if log.exists() else ""

    def remember_processes(self) -> set[int]:
        """Every process of the class now (the command's descendants)."""
        self.seen |= set(descendants(self.process.pid))
        return self.seen

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.remember_processes()
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            code = self.process.wait()
        return code

    def cleanup(self) -> None:
        """After a failed test: nothing of the class survives it either."""
        self.stop()
        for pid in self.seen:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
