"""The class on a real JupyterHub, end to end (issue 24 §1), on 127.0.0.1 only.

`routerlab hub --demo` starts JupyterHub, configurable-http-proxy and, on request, each student's
JupyterLab. Two students log in through the hub's REST API with the demo password, their servers
start in their class workspaces, one student's answer is written through the Jupyter contents
API, the teacher collects both workspaces with the admin token from its file and regrades them:
that student passes that exercise, the other has zero; the class report reads that regrade. A
restarted server still has the answer,
and SIGTERM leaves no process of the class alive.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from hubtools import DemoHub, alive, need_hub

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.engine.jail import unavailable
from routerlab.exercises.teacher.hub import OPEN_URL

pytestmark = [pytest.mark.slow, pytest.mark.alone]

EXERCISE = "quant-3"
READY_LIMIT_S = 120


def call(hub: DemoHub, method: str, path: str, body: Any = None, token: str = "") -> Any:
    request = urllib.request.Request(
        hub.url + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json",
                 **({"Authorization": f"token {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
    return json.loads(raw) if raw.strip() else None


def log_in(hub: DemoHub, user: str, password: str) -> str:
    """A student's API token, given for their name and password (the hub's login, by API)."""
    made = call(hub, "POST", f"/hub/api/users/{user}/tokens",
                {"auth": {"username": user, "password": password}, "expires_in": 3600})
    return str(made["token"])


def start_server(hub: DemoHub, user: str, token: str) -> dict[str, Any]:
    call(hub, "POST", f"/hub/api/users/{user}/server", token=token)
    deadline = time.monotonic() + READY_LIMIT_S
    while time.monotonic() < deadline:
        server = call(hub, "GET", f"/hub/api/users/{user}", token=token)["servers"].get("")
        if server and server.get("ready"):
            return dict(server)
        time.sleep(0.5)
    raise AssertionError(f"{user}'s server did not start in {READY_LIMIT_S} s\n{hub.log_tail()}")


def stop_server(hub: DemoHub, user: str, token: str) -> None:
    call(hub, "DELETE", f"/hub/api/users/{user}/server", token=token)
    deadline = time.monotonic() + READY_LIMIT_S
    while call(hub, "GET", f"/hub/api/users/{user}", token=token)["servers"].get(""):
        assert time.monotonic() < deadline, f"{user}'s server did not stop"
        time.sleep(0.5)


def contents(hub: DemoHub, user: str, token: str, path: str, body: Any = None) -> Any:
    return call(hub, "PUT" if body is not None else "GET",
                f"/user/{user}/api/contents/{path}", body, token)


def opened(hub: DemoHub, user: str, token: str) -> str:
    """Where the student's server sends them first (its default URL, after redirects)."""
    request = urllib.request.Request(f"{hub.url}/user/{user}/",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(response.url)


def test_sigterm_stops_the_hub_and_its_proxy(tmp_path: Path) -> None:
    need_hub()
    hub = DemoHub(tmp_path / "hub", students=1, password="pw-2")
    try:
        processes = hub.remember_processes()
        assert len(processes) >= 2, "JupyterHub and configurable-http-proxy"
        assert hub.stop(signal.SIGTERM) == 0
        assert [pid for pid in processes if alive(pid)] == []
        assert "every student's server stopped" in "".join(hub.process.stdout or [])
    finally:
        hub.cleanup()


def test_a_class_on_the_demo_hub_from_login_to_grades(demo_hub: DemoHub, tmp_path: Path) -> None:
    with pytest.raises(urllib.error.HTTPError):  # the password is checked
        log_in(demo_hub, "student1", "not-the-password")
    tokens = {user: log_in(demo_hub, user, demo_hub.password)
              for user in ("student1", "student2")}
    for user, token in tokens.items():
        server = start_server(demo_hub, user, token)
        assert server["url"] == f"/user/{user}/"
        # the class workspace, with notebook 00 open first
        assert contents(demo_hub, user, token, "routerlab-exercises.toml")["type"] == "file"
        assert contents(demo_hub, user, token, "notebooks/00-welcome.ipynb")["type"] == "notebook"
        assert opened(demo_hub, user, token).endswith(f"/user/{user}/{OPEN_URL.lstrip('/')}")
    with pytest.raises(urllib.error.HTTPError):  # a student cannot reach another's server
        contents(demo_hub, "student2", tokens["student1"], "routerlab-exercises.toml")

    exercise = load_catalog().get(EXERCISE)
    answer = open_solution(exercise)
    path = f"exercises/{exercise.file_name}"
    contents(demo_hub, "student1", tokens["student1"], path,
             {"type": "file", "format": "text", "content": answer})
    # work is kept across a restart of the student's server
    stop_server(demo_hub, "student1", tokens["student1"])
    start_server(demo_hub, "student1", tokens["student1"])
    assert contents(demo_hub, "student1", tokens["student1"], path)["content"] == answer
    demo_hub.remember_processes()

    out = tmp_path / "submitted"
    collected = subprocess.run(
        [sys.executable, "-m", "routerlab", "teacher", "collect", str(out), "--hub",
         demo_hub.url, "--token-file", str(demo_hub.token_file), "--plain"],
        capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert demo_hub.token_file.read_text().strip() not in collected.stdout + collected.stderr
    assert (out / "student1" / path).read_text() == answer
    assert (out / "student2" / "routerlab-exercises.toml").is_file()

    grades = tmp_path / "grades" / "grades.csv"
    grades.parent.mkdir()
    isolation = [] if unavailable() is None else ["--no-isolation"]  # the jail has its tests
    roster = tmp_path / "roster.csv"  # the hub's user names are the roster's ids
    roster.write_text("id,name,email\nstudent1,Ada,ada@example.org\n"
                      "student2,Bob,bob@example.org\nstudent3,Cy,cy@example.org\n")
    regraded = subprocess.run(
        [sys.executable, "-m", "routerlab", "teacher", "recheck", "--roster", str(roster),
         str(out), "--course", "routerlab-demo", "--out", str(grades), "--plain", *isolation],
        capture_output=True, text=True, timeout=600)
    assert regraded.returncode == 0, regraded.stdout + regraded.stderr
    lines = grades.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("id,"))  # after a warning
    rows = {row["id"]: row for row in csv.DictReader(lines[header:])}
    assert float(rows["student1"][EXERCISE]) == exercise.points
    assert float(rows["student1"]["points"]) == exercise.points
    assert float(rows["student2"]["points"]) == 0
    assert rows["student3"]["status"] == "no submission"

    report = tmp_path / "report.html"
    reported = subprocess.run(
        [sys.executable, "-m", "routerlab", "teacher", "report", str(grades.parent), "--html",
         str(report), "--plain"], capture_output=True, text=True, timeout=120)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert "2 students regraded" in report.read_text()

    processes = demo_hub.remember_processes()
    assert len(processes) >= 4, "hub, proxy and two students' servers were running"
    assert demo_hub.stop(signal.SIGINT) == 0  # Ctrl-C, as a teacher stops it
    assert [pid for pid in processes if alive(pid)] == []
    assert not (demo_hub.folder / "jupyterhub.pid").exists()
