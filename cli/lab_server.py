"""The JupyterLab child process of `routerlab lab`: its command line, environment and settings.

The server binds to 127.0.0.1 only and takes a fresh token through the environment
(`JUPYTER_TOKEN`, which jupyter_server reads), never through argv: any local user can read
another's command line (`ps`, /proc/PID/cmdline), not their environment. JupyterLab's news
pop-up and update check are switched off by a settings override that only this server reads
(an application settings folder of its own), so the learner's global settings are untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

QUIET = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                         "checkForUpdates": False}}
"""Settings defaults for this server: no "fetch news?" toast, no update check."""


def jupyterlab_command(root: Path, port: int, open_path: str, open_browser: bool,
                       settings: Path) -> list[str]:
    """This Python's JupyterLab serving `root` on 127.0.0.1:`port`, opening `open_path` (relative
    to `root`) first, with application settings from `settings` (`app_settings`). No token here:
    it travels in the environment (`server_env`)."""
    command = [
        sys.executable, "-m", "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.default_url=/lab/tree/{open_path}",
        f"--LabApp.app_settings_dir={settings}",
    ]
    if not open_browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command


def server_env(token: str) -> dict[str, str]:
    """The child's environment: this one, plus the token (`JUPYTER_TOKEN`)."""
    return {**os.environ, "JUPYTER_TOKEN": token}


def app_settings(folder: Path) -> Path:
    """Fill `folder` as JupyterLab's application settings folder: what the installed JupyterLab
    has there (an administrator's overrides, page config), plus `QUIET` as an override of its
    own (`overrides.d/routerlab.json`, read before a user's `overrides.json`, which wins)."""
    installed = _jupyterlab_dir() / "settings"
    shutil.rmtree(folder, ignore_errors=True)  # ours: rebuilt from what is installed now
    if installed.is_dir():
        shutil.copytree(installed, folder, dirs_exist_ok=True)
    (folder / "overrides.d").mkdir(parents=True, exist_ok=True)
    (folder / "overrides.d" / "routerlab.json").write_text(json.dumps(QUIET, indent=1) + "\n",
                                                           encoding="utf-8")
    return folder


def _jupyterlab_dir() -> Path:
    """JupyterLab's application folder, found as `jupyterlab.commands.get_app_dir` finds it
    ($JUPYTERLAB_DIR, else <prefix>/share/jupyter/lab), without importing that module (3 s)."""
    return Path(os.environ.get("JUPYTERLAB_DIR") or Path(sys.prefix) / "share" / "jupyter" / "lab")


_PASSED_ON = ("SIGTERM", "SIGHUP")
"""Signals that stop JupyterLab the way they would stop this process: passed on to it (it then
shuts its kernels down). SIGINT is Python's KeyboardInterrupt, handled in `run`."""


def run(command: list[str], env: dict[str, str]) -> int:
    """Run JupyterLab in the foreground; Ctrl-C, SIGTERM or SIGHUP stops it cleanly, kernels
    included (exit code 0)."""
    process = subprocess.Popen(command, env=env)
    stopped = False

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopped
        stopped = True
        process.send_signal(signum)

    previous: dict[int, Any] = {}
    for name in _PASSED_ON:
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            previous[number] = signal.signal(number, forward)
        except ValueError:  # not the main thread: nothing to forward
            break
    try:
        code = process.wait()
    except KeyboardInterrupt:
        stopped = True
        # A Ctrl-C in a terminal reaches JupyterLab too; a second one must not cut this wait
        # short and leave the server without its parent.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        process.terminate()
        try:
            code = process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0 if stopped else code
