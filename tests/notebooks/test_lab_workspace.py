"""The learner's workspace that `routerlab lab` serves: every link of a notebook opens there, and
killing `./run lab` leaves no JupyterLab and no kernel behind.

The notebooks link to RouterLab's docs as `../docs/NAME.md#anchor`; in the workspace they sit in
`<workspace>/notebooks/`, so the docs must be copied to `<workspace>/docs/` (`sync_docs`) or
every such link is a 404 there. `./run` hands over to the command it runs, so a signal sent to
it reaches RouterLab, which stops JupyterLab, which shuts its kernels down.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from routerlab.exercises.learner.lab_notebooks import (
    NotebookSync,
    shipped_docs,
    shipped_notebooks,
    sync_docs,
    sync_notebooks,
)
from routerlab.exercises.learner.workspace import init_workspace, open_workspace

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")
URL = re.compile(r"Open: (http://127\.0\.0\.1:(\d+)/\S*\?token=(\w+))")


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading (what the notebooks' `#anchor`s are written as)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    init_workspace(root, student="ada")
    workspace = open_workspace(root)
    done = sync_notebooks(workspace, shipped_notebooks())
    sync_docs(workspace, shipped_docs(), done)
    return root


def test_every_link_of_a_notebook_opens_in_the_learners_workspace(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    checked = 0
    for notebook in sorted((root / "notebooks").glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for target in LINK.findall("".join(cell["source"])):
                if target.startswith(("http://", "https://", "#", "mailto:")):
                    continue
                path, _, anchor = target.partition("#")
                page = (notebook.parent / path).resolve()
                where = f"{notebook.name} links to {target}"
                assert page.is_file() and page.is_relative_to(root), f"{where}: 404 in the lab"
                if anchor:
                    headings = re.findall(r"^#+\s+(.*)$", page.read_text(encoding="utf-8"),
                                          re.M)
                    assert anchor in {_slug(h) for h in headings}, f"{where}: no such heading"
                checked += 1
    assert checked >= 16, f"only {checked} links checked: the notebooks link to the docs"


def test_docs_in_the_workspace_follow_the_shipped_ones(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    shipped = sorted(p.name for p in shipped_docs().glob("*.md"))
    assert sorted(p.name for p in (root / "docs").glob("*.md")) == shipped
    workspace = open_workspace(root)
    assert sync_docs(workspace, shipped_docs(), NotebookSync(root)).docs == [], "up to date"
    (root / "docs" / "burn.md").write_text("stale\n", encoding="utf-8")
    done = sync_docs(workspace, shipped_docs(), NotebookSync(root / "notebooks"))
    assert done.docs == ["burn.md"] and "documentation" in done.lines()[-1]
    assert (root / "docs" / "burn.md").read_bytes() == (shipped_docs() / "burn.md").read_bytes()


def _run_script():
    loader = importlib.machinery.SourceFileLoader("routerlab_run_script", str(ROOT / "run"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _descendants(pid: int) -> list[int]:
    found = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            listed = children.read_text().split()
        except OSError:
            continue
        for child in map(int, listed):
            found += [child, *_descendants(child)]
    return found


def _argv(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.skipif(not Path("/proc").is_dir() or os.name != "posix", reason="needs Linux /proc")
@pytest.mark.skipif(importlib.util.find_spec("jupyterlab") is None, reason="jupyterlab missing")
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_killing_run_lab_stops_jupyterlab_and_its_kernels(
        tmp_path: Path, venv_kernel: str, signame: str) -> None:
    run = _run_script()
    stamp = run.VENV / ".routerlab-stamp"
    stamps = stamp.read_text().splitlines() if stamp.is_file() else []
    if not run._installed(stamps, run.EXTRAS["lab"], run._digest()):
        pytest.skip("./run lab would install the notebook extra first (its .venv is not current)")
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
           "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    log = (tmp_path / "lab.log").open("w+")
    process = subprocess.Popen([str(ROOT / "run"), "lab", "--dir", str(tmp_path / "ws")],
                               stdout=subprocess.PIPE, stderr=log, text=True, env=env,
                               start_new_session=True)
    try:
        match = None
        for _ in range(8):
            if match := URL.search(process.stdout.readline()):
                break
        assert match, "no URL printed"
        base, token = f"http://127.0.0.1:{match[2]}", match[3]
        _wait_for(f"{base}/api/status?token={token}", log)
        request = urllib.request.Request(f"{base}/api/kernels?token={token}", method="POST",
                                         data=json.dumps({"name": "python3"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            kernel = json.load(response)["id"]
        kernels: list[int] = []
        end = time.monotonic() + 30
        while not kernels and time.monotonic() < end:
            kernels = [p for p in _descendants(process.pid) if kernel in _argv(p)]
            time.sleep(0.2)
        assert kernels, "the kernel process did not start"
        started = [process.pid, *_descendants(process.pid)]
        assert any("jupyterlab" in _argv(p) for p in started), [_argv(p) for p in started]

        process.send_signal(getattr(signal, signame))  # to ./run alone, as `kill PID` does
        assert process.wait(timeout=45) == 0
        end = time.monotonic() + 15
        while (left := [p for p in started if _alive(p)]) and time.monotonic() < end:
            time.sleep(0.2)
        assert not left, f"still running after {signame}: {[_argv(p) for p in left]}"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


def _wait_for(url: str, log) -> None:
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.25)
    log.seek(0)
    pytest.fail(f"JupyterLab did not answer within 60 s:\n{log.read()[-3000:]}")


def test_a_notebook_copy_nested_100k_deep_is_kept_as_the_learners_own(tmp_path: Path) -> None:
    """A copy that is no readable notebook (JSON nested past any limit, a broken record) is the
    learner's: kept, the shipped one put beside it; never a RecursionError."""
    root = _workspace(tmp_path)
    name = sorted(p.name for p in shipped_notebooks().glob("*.ipynb"))[0]
    bomb = "[" * 100_000 + "]" * 100_000
    (root / "notebooks" / name).write_text(bomb, encoding="utf-8")
    (root / ".routerlab" / "notebooks.json").write_text(bomb, encoding="utf-8")
    done = sync_notebooks(open_workspace(root), shipped_notebooks())
    assert [kept for kept, _ in done.beside] == [name]
    assert (root / "notebooks" / name).read_text(encoding="utf-8") == bomb
