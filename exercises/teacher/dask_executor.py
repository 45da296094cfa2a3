"""Grading a class on a Dask cluster: `teacher recheck --scheduler tcp://HOST:PORT`.

One Dask task per student. The task carries plain data, never a path the worker may not see: the
student's handed-in files (bounded in count and size), the teacher's course folder when `--catalog`
names one, and the grading options, as JSON; the worker writes them into a private temporary folder,
grades them with `routerlab.exercises.teacher.classroom.grade_job` in its own local jail, and sends
back the result as JSON. Dask ships the function by reference (every worker has RouterLab
installed), and no student file is ever pickled.

Results come back as each task finishes, so the caller's CSV, progress bar and resume file move
as they do locally. A worker that dies loses nothing: the scheduler hands its tasks to another
worker (Dask retries a task whose worker died, up to its `allowed-failures`). A result graded
against another catalog than the teacher's (a worker running another RouterLab) becomes that
student's row with the reason, as does a task that fails outright.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ...core.base.safe_io import shorten
from ..errors import GradesError
from .classroom import GradeJob, StudentResult, catalog_at, catalog_version, grade_job

MAX_FILES = 400
MAX_BYTES = 32 * 2**20
"""What one student's submission may weigh on the wire."""
CONNECT_TIMEOUT_S = 20
GREETING_S = 3.0
"""How long a scheduler has to send its first bytes: a Dask listener writes its handshake as
soon as it accepts (distributed/comm/core.py, `Listener.on_connection`), before it reads."""
MAX_GREETING_BYTES = 1 << 20
"""A handshake's stated size (its first 8 bytes) is a few hundred bytes; past this it is no
Dask frame (an SSH banner's first 8 bytes read as a number in the quintillions)."""
DASK_PORT = 8786
SKIPPED = {".git", "__pycache__", ".ipynb_checkpoints", "notebooks"}
"""Folders of a workspace that grading never reads."""


def pack(folder: Path) -> dict[str, str]:
    """The files of a submission folder: relative POSIX path → base64 of the bytes. Links are
    not followed; GradesError past `MAX_FILES` or `MAX_BYTES`."""
    files: dict[str, str] = {}
    total = 0
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED
                         and not os.path.islink(os.path.join(root, d)))
        for name in sorted(names):
            path = Path(root, name)
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            total += len(data)
            if len(files) >= MAX_FILES or total > MAX_BYTES:
                raise GradesError(f"{folder}: more than {MAX_FILES} files or "
                                  f"{MAX_BYTES >> 20} MiB to send to the cluster")
            files[path.relative_to(folder).as_posix()] = base64.b64encode(data).decode("ascii")
    return files


def unpack(files: dict[str, str], folder: Path) -> None:
    """Write `pack`'s files under `folder`; a path that would leave it is refused."""
    for rel, data in files.items():
        parts = rel.split("/")
        if rel.startswith("/") or any(p in ("", ".", "..") or "\\" in p for p in parts):
            raise GradesError(f"refused a file name from the client: {rel!r}")
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(data))


def grade_remote(payload: str) -> str:
    """The task a Dask worker runs: one student, from JSON to JSON (see the module docstring)."""
    task = json.loads(payload)
    job = GradeJob.from_json(task["job"])
    with tempfile.TemporaryDirectory(prefix="routerlab-grade-") as scratch:
        folder = Path(scratch) / "submission" / (Path(job.submission).name or "submission")
        folder.mkdir(parents=True)
        unpack(task["files"], folder)
        catalog = None
        if task.get("catalog") is not None:  # the teacher's course folder (--catalog)
            catalog = Path(scratch) / "catalog"
            catalog.mkdir()
            unpack(task["catalog"], catalog)
        local = GradeJob(job.student_id, str(folder), str(catalog) if catalog else None,
                         job.options, job.variants, job.truths_key)
        result = grade_job(local)
    result.submission = job.submission  # the teacher's path: the digest and feedback use it
    return json.dumps(result.to_json())


def check_greeting(scheduler: str, within: float = GREETING_S) -> None:
    """GradesError, within `within` seconds, unless `scheduler` (tcp://HOST:PORT) answers as a
    Dask scheduler does: it sends a frame of a plausible size first. A port that is no
    scheduler's (a web server, a closed port) is named now, not by distributed's own wait
    (its handshake read has no bound of its own)."""
    where = urllib.parse.urlsplit(scheduler)
    try:
        host, port = where.hostname, where.port or DASK_PORT
    except ValueError:  # a port that is no number, or past 65535
        host, port = None, 0
    if not host:
        raise GradesError(f"--scheduler {shorten(scheduler)!r}: give the Dask scheduler's "
                          "address, tcp://HOST:PORT")
    deadline = time.monotonic() + within
    head = b""
    try:
        with socket.create_connection((host, port), timeout=within) as sock:
            while len(head) < 8 and (left := deadline - time.monotonic()) > 0:
                sock.settimeout(left)
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    break
                head += chunk
    except TimeoutError:
        pass
    except OSError as error:
        raise GradesError(f"cannot reach the Dask scheduler at {scheduler}: "
                          f"{error.strerror or error}") from None
    size = min(int.from_bytes(head, "little"), int.from_bytes(head, "big"))
    if len(head) < 8 or not 0 < size <= MAX_GREETING_BYTES:
        said = "sent nothing" if not head else "did not open with a Dask frame"
        raise GradesError(f"{scheduler} is not a Dask scheduler: it {said} within {within:g} s "
                          "of the connection, as a Dask scheduler would (`dask scheduler` "
                          f"prints its address, tcp://HOST:{DASK_PORT} by default)")


class DaskExecutor:
    """`teacher recheck`'s executor for a Dask cluster (the `class` extra: dask, distributed)."""

    def __init__(self, scheduler: str) -> None:
        if not scheduler.startswith(("tcp://", "tls://")):
            raise GradesError(f"--scheduler {scheduler!r}: give the Dask scheduler's address, "
                              "tcp://HOST:PORT")
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise GradesError("grading on a Dask cluster needs dask and distributed: pip install "
                              "'routerlab[class]'") from None
        if scheduler.startswith("tcp://"):  # tls:// opens with TLS: its greeting is not seen
            check_greeting(scheduler)
        self.scheduler = scheduler

    def run(self, jobs: Sequence[GradeJob]) -> Iterator[StudentResult]:
        from distributed import Client, as_completed

        expected = catalog_version(catalog_at(Path(jobs[0].catalog_dir) if jobs and
                                              jobs[0].catalog_dir else None))
        try:
            client = Client(self.scheduler, timeout=f"{CONNECT_TIMEOUT_S}s",
                            set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise GradesError(f"cannot reach the Dask scheduler at {self.scheduler}: "
                              f"{error}") from None
        try:
            futures: dict[Any, GradeJob] = {}
            failed: list[StudentResult] = []
            run = uuid.uuid4().hex[:8]
            course = pack(Path(jobs[0].catalog_dir)) if jobs and jobs[0].catalog_dir else None
            for job in jobs:
                try:
                    payload = json.dumps({"job": job.to_json(), "catalog": course,
                                          "files": pack(Path(job.submission))})
                except (GradesError, OSError) as error:
                    failed.append(StudentResult(job.student_id, job.submission,
                                                error=f"not sent to the cluster: {error}"))
                    continue
                future = client.submit(grade_remote, payload, pure=False,
                                       key=f"routerlab-grade-{run}-{len(futures)}")
                futures[future] = job
            yield from failed
            waiting = set(futures)
            try:
                for future in as_completed(list(futures), loop=client.loop,
                                           timeout=_limit_s(len(futures))):
                    waiting.discard(future)
                    yield _result(future, futures[future], expected)
            except TimeoutError:
                for future in waiting:
                    job = futures[future]
                    yield StudentResult(job.student_id, job.submission, error="no result from "
                                        f"the cluster in {_limit_s(len(futures))} s")
        finally:
            client.close()


def _limit_s(students: int) -> int:
    """How long a batch may wait for the cluster in all: generous (a student takes seconds on
    one worker), but a cluster that stopped answering does not hang the teacher's command."""
    return max(3600, 300 * students)


def _result(future: Any, job: GradeJob, expected: str) -> StudentResult:
    """A finished task's result, or the student's row saying why there is none."""
    try:
        result = StudentResult.from_json(json.loads(future.result()))
    except Exception as error:  # noqa: BLE001 - one student's failure is that student's row
        return StudentResult(job.student_id, job.submission,
                             error=f"the cluster could not grade this student: "
                                   f"{type(error).__name__}: {error}")
    if not result.error and result.catalog_version != expected:
        return StudentResult(job.student_id, job.submission,
                             error=f"a worker graded against catalog {result.catalog_version}, "
                                   f"this RouterLab's is {expected}: install the same RouterLab "
                                   "on every worker")
    return result
