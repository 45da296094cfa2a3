"""`teacher collect` into a term (issue 37 §8, issue 38 §2), against a stand-in hub on 127.0.0.1
that reports activity and file times as JupyterHub and Jupyter's contents API do: a refused
connection is tried again, a student whose server is unchanged is not copied again, a
re-collect of some students appends, and each file's hub time reaches the gradebook."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from routerlab.exercises.authoring.secret import ensure_secret
from routerlab.exercises.teacher import collect as module
from routerlab.exercises.teacher import gradebook_term as term
from routerlab.exercises.teacher.collect import MANIFEST, CollectError, Hub, collect

TOKEN = "admin-token-38"
FILES = {"routerlab-exercises.toml": b'student = "s"\n', "exercises/quant_1.py": b"A = 1\n"}


class TermHub:
    """Users with running servers; each file has a time, each user an activity time."""

    def __init__(self, port: int = 0) -> None:
        self.files = {name: {p: (data, "2027-03-01T10:00:00.000000Z") for p, data in
                             FILES.items()} for name in ("ada", "ben")}
        self.activity = {"ada": "2027-03-01T10:00:00Z", "ben": "2027-03-01T10:00:00Z"}
        self.downloads: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hub.answer(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = [unquote(p) for p in urlsplit(handler.path).path.strip("/").split("/")]
        if parts == ["hub", "api", "users"]:
            return self.send(handler, [{"name": n, "admin": False} for n in self.files])
        if parts[:3] == ["hub", "api", "users"]:
            server = {"ready": True, "last_activity": self.activity[parts[3]]}
            return self.send(handler, {"name": parts[3], "last_activity": self.activity[parts[3]],
                                       "servers": {"": server}})
        user, path = parts[1], "/".join(parts[4:])
        files = self.files[user]
        if path in files:
            self.downloads.append(f"{user}/{path}")
            data, when = files[path]
            return self.send(handler, {"type": "file", "last_modified": when,
                                       "content": base64.b64encode(data).decode()})
        below = sorted({p.split("/")[len(path.split("/")) if path else 0] for p in files
                        if p.startswith(path + "/" if path else "")})
        entries = [{"path": f"{path}/{n}" if path else n,
                    "type": "file" if (f"{path}/{n}" if path else n) in files else "directory"}
                   for n in below]
        return self.send(handler, {"type": "directory", "content": entries})

    @staticmethod
    def send(handler: BaseHTTPRequestHandler, body: Any) -> None:
        raw = json.dumps(body).encode()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)


@pytest.fixture
def hub() -> Iterator[TermHub]:
    found = TermHub()
    yield found
    found.server.shutdown()


def test_a_recollect_skips_the_unchanged_appends_and_records_each_files_hub_time(
        hub: TermHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    ensure_secret("c38", False, tmp_path / "bundle")
    out = tmp_path / "submitted"
    first = collect(Hub(hub.url, TOKEN), out, course="c38")
    assert [(c.student, c.skipped, c.problem) for c in first] == [("ada", False, ""),
                                                                  ("ben", False, "")]
    hub.downloads.clear()
    hub.files["ben"]["exercises/quant_1.py"] = (b"A = 2\n", "2027-03-04T09:30:00Z")
    hub.activity["ben"] = "2027-03-04T09:31:00Z"
    second = collect(Hub(hub.url, TOKEN), out, only=["ben"], course="c38")
    assert [(c.student, c.skipped) for c in second] == [("ben", False)]
    assert (out / "ben" / "exercises" / "quant_1.py").read_bytes() == b"A = 2\n"
    manifest = json.loads((out / MANIFEST).read_text())
    assert [s["student"] for s in manifest["students"]] == ["ada", "ben"], \
        "a re-collect of ben keeps ada's collection"
    assert manifest["students"][1]["modified"]["exercises/quant_1.py"] == \
        "2027-03-04T09:30:00+00:00"
    third = collect(Hub(hub.url, TOKEN), out, course="c38")
    assert [c.skipped for c in third] == [True, True] and hub.downloads == \
        ["ben/routerlab-exercises.toml", "ben/exercises/quant_1.py"], "nothing copied twice"
    collections = [e for e in term.history("c38", "ben") if e["kind"] == "collection"]
    assert [c["files"]["exercises/quant_1.py"]["modified"] for c in collections] == [
        "2027-03-01T10:00:00+00:00", "2027-03-04T09:30:00+00:00"]


def test_a_changed_copy_on_disk_is_collected_again(hub: TermHub, tmp_path: Path) -> None:
    out = tmp_path / "submitted"
    collect(Hub(hub.url, TOKEN), out)
    (out / "ada" / "exercises" / "quant_1.py").write_bytes(b"edited by hand\n")
    again = collect(Hub(hub.url, TOKEN), out)
    assert [c.skipped for c in again] == [False, True]
    assert (out / "ada" / "exercises" / "quant_1.py").read_bytes() == b"A = 1\n"


def test_a_proxy_restart_mid_collect_is_waited_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub answers the user list, then its port refuses for a while (a proxy restarting),
    then answers again: every student is collected."""
    monkeypatch.setattr(module, "RETRY_DELAYS", (0.2, 0.4, 0.8, 1.6, 3.2))
    first = TermHub()
    port = first.server.server_address[1]
    hubs = [first]
    answer = first.answer

    def restart_after_the_list(handler: BaseHTTPRequestHandler) -> None:
        answer(handler)
        if handler.path.startswith("/hub/api/users?"):
            def restart() -> None:
                first.server.shutdown()
                first.server.server_close()
                time.sleep(0.7)
                hubs.append(TermHub(port))
            threading.Thread(target=restart, daemon=True).start()
            time.sleep(0.3)  # the port is closed before the next request

    first.answer = restart_after_the_list  # type: ignore[method-assign]
    try:
        done = collect(Hub(first.url, TOKEN), tmp_path / "out")
        assert [c.problem for c in done] == ["", ""] and len(hubs) == 2
    finally:
        for hub in hubs[1:]:
            hub.server.shutdown()


def test_a_hub_never_reached_is_one_line_at_once(tmp_path: Path) -> None:
    """A wrong address is said at once: only a hub that answered before is waited for."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(CollectError, match="cannot reach the hub"):
        collect(Hub(f"http://127.0.0.1:{port}", TOKEN), tmp_path / "out")
    assert time.monotonic() - started < module.RETRY_DELAYS[0] * 4


def test_a_course_not_released_here_is_refused_before_anything_is_copied(
        hub: TermHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from routerlab.exercises.errors import GradesError

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with pytest.raises(GradesError, match="no course 'nope'"):
        collect(Hub(hub.url, TOKEN), tmp_path / "out", course="nope")
    assert hub.downloads == [] and not (tmp_path / "out" / "ada").exists()


def test_collect_twice_from_the_command_line_appends_to_the_term(
        hub: TermHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`teacher collect --course C` as the docs write it, twice: ben re-collected late, ada
    kept; both collections of ben in his history with the hub's times."""
    import os
    import subprocess
    import sys

    data = tmp_path / "data"
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200", XDG_DATA_HOME=str(data))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))  # this process's view of the same course
    ensure_secret("c38", False, tmp_path / "bundle")
    (tmp_path / "token").write_text(TOKEN)
    command = [sys.executable, "-m", "routerlab", "teacher", "collect", "submitted",
               "--hub", hub.url, "--token-file", "token", "--course", "c38"]
    first = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=300)
    assert first.returncode == 0, first.stderr
    hub.files["ben"]["exercises/quant_1.py"] = (b"A = 3\n", "2027-03-02T09:00:00Z")
    hub.activity["ben"] = "2027-03-02T09:01:00Z"
    second = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert second.returncode == 0, second.stderr
    assert "ada: unchanged since the last collect, kept" in second.stdout
    times = [c["files"]["exercises/quant_1.py"]["modified"]
             for c in term.history("c38", "ben") if c["kind"] == "collection"]
    assert times == ["2027-03-01T10:00:00+00:00", "2027-03-02T09:00:00+00:00"]
