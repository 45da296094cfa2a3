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
import contextlib
import hashlib
import json
import math
import os
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...core import RouterLabError
from ...core.base.safe_io import parse_json, read_bytes, shorten
from ..files import os_errors
from ..learner.lab_notebooks import NOTEBOOK_DIR
from ..learner.workspace import EXERCISE_DIR, MARKER, STATE_DIR
from ..report import printable

TOKEN_ENV = ("ROUTERLAB_HUB_TOKEN", "JUPYTERHUB_API_TOKEN")
"""Where the token may come from when no file is given, first found wins."""
MANIFEST = ".routerlab-collect.json"
"""In OUT: who was collected when, and each file's SHA-256 (hidden: `OUT/*` is the students)."""
MAX_FILE_BYTES = 8 * 2**20
MAX_STUDENT_BYTES = 64 * 2**20
MAX_FILES = 500
MAX_ANSWER_BYTES = 2 * MAX_FILE_BYTES
"""The most of one answer read (a file travels as base64, 4/3 of its bytes, in JSON)."""
REQUEST_TIMEOUT_S = 30.0
COLLECT_LIMIT_S = 3600.0
"""The whole collect's time limit by default (`teacher collect --time-limit`, 60 minutes)."""
START_LIMIT_S = 180.0
GONE_S = 5.0
"""A server that is neither starting nor running this long after the request failed to start."""
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")


class CollectError(RouterLabError):
    """The hub could not be reached or asked, or a student's copy failed."""


class HubRefused(CollectError):
    """The hub's address refused the connection (nothing was sent), or reset it before
    answering a GET (which changes nothing). Once the hub has answered (a proxy restarting
    mid-collect), the request is tried again after `RETRY_DELAYS`; a hub that never answered is
    a wrong address, said at once."""


RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds between the tries of a refused request (about 15 s in all, within the deadline)."""


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
        return _one_token(token, f"the token file {token_file}")
    for name in TOKEN_ENV:
        if os.environ.get(name, "").strip():
            return _one_token(os.environ[name].strip(), f"${name}")
    raise CollectError("no hub API token: give --token-file FILE (an admin's token, from the "
                       f"hub's Token page) or set {TOKEN_ENV[0]}")


def _one_token(token: str, where: str) -> str:
    """A token that can travel in one HTTP header: printable ASCII, no space or line break."""
    if not (token.isascii() and token.isprintable()) or " " in token:
        raise CollectError(f"{where} holds no single token (one line of printable ASCII "
                           "without spaces)")
    return token


@dataclass(frozen=True)
class Deadline:
    """The end of one whole collect: no request starts past it, and one in progress is cut at
    it, so a hub that drips its answers or lists without end cannot hold the teacher forever."""

    seconds: float
    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(seconds, time.monotonic() + seconds)

    def left(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> str:
        return (f"the collect's time limit ({self.seconds:g} s) passed; collect the others "
                "with --student NAME")


@dataclass
class _Answer:
    """What `Hub.call` needs of one HTTP answer."""

    status: int
    reason: str
    location: str
    body: bytes


@dataclass
class Hub:
    """A JupyterHub's REST API, with a token (sent as a header, never in a URL, and only to the
    hub's own address: a redirect is refused, never followed, so the token cannot be led to
    another host or port)."""

    url: str
    token: str
    timeout: float = REQUEST_TIMEOUT_S
    """The longest one request may take, from connecting to the answer's last byte."""
    deadline: Deadline | None = None
    """The whole collect's (`collect` sets it)."""
    reached: bool = False
    """Whether the hub has answered this collect once (then a refusal is a restart)."""

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlsplit(self.url)
        try:
            port = parsed.port
        except ValueError:  # a port that is no number, or past 65535
            port = -1
        if parsed.scheme not in ("http", "https") or not parsed.hostname or port == -1:
            raise CollectError(f"--hub {shorten(printable(self.url))!r} is not an http(s) URL "
                               "of a JupyterHub")
        self.url = self.url.rstrip("/")
        self._where = (parsed.scheme, parsed.hostname, port, parsed.path.rstrip("/"))

    def call(self, method: str, path: str, body: dict[str, Any] | None = None,
             accept: tuple[int, ...] = (), cleanup: bool = False) -> Any:
        """One request; JSON in and out. A status in `accept` returns None instead of failing.
        A `cleanup` call (stopping a server this collect started) still runs past the deadline,
        within its own request timeout."""
        data = None if body is None else json.dumps(body).encode()
        answer = self._retried(method, path, data, cleanup)
        if 300 <= answer.status < 400:
            raise CollectError(f"{method} {path}: the hub answered {answer.status} with a "
                               f"redirect to {shorten(printable(answer.location))!r}; collect "
                               "follows none (the token would go with it): give --hub the "
                               "address the hub answers on")
        if not 200 <= answer.status < 300:
            if answer.status in accept:
                return None
            raise CollectError(f"{method} {path}: the hub answered {answer.status} "
                               f"{shorten(printable(answer.reason))}" + _why(answer.status))
        if not answer.body.strip():
            return None
        return parse_json(answer.body, f"{method} {path}: the hub's answer", CollectError)

    def _retried(self, method: str, path: str, data: bytes | None, cleanup: bool) -> _Answer:
        """`_exchange`, tried again with a growing wait while the hub refuses connections."""
        for delay in (*RETRY_DELAYS, None):
            try:
                answer = self._exchange(method, path, data, cleanup)
                self.reached = True
                return answer
            except HubRefused:
                left = math.inf if self.deadline is None else self.deadline.left()
                if delay is None or delay >= left or not self.reached:
                    raise
                time.sleep(delay)
        raise AssertionError("unreachable: the last try raises")

    def _exchange(self, method: str, path: str, data: bytes | None, cleanup: bool) -> _Answer:
        """One request and its whole answer (at most `MAX_ANSWER_BYTES`), within the request
        timeout and the deadline: past either, the socket is shut (`_Cutoff`)."""
        import http.client

        deadline = None if cleanup else self.deadline
        left = math.inf if deadline is None else deadline.left()
        if deadline is not None and left <= 0:
            raise CollectError(deadline.passed())
        bound = min(self.timeout, left)
        scheme, host, port, prefix = self._where
        if scheme == "https":
            import ssl
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                host, port, timeout=bound, context=ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(host, port, timeout=bound)
        began, cutoff = time.monotonic(), _Cutoff(connection)
        try:
            with cutoff.within(bound):  # the TLS handshake too: a hub may drip that as well
                connection.connect()
                if cutoff.fired:  # it fired before the socket existed
                    raise TimeoutError
                connection.request(method, prefix + path, body=data, headers={
                    "Authorization": f"token {self.token}", "Content-Type": "application/json"})
                response = connection.getresponse()
                body = response.read(MAX_ANSWER_BYTES + 1)
                answer = _Answer(response.status, response.reason or "",
                                 response.getheader("Location") or "", body)
                if response.length and len(body) <= MAX_ANSWER_BYTES:  # read(n) does not
                    raise http.client.IncompleteRead(body, response.length)  # say it
        except (OSError, http.client.HTTPException) as error:
            if cutoff.fired or time.monotonic() - began >= bound:
                raise CollectError(self._late(method, path, bound)) from None
            if isinstance(error, http.client.HTTPException):
                raise CollectError(f"{method} {path}: the hub's answer is not valid HTTP "
                                   f"({type(error).__name__})") from None
            reason = getattr(error, "reason", None) or error.strerror or error
            again = isinstance(error, ConnectionRefusedError) or (
                method == "GET" and isinstance(error, ConnectionResetError))
            kind = HubRefused if again else CollectError
            raise kind(f"cannot reach the hub at {self.url}: {reason}") from None
        finally:
            connection.close()
        if cutoff.fired:  # an answer without a length ends where the socket was shut
            raise CollectError(self._late(method, path, bound))
        if len(answer.body) > MAX_ANSWER_BYTES:
            raise CollectError(f"{method} {path}: the hub's answer is over "
                               f"{MAX_ANSWER_BYTES >> 20} MiB")
        return answer

    def _late(self, method: str, path: str, bound: float) -> str:
        if self.deadline is not None and bound < self.timeout:
            return self.deadline.passed()
        return f"{method} {path}: the hub sent no whole answer within {bound:g} s"

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

    def server(self, name: str) -> dict[str, Any] | None:
        """The student's default server as the hub describes it, None when it has none."""
        servers = self.user(name).get("servers", {})
        server = servers.get("") if isinstance(servers, dict) else None
        if not isinstance(servers, dict) or not isinstance(server, dict | None):
            raise CollectError(f"the hub's record of {name} has no readable server table")
        return server or None


class _Cutoff:
    """Shuts a connection's socket `seconds` from now: a read blocked on a hub that sends one
    byte at a time ends then, whatever the socket's per-read timeout."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.fired = False

    def _cut(self) -> None:
        self.fired = True
        with contextlib.suppress(OSError, AttributeError):
            self.connection.sock.shutdown(socket.SHUT_RDWR)

    @contextlib.contextmanager
    def within(self, seconds: float) -> Iterator[None]:
        timer = threading.Timer(max(seconds, 0.0), self._cut)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


def _why(status: int) -> str:
    hints = {401: " (the token is not valid)",
             403: " (the token lacks the scopes list:users, read:users, admin:servers, "
                  "access:servers: use an admin's token)",
             404: " (no such user or server)"}
    return hints.get(status, "")


def _quote(name: str) -> str:
    return urllib.parse.quote(name, safe="")


@dataclass
class Collected:
    """One student's copy (or why there is none)."""

    student: str
    folder: Path | None
    files: dict[str, str] = field(default_factory=dict)
    """Relative path → SHA-256 of what was written."""
    modified: dict[str, str] = field(default_factory=dict)
    """Relative path → the file's modification time as the server reports it (UTC, ISO)."""
    started: bool = False
    problem: str = ""
    server_state: str = ""
    """The hub's activity times of the student and their server after the copy: the same
    state at the next collect means nothing changed, and the copy is kept."""
    skipped: bool = False
    """Collected before, and the server's state and the copy are unchanged: not copied again."""


def collect(hub: Hub, out: Path, only: list[str] | None = None, path: str = "",
            progress: Callable[[int, int, Collected], None] | None = None,
            limit_s: float = COLLECT_LIMIT_S, course: str | None = None) -> list[Collected]:
    """Copy each student's workspace (at `path` under their server's root) to `out/<name>/`,
    all within `limit_s` seconds (`Deadline`): a student still to copy then is reported as not
    collected. `progress(done, total, result)` hears of each student as they are copied. A
    student collected before whose server state and copy are unchanged is skipped. With
    `course`, each collection is appended to the course's gradebook."""
    hub.deadline = Deadline.after(limit_s)
    students = hub.students()
    names = [str(u.get("name")) for u in students]
    if only:
        missing = sorted(set(only) - set(names))
        if missing:
            raise CollectError(f"not students of this hub: {', '.join(missing)}")
        names = [n for n in names if n in only]
    for name in names:
        if not _SAFE_NAME.match(name):
            raise CollectError(f"the hub user {shorten(printable(name))!r} cannot be a folder "
                               "name; pass --student for the others")
    with os_errors("create the output folder"):
        out.mkdir(parents=True, exist_ok=True)
    if course is not None:
        from .gradebook_term import open_course

        open_course(course).close()  # a course that is not released here: refused first
    before = _read_manifest(out)
    done = []
    for name in names:
        result = _unchanged(hub, name, out / name, before.get(name))
        if result is None:
            result = _collect_one(hub, name, out / name, path.strip("/"))
            if course is not None and not result.problem:
                _record(course, hub.url, result)
        done.append(result)
        if progress is not None:
            progress(len(done), len(names), result)
    _write_manifest(out, hub.url, done, before)
    return done


def _record(course: str, hub: str, result: Collected) -> None:
    from .gradebook_term import record_collection

    record_collection(course, result.student, hub, result.server_state,
                      {p: (sha, result.modified.get(p, "")) for p, sha in result.files.items()})


def server_state(hub: Hub, name: str) -> str:
    """The hub's activity times for the student and their server ("" when it gives none)."""
    user = hub.user(name)
    servers = user.get("servers")
    server = servers.get("") if isinstance(servers, dict) else None
    server = server if isinstance(server, dict) else {}
    times = [user.get("last_activity"), server.get("last_activity"), server.get("started")]
    return json.dumps(times) if any(isinstance(t, str) and t for t in times) else ""


def _unchanged(hub: Hub, name: str, target: Path, last: dict[str, Any] | None
               ) -> Collected | None:
    """The student's last collection, when the hub's state and every copied file are as they
    were then (nothing to copy again); None otherwise."""
    if not last or last.get("problem") or not last.get("server_state"):
        return None
    files = last.get("files")
    if not isinstance(files, dict) or not files:
        return None
    try:
        if server_state(hub, name) != last["server_state"]:
            return None
    except CollectError:
        return None  # the full collect says why
    for rel, digest in files.items():
        copy = target.joinpath(*PurePosixPath(str(rel)).parts)
        if not _safe(PurePosixPath(str(rel))) or copy.is_symlink() or not copy.is_file() or \
                hashlib.sha256(copy.read_bytes()).hexdigest() != digest:
            return None
    modified = last.get("modified") if isinstance(last.get("modified"), dict) else {}
    return Collected(name, target, dict(files), dict(modified or {}),
                     server_state=last["server_state"], skipped=True)


def _collect_one(hub: Hub, name: str, target: Path, path: str) -> Collected:
    result = Collected(name, target)
    try:
        result.started = _ensure_running(hub, name)
        try:
            _copy_tree(hub, name, path, target, result)
        finally:
            if result.started:
                hub.call("DELETE", f"/hub/api/users/{_quote(name)}/server", accept=(404,),
                         cleanup=True)
        result.server_state = server_state(hub, name)
    except CollectError as error:
        result.problem = str(error)
    if not result.problem and MARKER not in result.files:
        result.problem = f"no RouterLab workspace on the server (no {MARKER} at /{path})"
    return result


def _ensure_running(hub: Hub, name: str) -> bool:
    """Start the student's server if it is stopped; whether this call started it."""
    server = hub.server(name)
    if server and server.get("ready"):
        return False
    if not server:
        hub.call("POST", f"/hub/api/users/{_quote(name)}/server", accept=(400,))
    started = time.monotonic()
    while time.monotonic() - started < START_LIMIT_S:
        server = hub.server(name)
        if server and server.get("ready"):
            return True
        if not server and time.monotonic() - started > GONE_S:  # the spawn failed
            raise CollectError(f"{name}'s server failed to start (the hub's log says why)")
        time.sleep(0.5)
    raise CollectError(f"{name}'s server did not start in {START_LIMIT_S:.0f} s")


def _copy_tree(hub: Hub, name: str, path: str, target: Path, result: Collected) -> None:
    """Walk the wanted part of the workspace through the contents API, writing into `target`.
    Each folder is listed once and only its direct children are taken, so a server that lists
    a folder inside itself, or a path of another folder, walks no deeper than `_wanted` goes."""
    api = f"/user/{_quote(name)}/api/contents"
    base = PurePosixPath(path)
    todo, listed = [PurePosixPath()], set()
    total = 0
    while todo:  # bounded: each folder once, and `_wanted` takes folders one level down only
        folder = todo.pop()
        listed.add(folder)
        for rel, is_dir in _children(hub, api, base, folder):
            if not _wanted(rel, is_dir) or not _safe(rel):
                continue
            if is_dir:
                if rel not in listed:
                    todo.append(rel)
                continue
            if len(result.files) >= MAX_FILES:
                raise CollectError(f"{name}: more than {MAX_FILES} files in the workspace")
            data, modified = _download(hub, api, base / rel)
            total += len(data)
            if total > MAX_STUDENT_BYTES:
                raise CollectError(f"{name}: the workspace is over {MAX_STUDENT_BYTES >> 20} MiB")
            with os_errors("write a collected file"):
                destination = target.joinpath(*rel.parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(data)
            result.files[rel.as_posix()] = hashlib.sha256(data).hexdigest()
            result.modified[rel.as_posix()] = modified


def _children(hub: Hub, api: str, base: PurePosixPath, folder: PurePosixPath
              ) -> Iterator[tuple[PurePosixPath, bool]]:
    """The entries of one listing that are direct children of `folder` (a path relative to
    `base`, the workspace), each with whether it is a folder; a listing that is not the
    contents API's shape fails the student."""
    where = base / folder
    listing = hub.call("GET", f"{api}/{_quote_path(where)}?content=1")
    content = listing.get("content") if isinstance(listing, dict) else None
    if not isinstance(content, list) or not all(isinstance(e, dict) for e in content):
        raise CollectError(f"/{where.as_posix()}: the server's listing is not a list of entries")
    for entry in content:
        try:
            rel = PurePosixPath(str(entry.get("path", ""))).relative_to(base)
        except ValueError:  # not below the workspace: not ours to copy
            continue
        if rel.parent == folder and rel != folder:
            yield rel, entry.get("type") == "directory"


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


def _download(hub: Hub, api: str, path: PurePosixPath) -> tuple[bytes, str]:
    """A file's bytes, refused past `MAX_FILE_BYTES` by the bytes decoded (the `size` the server
    states is not believed), and its modification time as the server states it (UTC; "" when
    it states none a date can be read from)."""
    model = hub.call("GET", f"{api}/{_quote_path(path)}?content=1&format=base64&type=file")
    if not isinstance(model, dict) or not isinstance(model.get("content"), str):
        raise CollectError(f"{path}: the server returned no content")
    try:
        data = base64.b64decode(model["content"], validate=False)
    except ValueError:
        raise CollectError(f"{path}: the server's content is not base64") from None
    if len(data) > MAX_FILE_BYTES:
        raise CollectError(f"{path}: over {MAX_FILE_BYTES >> 20} MiB")
    return data, _utc(model.get("last_modified"))


def _utc(stamp: Any) -> str:
    from datetime import UTC, datetime

    if not isinstance(stamp, str) or len(stamp) > 64:
        return ""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return ""
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _read_manifest(out: Path) -> dict[str, dict[str, Any]]:
    """The students of the last manifest in `out` (name → entry); {} when there is none or it
    cannot be read (everyone is then collected afresh)."""
    path = out / MANIFEST
    if path.is_symlink() or not path.is_file():
        return {}
    try:
        data = parse_json(read_bytes(path, what="manifest", limit=64 * 2**20,
                                     error=CollectError), "the collect manifest", CollectError)
    except CollectError:
        return {}
    students = data.get("students") if isinstance(data, dict) else None
    return {str(s["student"]): s for s in students or [] if isinstance(s, dict)
            and "student" in s} if isinstance(students, list) else {}


def _write_manifest(out: Path, url: str, done: list[Collected],
                    before: dict[str, dict[str, Any]]) -> None:
    """The manifest: each student's newest collection (those not collected this time keep
    theirs: a re-collect of some appends), each file's SHA-256 and hub time, who was not."""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    students = dict(before)
    for c in done:
        if c.skipped:
            continue
        students[c.student] = {"student": c.student, "collected_at": at, "files": c.files,
                               "modified": c.modified, "server_state": c.server_state,
                               "problem": c.problem}
    manifest = {"hub": url, "collected_at": at,
                "students": [students[name] for name in sorted(students)]}
    with os_errors("write the collection's manifest"):
        (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
