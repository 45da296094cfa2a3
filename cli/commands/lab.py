"""`routerlab lab`: start JupyterLab on the guided notebooks.

The server binds to 127.0.0.1 only and is protected by a freshly generated token
(`--IdentityProvider.token`), so the printed URL is the one way in. Where there is no display
(a container, an SSH session) no browser is opened; as root, `--allow-root` is passed because
JupyterLab refuses to start otherwise. Nothing heavy is imported: JupyterLab runs in a child
process of the same Python.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

INSTALL_HINT = "JupyterLab is not installed: pip install 'routerlab[notebooks]'"


def register(app: typer.Typer) -> None:
    app.command(help="Start JupyterLab on the guided notebooks (127.0.0.1, with a token).")(lab)


def lab(
    directory: Annotated[Path | None, typer.Argument(
        metavar="DIR",
        help="Folder to open (default: ./notebooks, else the notebooks of this checkout).",
    )] = None,
    port: Annotated[int, typer.Option(
        "--port", min=0, max=65535, help="Port to listen on (0: pick a free one).")] = 0,
    browser: Annotated[bool | None, typer.Option(
        "--browser/--no-browser", help="Open a browser (default: only when a display is available)."
    )] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Print the URL and the command, start nothing.")] = False,
) -> None:
    if importlib.util.find_spec("jupyterlab") is None:
        _fail(INSTALL_HINT)
    folder = _notebook_dir(directory)
    port = port or _free_port()
    import secrets  # here, not at the top: `routerlab --help` imports this module

    token = secrets.token_hex(24)
    open_browser = _has_display() if browser is None else browser
    command = jupyterlab_command(folder, port, token, open_browser)
    url = f"http://127.0.0.1:{port}/lab?token={token}"
    typer.echo(f"RouterLab notebooks in {folder}")
    typer.echo(f"Open: {url}")
    if dry_run:
        typer.echo("Command: " + " ".join(command))
        return
    typer.echo("Stop with Ctrl-C.")
    sys.stdout.flush()
    code = _run(command)
    if code != 0:
        _fail(f"JupyterLab exited with code {code}")


def jupyterlab_command(folder: Path, port: int, token: str, open_browser: bool) -> list[str]:
    """The child process: this Python's JupyterLab on `folder`, 127.0.0.1:`port`, `token`."""
    command = [
        sys.executable, "-m", "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={folder}",
    ]
    if not open_browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command


def _notebook_dir(directory: Path | None) -> Path:
    if directory is not None:
        if not directory.is_dir():
            _fail(f"{directory} is not a folder")
        return directory.resolve()
    candidates = [Path.cwd() / "notebooks"]
    import routerlab

    # An editable install or a source checkout: src/routerlab/__init__.py → <repo>/notebooks.
    candidates.append(Path(routerlab.__file__).resolve().parents[2] / "notebooks")
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    _fail("no notebooks folder here: run this from the RouterLab checkout or pass DIR")


def _has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(command: list[str]) -> int:
    """Run JupyterLab in the foreground; Ctrl-C or SIGTERM stops it cleanly (exit code 0)."""
    process = subprocess.Popen(command)
    stopped = False

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopped
        stopped = True
        process.send_signal(signum)

    try:
        previous = signal.signal(signal.SIGTERM, forward)
    except ValueError:  # not the main thread: nothing to forward
        previous = None
    try:
        code = process.wait()
    except KeyboardInterrupt:
        stopped = True
        process.terminate()
        try:
            code = process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0 if stopped else code


def _fail(message: str) -> NoReturn:
    from routerlab.core import RouterLabError

    raise RouterLabError(message)
