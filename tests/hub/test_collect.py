"""`teacher collect` against a small stand-in hub on 127.0.0.1: what a hostile or broken server
can make it do (nothing outside OUT), where the token comes from (never argv), and how each
failure reads. The real hub is in test_demo_hub.py."""

from __future__ import annotations

import base64
import contextlib
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
        self.raw: dict[str, bytes] = {}
        """URL path → the whole answer's bytes, sent as they are (a malformed hub)."""
        self.redirects: dict[str, str] = {}
        """URL path → where a 302 sends the client."""
        self.lies = False
        """List each folder inside itself and state every file's size as 1."""
        self.delay = 0.0
        self.slow: set[str] = set()
        """Users whose every request waits `delay` seconds (all users' do when empty)."""
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
        parts = [unquote(p) for p in path.strip("/").split("/")]
        about = parts[1] if parts[0] == "user" else parts[3] if len(parts) > 3 else ""
        if not self.slow or about in self.slow:
            time.sleep(self.delay)
        if path in self.raw:
            handler.wfile.write(self.raw[path])
            handler.close_connection = True
            return None
        if path in self.redirects:
            handler.send_response(302)
            handler.send_header("Location", self.redirects[path])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return None
        if handler.headers.get("Authorization") != f"token {TOKEN}":
            return self.send(handler, 403, {"message": "forbidden"})
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
            return self.send(handler, 200, {"type": "file",
                                            "size": 1 if self.lies else len(files[path]),
                                            "content": base64.b64encode(files[path]).decode()})
        below = {p.split("/")[len(path.split("/")) if path else 0]
                 for p in files if p.startswith(path + "/" if path else "")}
        entries = [{"path": f"{path}/{n}" if path else n,
                    "type": "file" if (f"{path}/{n}" if path else n) in files else "directory"}
                   for n in sorted(below)]
        if self.lies:  # the folder itself, and the workspace's root, listed inside it
            entries += [{"path": path, "type": "directory"}, {"path": "", "type": "directory"}]
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
    done = {d.student: d for d in collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")}
    # "failed to start", not "did not start in 180 s": the hub's word was taken at once, the
    # start limit never ran out
    assert "failed to start" in done["bob"].problem and not done["ada"].problem
    assert "did not start in" not in done["bob"].problem


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


# --- a hostile hub ------------------------------------------------------------------------------


class Listener:
    """Another port on loopback that records every byte anyone sends it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.heard = b""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        while not self.stop.is_set():  # bounded: `close` sets it
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(1.0)
                with contextlib.suppress(OSError):
                    self.heard += conn.recv(65536) or b"(connected)"

    def close(self) -> bytes:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()
        return self.heard


def test_a_redirect_is_refused_and_the_token_never_reaches_another_port(
        fake_hub: FakeHub, tmp_path: Path) -> None:
    other = Listener()
    try:
        fake_hub.redirects["/hub/api/users"] = f"{other.url}/hub/api/users"
        with pytest.raises(CollectError, match=r"302 with a redirect to .*collect follows none"):
            collect(Hub(fake_hub.url, TOKEN), tmp_path / "a")
        fake_hub.redirects = {"/user/bob/api/contents/": f"{other.url}/x",  # one student's
                              "/user/ada/api/contents/": f"{fake_hub.url}/elsewhere"}  # its own
        done = {d.student: d for d in collect(Hub(fake_hub.url, TOKEN), tmp_path / "b")}
    finally:
        heard = other.close()
    assert "redirect" in done["bob"].problem and "redirect" in done["ada"].problem
    assert heard == b"", "nothing ever reached the other port, least of all the token"
    assert not any(p.endswith("/x") or "elsewhere" in p for _, p in fake_hub.requests)
    assert fake_hub.running == set(), "each server started for the copy was stopped again"


def test_a_malformed_hub_answer_is_one_line_never_a_traceback(
        fake_hub: FakeHub, tmp_path: Path) -> None:
    users = "/hub/api/users"
    for raw, said in ((b"garbage\r\n\r\n", r"not valid HTTP \(BadStatusLine\)"),  # BadStatusLine
                      (b"HTTP/1.1 200 OK\r\n\r\n" + b"[" * 100_000, "nested deeper than 64"),
                      (b"HTTP/1.1 200 OK\r\n\r\n[{\"name\": " + b"9" * 5000 + b"}]",
                       "an integer of 5000 digits"),  # int()'s digit limit: a ValueError
                      (b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n[]", "not valid HTTP")):
        fake_hub.raw[users] = raw
        with pytest.raises(CollectError, match=said):
            collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")
    fake_hub.raw.clear()
    body = {"/hub/api/users/ada": {"name": "ada", "servers": []},  # was an AttributeError
            "/user/bob/api/contents/exercises": {"type": "directory", "content": ["x"]},
            "/user/eve/api/contents/exercises/quant_3.py": {"content": "x", "size": "big"}}
    fake_hub.files["eve"] = dict(WORKSPACE)  # "big" was int()'s ValueError
    fake_hub.running.update(("bob", "eve"))
    for path, answer in body.items():
        raw = json.dumps(answer).encode()
        fake_hub.raw[path] = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(raw), raw)
    done = {d.student: d.problem for d in collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")}
    assert "no readable server table" in done["ada"]
    assert "listing is not a list of entries" in done["bob"]
    assert "not base64" in done["eve"]  # a size that is no number is never read
    assert all("\n" not in problem for problem in done.values())
    with pytest.raises(CollectError, match="not an http"):
        Hub("http://127.0.0.1:99999", TOKEN)  # urlsplit's port: a ValueError


def test_a_token_that_cannot_be_one_header_is_refused(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("first-token\nsecond-token\n")
    with pytest.raises(CollectError, match="holds no single token"):
        read_token(token_file)


def _dripping_hub(stop: threading.Event) -> tuple[str, socket.socket]:
    """A 'hub' that accepts and sends an answer's head one byte every 0.1 s, forever."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)

    def drip() -> None:
        held: dict[socket.socket, int] = {}  # each connection, and the bytes sent it
        head = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"z" * 10_000
        while not stop.is_set():  # bounded: the test sets `stop`
            with contextlib.suppress(TimeoutError, OSError):
                held[server.accept()[0]] = 0
            for conn, sent in held.items():
                with contextlib.suppress(OSError):
                    conn.send(head[sent:sent + 1])
                held[conn] = sent + 1
        for conn in held:
            conn.close()

    threading.Thread(target=drip, daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}", server


@pytest.mark.timeout(30)
def test_a_dripping_hub_is_cut_by_the_request_timeout_and_the_whole_collects_deadline(
        tmp_path: Path) -> None:
    stop = threading.Event()
    url, server = _dripping_hub(stop)
    try:
        # each refusal names the limit that fired (the request's, then the whole collect's);
        # the drip never ends, so without them the test's own 30 s timeout would fail it
        with pytest.raises(CollectError, match="no whole answer within 1 s"):
            collect(Hub(url, TOKEN, timeout=1.0), tmp_path / "out")
        with pytest.raises(CollectError, match=r"time limit \(1.5 s\) passed"):
            collect(Hub(url, TOKEN), tmp_path / "out", limit_s=1.5)
    finally:
        stop.set()
        server.close()


@pytest.mark.timeout(30)
def test_the_deadline_reports_the_students_it_left_and_stops_what_it_started(
        fake_hub: FakeHub, tmp_path: Path) -> None:
    """ada and bob answer at once, the hub keeps every request about s0..s5 waiting 3 s: the
    limit passes while s0 is copied, whatever the machine's load."""
    fake_hub.files.update({f"s{n}": dict(WORKSPACE) for n in range(6)})
    fake_hub.slow, fake_hub.delay = {f"s{n}" for n in range(6)}, 3.0
    done = collect(Hub(fake_hub.url, TOKEN), tmp_path / "out", limit_s=2.0)
    assert [d.student for d in done if not d.problem] == ["ada", "bob"]
    late = [d.student for d in done if "time limit (2 s) passed" in d.problem]
    assert late == [f"s{n}" for n in range(6)], "the rest each said why not"
    assert fake_hub.running == set(), "a server started for the copy is stopped past the limit"


@pytest.mark.timeout(30)
def test_a_folder_listed_inside_itself_is_walked_once(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.lies = True
    done = collect(Hub(fake_hub.url, TOKEN), tmp_path / "out", only=["ada"])
    assert not done[0].problem
    listings = [p for _, p in fake_hub.requests if p.endswith("?content=1")]
    assert sorted(listings) == sorted(f"/user/ada/api/contents/{f}?content=1"
                                      for f in ("", "exercises", "notebooks", ".routerlab"))


def test_a_file_over_the_cap_is_refused_by_its_bytes_not_its_stated_size(
        fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.lies = True  # every file says it holds 1 byte
    fake_hub.files["ada"]["exercises/big.py"] = b"#" * (9 << 20)
    done = {d.student: d for d in collect(Hub(fake_hub.url, TOKEN), tmp_path / "out")}
    assert "exercises/big.py: over 8 MiB" in done["ada"].problem and not done["bob"].problem
    assert not (tmp_path / "out" / "ada" / "exercises" / "big.py").exists()
    assert max(p.stat().st_size for p in (tmp_path / "out").rglob("*") if p.is_file()) \
        <= 8 << 20
