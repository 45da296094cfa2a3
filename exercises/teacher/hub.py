"""A class on JupyterHub: the demo hub's configuration, and a student's workspace at first spawn.

`routerlab hub --demo` runs a real JupyterHub on 127.0.0.1 for trying a class on one machine (and
for the tests): JupyterHub's dummy authenticator (one shared password for `student1..N` and
`teacher`, the hub's admin), its local-process spawner without system users (each student's home
is a folder under the demo's folder) and configurable-http-proxy. The configuration is written as
JSON, which JupyterHub reads as it reads a `jupyterhub_config.py`, so it is data a teacher can
read; the secrets in it (the password, the teacher's API token) make it private to its owner.

Every student's server is started through `python -m routerlab.cli.hub_user`, which makes the
student's class workspace in their home the first time (`prepare_workspace`) and then becomes
JupyterHub's single-user server on that workspace, opening notebook 00. The workspace outlives
the server, so work is kept across restarts; `deploy/` starts the same command on a real hub.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..authoring.bundle import COURSE_FILE, read_course, release
from ..authoring.tags import find_tag
from ..catalog import load_catalog
from ..errors import ExerciseError, WorkspaceError
from ..files import os_errors
from ..learner.lab_notebooks import FIRST, NOTEBOOK_DIR, shipped_notebooks, sync_notebooks
from ..learner.workspace import (
    MARKER,
    Workspace,
    caller_cwd,
    init_workspace,
    open_workspace,
)

TEACHER = "teacher"
"""The demo's admin user (a real hub names its own admins)."""
SERVICE = "routerlab-teacher"
"""The hub service whose API token `teacher collect` uses in the demo."""
SERVICE_SCOPES = ["list:users", "read:users", "admin:servers", "access:servers"]
"""What collecting needs: see the students, start a stopped server, read its files."""
WORKSPACE = "routerlab-exercises"
"""Each student's workspace, in their home (the folder `routerlab lab` uses by default)."""
COURSE_ENV = "ROUTERLAB_COURSE"
"""The course bundle a student's workspace is made from (`teacher release`), when set."""
OPEN_URL = f"/lab/tree/{NOTEBOOK_DIR}/{FIRST}"
PROXY = "configurable-http-proxy"
PROXY_INSTALL = "npm install -g configurable-http-proxy"
HUB_INSTALL = "pip install 'routerlab[class]'"


@dataclass(frozen=True)
class DemoHub:
    """One demo hub: its folder (database, secrets, students' homes, log) and its settings."""

    folder: Path
    port: int
    students: int
    password: str
    proxy: Path
    course: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def users(self) -> list[str]:
        return [f"student{n}" for n in range(1, self.students + 1)]

    @property
    def token_file(self) -> Path:
        """The teacher's API token (`teacher collect --token-file`), rewritten at each start."""
        return self.folder / "teacher.token"

    @property
    def config_file(self) -> Path:
        return self.folder / "jupyterhub_config.json"

    @property
    def log_file(self) -> Path:
        return self.folder / "jupyterhub.log"

    def home(self, user: str) -> Path:
        return self.folder / "home" / user

    def config(self, hub_port: int, api_port: int, token: str) -> dict[str, Any]:
        """JupyterHub's configuration, as traitlets reads it from a JSON file."""
        homes = str(self.folder / "home").replace("{", "{{").replace("}", "}}")
        environment = {COURSE_ENV: str(self.course)} if self.course else {}
        return {
            "JupyterHub": {
                "ip": "127.0.0.1", "port": self.port,
                "hub_ip": "127.0.0.1", "hub_port": hub_port,
                "authenticator_class": "dummy", "spawner_class": "simple",
                "db_url": f"sqlite:///{self.folder / 'jupyterhub.sqlite'}",
                "cookie_secret_file": str(self.folder / "cookie_secret"),
                "pid_file": str(self.folder / "jupyterhub.pid"),
                "cleanup_servers": True, "cleanup_proxy": True,
                "services": [{"name": SERVICE, "api_token": token}],
                "load_roles": [{"name": SERVICE, "scopes": SERVICE_SCOPES,
                                "services": [SERVICE]}],
            },
            "ConfigurableHTTPProxy": {"api_url": f"http://127.0.0.1:{api_port}",
                                      "command": [str(self.proxy)],
                                      "pid_file": str(self.folder / "jupyterhub-proxy.pid")},
            "Authenticator": {"allowed_users": [*self.users, TEACHER], "admin_users": [TEACHER]},
            "DummyAuthenticator": {"password": self.password},
            "SimpleLocalProcessSpawner": {"home_dir_template": homes + "/{username}"},
            "Spawner": {"cmd": [sys.executable, "-m", "routerlab.cli.hub_user"],
                        "default_url": OPEN_URL, "environment": environment,
                        "start_timeout": 180, "http_timeout": 180},
        }

    def write(self, hub_port: int, api_port: int) -> Path:
        """Write the configuration and a fresh teacher token (both readable by the owner only)."""
        token = secrets.token_hex(32)
        with os_errors("write the hub's configuration"):
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            for path, text in ((self.token_file, token + "\n"), (self.config_file, json.dumps(
                    self.config(hub_port, api_port, token), indent=1) + "\n")):
                path.touch(mode=0o600)
                path.chmod(0o600)
                path.write_text(text, encoding="utf-8")
        return self.config_file


def ready_demo(directory: Path, port: int, students: int, password: str | None,
               course: Path | None, *, answers: Callable[[str], bool],
               free_port: Callable[[], int]) -> DemoHub:
    """`routerlab hub --demo` up to the start, in one call: the demo hub of `directory` (from
    the caller's folder), its configuration written, once JupyterHub and the proxy are
    installed, the folder can be a demo's and nothing `answers` on `port` (in that order: a
    refused folder never depends on what listens on 8000). `free_port` gives the hub's own API
    and proxy ports; the face runs the processes."""
    if importlib.util.find_spec("jupyterhub") is None:
        raise ExerciseError(f"JupyterHub is not installed: {HUB_INSTALL}")
    proxy = find_proxy()
    if proxy is None:
        raise ExerciseError(f"{PROXY} is not installed (it needs Node.js): {PROXY_INSTALL}")
    folder = directory.expanduser()
    folder = (folder if folder.is_absolute() else caller_cwd() / folder).resolve()
    check_demo_folder(folder)  # the folder first: a refusal of it asks no port
    if answers(f"http://127.0.0.1:{port}"):
        raise ExerciseError(f"a hub already answers on 127.0.0.1:{port}: stop it or choose --port")
    bundle = demo_course(folder, course)
    demo = DemoHub(folder, port, students, demo_password(folder, password), proxy, bundle)
    demo.write(free_port(), free_port())
    return demo


def find_proxy() -> Path | None:
    """configurable-http-proxy: on PATH, or where `./run` installs it (`.venv/node`)."""
    found = shutil.which(PROXY)
    if found:
        return Path(found)
    local = Path(sys.prefix) / "node" / "node_modules" / ".bin" / PROXY
    return local if local.is_file() and os.access(local, os.X_OK) else None


def check_demo_folder(folder: Path) -> None:
    """Refuse a folder that is neither new, nor empty, nor a demo's: the demo writes its
    database, secrets and students' homes there."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())) and not (
            (folder / "jupyterhub_config.json").is_file() or (folder / "password").is_file()):
        raise WorkspaceError(f"{folder} is not a demo hub's folder and not empty: give --dir a "
                             "new or empty folder, or one an earlier demo used")


def demo_password(folder: Path, given: str | None) -> str:
    """The password given, else the one this demo folder already uses, else a new one (kept, so a
    restarted demo lets the same students in)."""
    path = folder / "password"
    if given:
        return given
    if path.is_file():
        kept = path.read_text(encoding="utf-8").strip()
        if kept:
            return kept
    password = secrets.token_urlsafe(9)
    with os_errors("keep the demo's password"):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(password + "\n", encoding="utf-8")
    return password


def demo_course(folder: Path, given: Path | None) -> Path:
    """The course bundle the demo's students work from: `given` (a `teacher release`), else
    this RouterLab's catalog released into the demo's folder at its first start and kept, so
    the students' workspaces stay on the release they were made from."""
    if given is not None:
        return read_course_folder(given)
    course = folder / "course"
    if not (course / COURSE_FILE).is_file():
        with os_errors("make the demo's folder"):
            folder.mkdir(parents=True, exist_ok=True)
        release(load_catalog(), course, "routerlab-demo", "RouterLab demo class")
    return course


def read_course_folder(bundle: Path) -> Path:
    """`bundle`, absolute, once it is known to be a course bundle."""
    bundle = bundle.expanduser().resolve()
    read_course(bundle, WorkspaceError)
    return bundle


def prepare_workspace(home: Path, student: str, course: Path | None = None) -> Workspace:
    """The student's workspace in `home`, made at the first spawn (a class workspace of
    `course`, the hub user's name as the student id; self-study without a course) and
    completed (new notebooks added, nothing of theirs overwritten) at every later one."""
    folder = home / WORKSPACE
    if not (folder / MARKER).is_file():
        if course is None:
            init_workspace(folder, student)
        else:
            bundle = read_course_folder(course)
            init_workspace(folder, student, bundle, student_id=student,
                           tag=find_tag(read_course(bundle, WorkspaceError).id, student))
    workspace = open_workspace(folder)
    sync_notebooks(workspace, shipped_notebooks())
    return workspace
