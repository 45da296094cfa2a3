"""`routerlab hub`'s refusals, each one line before anything starts, and the demo's
configuration as JupyterHub reads it (no hub is started here)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli import hub_server
from routerlab.cli.app import app
from routerlab.exercises.teacher import hub as classhub


def test_without_demo_it_points_at_deploy() -> None:
    result = CliRunner().invoke(app, ["hub"])
    assert result.exit_code == 1 and "deploy/" in str(result.exception)


def test_a_missing_proxy_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    pytest.importorskip("jupyterhub", reason="the class extra is not installed")
    monkeypatch.setattr(classhub, "find_proxy", lambda: None)
    result = CliRunner().invoke(app, ["hub", "--demo", "--dir", str(tmp_path / "d"), "--port",
                                      str(hub_server.free_port())])
    assert result.exit_code == 1
    assert "npm install -g configurable-http-proxy" in str(result.exception)
    assert not (tmp_path / "d").exists(), "nothing written before the refusal"


def test_a_folder_that_is_not_a_demos_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    pytest.importorskip("jupyterhub", reason="the class extra is not installed")
    monkeypatch.setattr(classhub, "find_proxy", lambda: Path("/bin/true"))
    (tmp_path / "notes.txt").write_text("mine")
    mode = tmp_path.stat().st_mode
    result = CliRunner().invoke(app, ["hub", "--demo", "--dir", str(tmp_path), "--port",
                                      str(hub_server.free_port())])  # 8000 may be taken here
    assert result.exit_code == 1 and "not a demo hub's folder" in str(result.exception)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert tmp_path.stat().st_mode == mode


def test_the_password_is_kept_for_the_next_start(tmp_path: Path) -> None:
    first = classhub.demo_password(tmp_path, None)
    assert classhub.demo_password(tmp_path, None) == first
    assert classhub.demo_password(tmp_path, "given") == "given"
    assert (tmp_path / "password").stat().st_mode & 0o077 == 0


def test_the_config_is_loopback_only_and_private(tmp_path: Path) -> None:
    demo = classhub.DemoHub(tmp_path / "h", 8123, 2, "pw", Path("/bin/true"), tmp_path / "c")
    config = json.loads(demo.write(8124, 8125).read_text())
    hub = config["JupyterHub"]
    assert (hub["ip"], hub["hub_ip"]) == ("127.0.0.1", "127.0.0.1")
    assert config["ConfigurableHTTPProxy"]["api_url"] == "http://127.0.0.1:8125"
    assert config["Authenticator"]["allowed_users"] == ["student1", "student2", "teacher"]
    assert config["Authenticator"]["admin_users"] == ["teacher"]
    assert config["Spawner"]["environment"] == {classhub.COURSE_ENV: str(tmp_path / "c")}
    assert hub["services"][0]["api_token"] == demo.token_file.read_text().strip()
    for path in (demo.config_file, demo.token_file):
        assert path.stat().st_mode & 0o077 == 0, f"{path.name} holds secrets"
    assert (tmp_path / "h").stat().st_mode & 0o077 == 0


def test_jupyterhub_reads_the_config(tmp_path: Path) -> None:
    app_module = pytest.importorskip("jupyterhub.app", reason="the class extra is missing")
    demo = classhub.DemoHub(tmp_path / "h", 8123, 1, "pw", Path("/bin/true"))
    jupyterhub = app_module.JupyterHub()
    jupyterhub.load_config_file(str(demo.write(8124, 8125)))
    assert jupyterhub.config.JupyterHub.port == 8123
    assert jupyterhub.config.DummyAuthenticator.password == "pw"
    assert jupyterhub.config.Spawner.default_url == classhub.OPEN_URL


def test_a_port_where_a_hub_answers_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jupyterhub", reason="the class extra is not installed")
    monkeypatch.setattr(classhub, "find_proxy", lambda: Path("/bin/true"))

    class Hub(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/hub/api/" else 404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    running = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    try:
        port = running.server_address[1]
        result = CliRunner().invoke(app, ["hub", "--demo", "--port", str(port), "--dir",
                                          str(tmp_path / "d")])
    finally:
        running.shutdown()
    assert result.exit_code == 1 and f"127.0.0.1:{port}" in str(result.exception)
