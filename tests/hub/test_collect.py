"""`teacher collect` against a small stand-in hub on 127.0.0.1: what a hostile or broken server
can make it do (nothing outside OUT), where the token comes from (never argv), and how each
failure reads. The real hub is in test_demo_hub.py."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.teacher.collect import MANIFEST, CollectError, Hub, collect, read_token

TOKEN = "admin-token-123"


class FakeHub:
    """The three calls collect makes, answered from `files` per user (path → bytes)."""

    def __init__(self, files: dict[str, dict[str, bytes]]) -> None:
        self.files = files
        self.running: set[str] = set()
        self.broken: set[str] = set()
        """Users whose server never starts (a failed spawn)."""
        self.requests: list[tuple[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake.answer(self, "GET")

            def do_POST(self) -> None:
                fake.answer(self, "POST")

            def do_DELETE(self) -> None:
                fake.answer(self, "DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        path = urlsplit(handler.path).path
        self.requests.append((method, handler.path))
        if handler.headers.get("Authorization") != f"token {TOKEN}":
            return self.send(handler, 403, {"message": "forbidden"})
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts[:3] == ["hub", "api", "users"] and len(parts) == 3:
            return self.send(handler, 200, [{"name": n, "admin": False} for n in self.files]
                             + [{"name": "teacher", "admin": True}])
        if parts[:3] == ["hub", "api", "users"] and len(parts) == 4:
            servers = {"": {"ready": True}} if parts[3] in self.running else {}
            return self.send(handler, 200, {"name": parts[3], "servers": servers})
        if parts[:3] == ["hub", "api", "users"] and parts[4:] == ["server"]:
            if parts[3] not in self.broken:
                (self.running.add if method == "POST" else self.running.discard)(parts[3])
            return self.send(handler, 202 if method == "POST" else 204, None)
        if parts[0] == "user" and parts[2:4] == ["api", "contents"]:
            return self.contents(handler, parts[1], "/".join(parts[4:]))
        self.send(handler, 404, {"message": "no"})

    def contents(self, handler: BaseHTTPRequestHandler, user: str, path: str) -> None:
        files = self.files[user]
        if path in files:
            return self.send(handler, 200, {"type": "file", "size": len(files[path]),
                                            "content": base64.b64encode(files[path]).decode()})
        below = {p.split("/")[len(path.split("/")) if path else 0]
                 for p in files if p.startswith(path + "/" if path else "")}
        entries = [{"path": f"{path}/{n}" if path else n,
                    "type": "file" if (f"{path}/{n}" if path else n) in files else "directory"}
                   for n in sorted(below)]
        self.send(handler, 200, {"type": "directory", "content": entries})

    @staticmethod
    def send(handler: BaseHTTPRequestHandler, code: int, body: Any) -> None:
        raw = b"" if body is None else json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)


WORKSPACE = {"routerlab-exercises.toml": b'student = "s"\n',
             "exercises/quant_3.py": b"x = 1\n", ".routerlab/state.json": b"{}",
             ".routerlab/secret.key": b"not copied", "notebooks/00-welcome.ipynb": b"{}",
             "big/data.bin": b"not copied"}


@pytest.fixture
def fake_hub() -> Iterator[FakeHub]:
    hub = FakeHub({"ada": dict(WORKSPACE), "bob": dict(WORKSPACE)})
    yield hub
    hub.server.shutdown()


def test_collect_copies_each_workspace_and_stops_what_it_started(
        fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.running.add("ada")
    done = collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")
    assert [d.student for d in done] == ["ada", "bob"] and not any(d.problem for d in done)
    for name in ("ada", "bob"):
        copied = sorted(p.relative_to(tmp_path / "out" / name).as_posix()
                        for p in (tmp_path / "out" / name).rglob("*") if p.is_file())
        assert copied == [".routerlab/state.json", "exercises/quant_3.py",
                          "notebooks/00-welcome.ipynb", "routerlab-exercises.toml"]
    assert fake_hub.running == {"ada"}, "bob's server was started for the copy, then stopped"
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    assert [s["student"] for s in manifest["students"]] == ["ada", "bob"]
    assert all("token" not in path.lower() for _, path in fake_hub.requests)


def test_names_a_server_returns_cannot_leave_out(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.files["ada"]["exercises/../../../escape.py"] = b"evil"
    fake_hub.files["ada"]["exercises/..\\x.py"] = b"evil"
    collect(Hub(fake_hub.url, TOKEN), tmp_path / "out", only=["ada"])
    assert not any("escape" in p.name or "\\" in p.name for p in tmp_path.rglob("*"))
    assert (tmp_path / "out" / "ada" / "exercises" / "quant_3.py").is_file()


def test_a_user_name_that_is_no_folder_name_is_refused(fake_hub: FakeHub,
                                                       tmp_path: Path) -> None:
    fake_hub.files["../x"] = dict(WORKSPACE)
    with pytest.raises(CollectError, match="cannot be a folder name"):
        collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")


def test_a_server_without_a_workspace_is_reported_and_the_others_collected(
        fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.files["bob"] = {"notes.txt": b"hi"}
    done = {d.student: d for d in collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")}
    assert not done["ada"].problem
    assert "no RouterLab workspace" in done["bob"].problem


def test_a_server_that_fails_to_start_is_reported_at_once(fake_hub: FakeHub,
                                                           tmp_path: Path) -> None:
    fake_hub.broken.add("bob")
    started = time.monotonic()
    done = {d.student: d for d in collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")}
    assert "failed to start" in done["bob"].problem and not done["ada"].problem
    assert time.monotonic() - started < 60, "not the whole start limit"


def test_the_token_comes_from_a_file_or_the_environment_never_argv(
        fake_hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    for name in ("ROUTERLAB_HUB_TOKEN", "JUPYTERHUB_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    refused = runner.invoke(app, ["teacher", "collect", str(tmp_path / "a"), "--hub",
                                  fake_hub.url, "--token", TOKEN])
    assert refused.exit_code != 0 and "No such option" in refused.output
    with pytest.raises(CollectError, match="no hub API token"):
        read_token(None)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    by_file = runner.invoke(app, ["teacher", "collect", str(tmp_path / "b"), "--hub",
                                  fake_hub.url, "--token-file", str(token_file), "--plain"])
    assert by_file.exit_code == 0, by_file.output
    assert "2/2 students collected" in by_file.output and TOKEN not in by_file.output
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", TOKEN)
    assert read_token(None) == TOKEN


def test_a_wrong_token_and_a_dead_hub_read_as_one_line(fake_hub: FakeHub, tmp_path: Path) -> None:
    with pytest.raises(CollectError, match="403 .*admin's token"):
        collect(Hub(fake_hub.url, "wrong"), tmp_path / "out")
    url = fake_hub.url
    fake_hub.server.shutdown()
    fake_hub.server.server_close()
    with pytest.raises(CollectError, match="cannot reach the hub"):
        collect(Hub(url, TOKEN), tmp_path / "out")
    with pytest.raises(CollectError, match="not an http"):
        Hub("ftp://127.0.0.1/", TOKEN)
