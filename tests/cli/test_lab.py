"""`routerlab lab`: the command line it builds, its one-line errors, and a real start/poll/stop."""

from __future__ import annotations

import importlib.util
import json
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
from routerlab.core.base.errors import RouterLabError
from routerlab.exercises.learner.lab_notebooks import shipped_notebooks, sync_notebooks
from routerlab.exercises.learner.workspace import init_workspace

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"Open: (http://127\.0\.0\.1:(\d+)/lab/tree/notebooks/00-welcome\.ipynb"
                 r"\?token=([0-9a-f]+))")


def _dry_run(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(app, ["lab", "--dry-run", *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


def test_dry_run_binds_localhost_and_keeps_the_token_off_the_command_line(
        tmp_path: Path) -> None:
    first = _dry_run("--dir", str(tmp_path), "--port", "8123")
    second = _dry_run("--dir", str(tmp_path), "--port", "8123")
    match = URL.search(first)
    assert match, first
    assert match.group(2) == "8123"
    assert len(match.group(3)) >= 32
    assert match.group(3) != URL.search(second).group(3), "the token must be fresh each start"
    command = next(line for line in first.splitlines() if line.startswith("Command: "))
    assert "--ServerApp.ip=127.0.0.1" in command
    assert match.group(3) not in command and "token=" not in command.lower()
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in command
    assert "--ServerApp.default_url=/lab/tree/notebooks/00-welcome.ipynb" in command
    assert not list(tmp_path.iterdir()), "a dry run creates and copies nothing"


def test_headless_means_no_browser_and_root_means_allow_root(tmp_path: Path) -> None:
    headless = _dry_run("--dir", str(tmp_path), env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert "--no-browser" in headless
    forced = _dry_run("--dir", str(tmp_path), "--browser",
                      env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert "--no-browser" not in forced
    assert ("--allow-root" in headless) == (os.geteuid() == 0)


def test_the_workspace_is_found_from_the_current_folder_else_the_default(
        tmp_path: Path) -> None:
    init_workspace(tmp_path / "ws", "ada")
    inside = tmp_path / "ws" / "exercises"
    found = _dry_run(env={"ROUTERLAB_CALLER_CWD": str(inside), "HOME": str(tmp_path / "home")})
    assert f"(found from the current folder): {tmp_path / 'ws'}" in found
    default = _dry_run(env={"ROUTERLAB_CALLER_CWD": str(tmp_path),
                            "HOME": str(tmp_path / "home")})
    assert f"(the default), to be created: {tmp_path / 'home' / 'routerlab-exercises'}" in default


def test_a_folder_that_is_not_a_workspace_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("not a workspace")
    result = CliRunner().invoke(app, ["lab", "--dir", str(tmp_path), "--dry-run"])
    assert result.exit_code == 1
    assert isinstance(result.exception, RouterLabError)
    assert "is not a RouterLab workspace" in str(result.exception)
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


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
def test_lab_serves_a_workspace_copy_with_the_token_kept_out_of_argv(tmp_path: Path) -> None:
    """A real start on a new folder: the workspace is created with the notebooks copied in, the
    server answers with the token (403 without), its argv (/proc/PID/cmdline) does not carry the
    token, its settings switch the news off, and SIGTERM stops it with code 0."""
    workspace = tmp_path / "ws"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
           "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    log = (tmp_path / "lab.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "routerlab", "lab", "--dir", str(workspace)],
        stdout=subprocess.PIPE, stderr=log, text=True, env=env, start_new_session=True,
    )
    try:
        url = base = token = None
        for _ in range(4):  # "Your workspace…", "Copied…", "Open: …"
            line = process.stdout.readline()
            if match := URL.search(line):
                url, port, token = match.groups()
                base = f"http://127.0.0.1:{port}"
                break
        assert url, "no URL printed"
        assert sorted(p.name for p in (workspace / "notebooks").iterdir()) == sorted(
            p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
        status = _poll(f"{base}/api/status?token={token}", deadline=60, log=log)
        assert status == 200
        assert _get(f"{base}/api/status") == 403, "a request without the token must be refused"
        assert _get(f"{base}/api/contents/notebooks/00-welcome.ipynb?token={token}&content=0") \
            == 200
        with urllib.request.urlopen(f"{base}/lab/api/settings/@jupyterlab/apputils-extension:"
                                    f"notification?token={token}", timeout=5) as response:
            schema = json.load(response)["schema"]["properties"]
        assert schema["fetchNews"]["default"] == "false"
        assert schema["checkForUpdates"]["default"] is False
        if Path("/proc").is_dir():
            argvs = [_argv(pid) for pid in [process.pid, *_children(process.pid)]]
            assert any("jupyterlab" in argv for argv in argvs), argvs
            assert not [argv for argv in argvs if token in argv], "the token is in an argv"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def _argv(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _children(pid: int) -> list[int]:
    """Every descendant of `pid` (Linux: /proc/PID/task/TID/children)."""
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in map(int, children.read_text().split()):
            found += [child, *_children(child)]
    return found


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


def _notebook(path: Path, *sources: str, outputs: list | None = None) -> None:
    cells = [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None,
              "outputs": outputs or [], "source": source} for i, source in enumerate(sources)]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))


def test_notebook_copies_are_upgraded_like_exercises(tmp_path: Path) -> None:
    """New notebooks are added; a changed one replaces a copy the learner only ran (outputs
    saved), and an edited copy is kept with the new version beside it, said in one line."""
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    _notebook(shipped / "00-a.ipynb", "x = 1")
    _notebook(shipped / "01-b.ipynb", "ANSWER = ...")
    workspace, _ = init_workspace(tmp_path / "ws", "ada")
    mine = workspace.root / "notebooks"

    first = sync_notebooks(workspace, shipped)
    assert first.added == ["00-a.ipynb", "01-b.ipynb"]
    assert first.lines() == [f"Copied 2 notebook(s) into {mine}."]
    assert sync_notebooks(workspace, shipped).lines() == [], "nothing new: nothing said"

    _notebook(mine / "00-a.ipynb", "x = 1", outputs=[{"output_type": "stream", "name": "stdout",
                                                      "text": "ran\n"}])  # run and saved
    _notebook(mine / "01-b.ipynb", "ANSWER = 3")  # the learner's prediction
    assert sync_notebooks(workspace, shipped).lines() == [], "edits of the current version"

    _notebook(shipped / "00-a.ipynb", "x = 2")
    _notebook(shipped / "01-b.ipynb", "ANSWER = ...", "check(ANSWER)")
    _notebook(shipped / "02-c.ipynb", "new")
    done = sync_notebooks(workspace, shipped)
    assert (done.added, done.updated) == (["02-c.ipynb"], ["00-a.ipynb"])
    assert done.beside == [("01-b.ipynb", "01-b.new.ipynb")]
    assert "01-b.ipynb has your edits and was kept; the new version is 01-b.new.ipynb." \
        in done.lines()
    assert "x = 2" in (mine / "00-a.ipynb").read_text()
    assert "ANSWER = 3" in (mine / "01-b.ipynb").read_text()
    assert "check(ANSWER)" in (mine / "01-b.new.ipynb").read_text()
    assert sync_notebooks(workspace, shipped).lines() == [], "the new version is offered once"


def test_an_unreadable_copy_or_record_keeps_the_learners_file(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    _notebook(shipped / "00-a.ipynb", "x = 1")
    workspace, _ = init_workspace(tmp_path / "ws", "ada")
    sync_notebooks(workspace, shipped)
    (workspace.root / "notebooks" / "00-a.ipynb").write_text("{half a notebook")
    (workspace.state_path.parent / "notebooks.json").write_text("[not a record")
    _notebook(shipped / "00-a.ipynb", "x = 2")
    done = sync_notebooks(workspace, shipped)
    assert done.beside == [("00-a.ipynb", "00-a.new.ipynb")]
    assert (workspace.root / "notebooks" / "00-a.ipynb").read_text() == "{half a notebook"


def test_saving_in_the_lab_cannot_touch_the_shipped_notebooks(tmp_path: Path) -> None:
    """The folder `routerlab lab` serves is the workspace's copy, never the checkout's."""
    workspace, _ = init_workspace(tmp_path / "ws", "ada")
    done = sync_notebooks(workspace, shipped_notebooks())
    assert done.folder == workspace.root / "notebooks"
    assert not done.folder.resolve().is_relative_to(ROOT)
    assert len(done.added) == len(list((ROOT / "notebooks").glob("*.ipynb"))) > 0


def test_a_dir_that_is_a_file_or_lies_under_one_is_refused_even_by_a_dry_run(
        tmp_path: Path) -> None:
    """Checked before JupyterLab is looked for: through the entry point, one line, exit 1."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0)
    for given, said in ((a_file, f"{a_file} is not a folder"),
                        (a_file / "ws", f"{a_file} is not a folder"),
                        (Path("/etc/passwd"), "/etc/passwd is not a folder")):
        done = subprocess.run([sys.executable, "-m", "routerlab", "lab", "--dir", str(given),
                               "--dry-run"], capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout) == (1, ""), done.stderr
        assert done.stderr.startswith(f"error: {said}") and len(done.stderr.splitlines()) == 1
    if os.geteuid() != 0:  # root reads any folder
        done = CliRunner().invoke(app, ["lab", "--dir", str(locked / "ws"), "--dry-run"])
        assert done.exit_code == 1 and "cannot look at the workspace folder" in str(
            done.exception)
    locked.chmod(0o700)
    assert a_file.read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == [
        "locked", "notes.txt"]
