"""`teacher collect`: every student's workspace copied off a JupyterHub through its REST API.

The teacher needs no access to the hub's disks (on Zero to JupyterHub each student's home is a
volume of its own): the hub's API lists the students and starts a stopped server, and each
server's Jupyter contents API hands out the workspace's files. The token is an admin's (or a
service's with the scopes `list:users, read:users, admin:servers, access:servers`), read from a
file or the environment, never from the command line, where any local user could read it.

The copy of student `ID` lands in `OUT/ID/`, nbgrader's `submitted/<student-id>/` layout that
`teacher recheck` (and its `--roster`) reads: the workspace's marker, its exercise files, its
progress file and its notebooks. Every name the server returns is checked before it becomes a
path; sizes and counts are bounded; a student whose copy fails is reported, and the others are
still collected. A server this command started is stopped again afterwards.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...core import RouterLabError
from ...core.safe_io import read_bytes
from ..files import os_errors
from ..learner.lab_notebooks import NOTEBOOK_DIR
from ..learner.workspace import EXERCISE_DIR, MARKER, STATE_DIR

TOKEN_ENV = ("ROUTERLAB_HUB_TOKEN", "JUPYTERHUB_API_TOKEN")
"""Where the token may come from when no file is given, first found wins."""
MANIFEST = ".routerlab-collect.json"
"""In OUT: who was collected when, and each file's SHA-256 (hidden: `OUT/*` is the students)."""
MAX_FILE_BYTES = 8 * 2**20
MAX_STUDENT_BYTES = 64 * 2**20
MAX_FILES = 500
REQUEST_TIMEOUT_S = 30.0
START_LIMIT_S = 180.0
GONE_S = 5.0
"""A server that is neither starting nor running this long after the request failed to start."""
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")


class CollectError(RouterLabError):
    """The hub could not be reached or asked, or a student's copy failed."""


TOKEN_FILE_LIMIT = 4096
"""A hub API token is 32 hex characters; a file of more than this holds no token."""


def read_token(token_file: Path | None) -> str:
    """The API token: from `token_file`, else the environment (`TOKEN_ENV`)."""
    if token_file is not None:
        # a regular file only: a FIFO would block the command and /dev/zero never end
        data = read_bytes(token_file.expanduser(), what="token file", limit=TOKEN_FILE_LIMIT,
                          error=CollectError)
        try:
            token = data.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise CollectError(f"{token_file}: the token file is not UTF-8 text") from None
        if not token:
            raise CollectError(f"the token file {token_file} is empty")
        return token
    for name in TOKEN_ENV:
        if os.environ.get(name, "").strip():
            return os.environ[name].strip()
    raise CollectError("no hub API token: give --token-file FILE (an admin's token, from the "
                       f"hub's Token page) or set {TOKEN_ENV[0]}")


@dataclass
class Hub:
    """A JupyterHub's REST API, with a token (sent as a header, never in a URL)."""

    url: str
    token: str
    timeout: float = REQUEST_TIMEOUT_S

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise CollectError(f"--hub {self.url!r} is not an http(s) URL of a JupyterHub")
        self.url = self.url.rstrip("/")

    def call(self, method: str, path: str, body: dict[str, Any] | None = None,
             accept: tuple[int, ...] = ()) -> Any:
        """One request; JSON in and out. A status in `accept` returns None instead of failing."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"token {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read(MAX_FILE_BYTES * 2)
        except urllib.error.HTTPError as error:
            if error.code in accept:
                return None
            raise CollectError(f"{method} {path}: the hub answered {error.code} {error.reason}"
                               + _why(error)) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise CollectError(f"cannot reach the hub at {self.url}: {reason}") from None
        try:
            return json.loads(raw) if raw.strip() else None
        except ValueError:
            raise CollectError(f"{method} {path}: the hub's answer is not JSON") from None

    def students(self) -> list[dict[str, Any]]:
        """Every user who is not an admin, sorted by name."""
        users = self.call("GET", "/hub/api/users?limit=10000")
        if not isinstance(users, list):
            raise CollectError("the hub's user list is not a list")
        return sorted((u for u in users if isinstance(u, dict) and not u.get("admin")),
                      key=lambda u: str(u.get("name")))

    def user(self, name: str) -> dict[str, Any]:
        found = self.call("GET", f"/hub/api/users/{_quote(name)}")
        if not isinstance(found, dict):
            raise CollectError(f"the hub's record of {name} is not an object")
        return found


def _why(error: urllib.error.HTTPError) -> str:
    hints = {401: " (the token is not valid)",
             403: " (the token lacks the scopes list:users, read:users, admin:servers, "
                  "access:servers: use an admin's token)",
             404: " (no such user or server)"}
    return hints.get(error.code, "")


def _quote(name: str) -> str:
    return urllib.parse.quote(name, safe="")


@dataclass
class Collected:
    """One student's copy (or why there is none)."""

    student: str
    folder: Path | None
    files: dict[str, str] = field(default_factory=dict)
    """Relative path → SHA-256 of what was written."""
    started: bool = False
    problem: str = ""


def collect(hub: Hub, out: Path, only: list[str] | None = None, path: str = "",
            progress: Callable[[int, int, Collected], None] | None = None) -> list[Collected]:
    """Copy each student's workspace (at `path` under their server's root) to `out/<name>/`."""
    students = hub.students()
    names = [str(u.get("name")) for u in students]
    if only:
        missing = sorted(set(only) - set(names))
        if missing:
            raise CollectError(f"not students of this hub: {', '.join(missing)}")
        names = [n for n in names if n in only]
    for name in names:
        if not _SAFE_NAME.match(name):
            raise CollectError(f"the hub user {name!r} cannot be a folder name; pass --student "
                               "for the others")
    with os_errors("create the output folder"):
        out.mkdir(parents=True, exist_ok=True)
    done = []
    for name in names:
        result = _collect_one(hub, name, out / name, path.strip("/"))
        done.append(result)
        if progress is not None:
            progress(len(done), len(names), result)
    _write_manifest(out, hub.url, done)
    return done


def _collect_one(hub: Hub, name: str, target: Path, path: str) -> Collected:
    result = Collected(name, target)
    try:
        result.started = _ensure_running(hub, name)
        try:
            _copy_tree(hub, name, path, target, result)
        finally:
            if result.started:
                hub.call("DELETE", f"/hub/api/users/{_quote(name)}/server", accept=(404,))
    except CollectError as error:
        result.problem = str(error)
    if not result.problem and MARKER not in result.files:
        result.problem = f"no RouterLab workspace on the server (no {MARKER} at /{path})"
    return result


def _ensure_running(hub: Hub, name: str) -> bool:
    """Start the student's server if it is stopped; whether this call started it."""
    server = hub.user(name).get("servers", {}).get("")
    if server and server.get("ready"):
        return False
    if not server:
        hub.call("POST", f"/hub/api/users/{_quote(name)}/server", accept=(400,))
    started = time.monotonic()
    while time.monotonic() - started < START_LIMIT_S:
        server = hub.user(name).get("servers", {}).get("")
        if server and server.get("ready"):
            return True
        if not server and time.monotonic() - started > GONE_S:  # the spawn failed
            raise CollectError(f"{name}'s server failed to start (the hub's log says why)")
        time.sleep(0.5)
    raise CollectError(f"{name}'s server did not start in {START_LIMIT_S:.0f} s")


def _copy_tree(hub: Hub, name: str, path: str, target: Path, result: Collected) -> None:
    """Walk the wanted part of the workspace through the contents API, writing into `target`."""
    api = f"/user/{_quote(name)}/api/contents"
    todo = [PurePosixPath(path)] if path else [PurePosixPath()]
    total = 0
    while todo:
        folder = todo.pop()
        listing = hub.call("GET", f"{api}/{_quote_path(folder)}?content=1")
        for entry in (listing or {}).get("content") or []:
            try:
                rel = PurePosixPath(str(entry.get("path", ""))).relative_to(path or ".")
            except ValueError:  # not below the workspace: not ours to copy
                continue
            if not _wanted(rel, entry.get("type") == "directory") or not _safe(rel):
                continue
            if entry.get("type") == "directory":
                todo.append(PurePosixPath(path) / rel if path else rel)
                continue
            if len(result.files) >= MAX_FILES:
                raise CollectError(f"{name}: more than {MAX_FILES} files in the workspace")
            data = _download(hub, api, PurePosixPath(path) / rel if path else rel)
            total += len(data)
            if total > MAX_STUDENT_BYTES:
                raise CollectError(f"{name}: the workspace is over {MAX_STUDENT_BYTES >> 20} MiB")
            with os_errors("write a collected file"):
                destination = target.joinpath(*rel.parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(data)
            result.files[rel.as_posix()] = hashlib.sha256(data).hexdigest()


def _wanted(rel: PurePosixPath, is_dir: bool) -> bool:
    """The marker, the exercise files, the notebooks and the progress file; nothing else."""
    parts = rel.parts
    if is_dir:
        return parts in {(EXERCISE_DIR,), (NOTEBOOK_DIR,), (STATE_DIR,)}
    return (parts in {(MARKER,), (STATE_DIR, "state.json")}
            or len(parts) == 2 and parts[0] in (EXERCISE_DIR, NOTEBOOK_DIR))


def _safe(rel: PurePosixPath) -> bool:
    return not rel.is_absolute() and all(p not in ("", ".", "..") and "\\" not in p
                                         for p in rel.parts)


def _quote_path(path: PurePosixPath) -> str:
    return "/".join(_quote(p) for p in path.parts)


def _download(hub: Hub, api: str, path: PurePosixPath) -> bytes:
    model = hub.call("GET", f"{api}/{_quote_path(path)}?content=1&format=base64&type=file")
    if not isinstance(model, dict) or not isinstance(model.get("content"), str):
        raise CollectError(f"{path}: the server returned no content")
    if int(model.get("size") or 0) > MAX_FILE_BYTES:
        raise CollectError(f"{path}: over {MAX_FILE_BYTES >> 20} MiB")
    try:
        return base64.b64decode(model["content"], validate=False)
    except ValueError:
        raise CollectError(f"{path}: the server's content is not base64") from None


def _write_manifest(out: Path, url: str, done: list[Collected]) -> None:
    """The manifest: who was collected when, each file's SHA-256, and who was not."""
    manifest = {"hub": url, "collected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "students": [{"student": c.student, "files": c.files, "problem": c.problem}
                             for c in done]}
    with os_errors("write the collection's manifest"):
        (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n",
                                          encoding="utf-8")
