"""`routerlab lab`: the command line it builds, its one-line errors, and a real start/poll/stop."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.cli.commands import lab as lab_command
from routerlab.core.errors import RouterLabError

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"Open: (http://127\.0\.0\.1:(\d+)/lab\?token=([0-9a-f]+))")


def _dry_run(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(app, ["lab", "--dry-run", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_dry_run_binds_localhost_with_a_generated_token(tmp_path: Path) -> None:
    first = _dry_run(str(tmp_path), "--port", "8123")
    second = _dry_run(str(tmp_path), "--port", "8123")
    match = URL.search(first)
    assert match, first
    assert match.group(2) == "8123"
    assert len(match.group(3)) >= 32
    assert match.group(3) != URL.search(second).group(3), "the token must be fresh each start"
    assert "--ServerApp.ip=127.0.0.1" in first
    assert f"--IdentityProvider.token={match.group(3)}" in first
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in first


def test_headless_means_no_browser_and_root_means_allow_root(tmp_path: Path) -> None:
    headless = _dry_run(str(tmp_path), env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert "--no-browser" in headless
    forced = _dry_run(str(tmp_path), "--browser", env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert "--no-browser" not in forced
    assert ("--allow-root" in headless) == (os.geteuid() == 0)


def test_default_folder_is_notebooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path)
    assert f"in {(tmp_path / 'notebooks').resolve()}" in _dry_run()
    monkeypatch.chdir(ROOT / "docs")  # no ./notebooks here: falls back to the checkout's
    assert f"in {ROOT / 'notebooks'}" in _dry_run()


def test_missing_folder_is_one_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["lab", str(tmp_path / "nope"), "--dry-run"])
    assert result.exit_code == 1
    assert isinstance(result.exception, RouterLabError)
    assert "is not a folder" in str(result.exception)


def test_missing_jupyterlab_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        lab_command.importlib.util, "find_spec",
        lambda name, *a: None if name == "jupyterlab" else real(name, *a),
    )
    result = CliRunner().invoke(app, ["lab", "--dry-run"])
    assert result.exit_code == 1
    assert str(result.exception) == lab_command.INSTALL_HINT
    assert "pip install 'routerlab[notebooks]'" in lab_command.INSTALL_HINT


def test_missing_jupyterlab_is_one_line_on_stderr(tmp_path: Path) -> None:
    """Through the console entry point: `error: …` on stderr, exit code 1, no traceback."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import importlib.util as u\n_real = u.find_spec\n"
        "u.find_spec = lambda n, *a: None if n == 'jupyterlab' else _real(n, *a)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "routerlab", "lab", "--dry-run"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == f"error: {lab_command.INSTALL_HINT}"


@pytest.mark.skipif(importlib.util.find_spec("jupyterlab") is None, reason="jupyterlab missing")
def test_lab_starts_answers_with_the_token_and_stops(tmp_path: Path) -> None:
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
           "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    log = (tmp_path / "lab.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "routerlab", "lab", str(ROOT / "notebooks")],
        stdout=subprocess.PIPE, stderr=log, text=True, env=env, start_new_session=True,
    )
    try:
        url = base = token = None
        for _ in range(3):  # "RouterLab notebooks in …", "Open: …"
            line = process.stdout.readline()
            if match := URL.search(line):
                url, port, token = match.groups()
                base = f"http://127.0.0.1:{port}"
                break
        assert url, "no URL printed"
        status = _poll(f"{base}/api/status?token={token}", deadline=60, log=log)
        assert status == 200
        assert _get(f"{base}/api/status") == 403, "a request without the token must be refused"
        assert _get(f"{base}/api/contents/00-welcome.ipynb?token={token}&content=0") == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _poll(url: str, deadline: float, log) -> int:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            return _get(url)
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.25)
    log.seek(0)
    pytest.fail(f"JupyterLab did not answer within {deadline} s:\n{log.read()[-3000:]}")
