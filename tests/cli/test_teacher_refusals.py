"""`routerlab teacher ...` refuses what it cannot do honestly, in one line through the console
entry point (exit 1, a refused operation), before anything is graded or written: a roster that
matches no submission, a course whose sealed.json nests 100 000 deep, a --scheduler that is no
Dask scheduler (said in seconds, not after distributed's own wait)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from routerlab.exercises.catalog import catalog_root
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher.dask_executor import check_greeting


def _main(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "routerlab", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _refused(done: subprocess.CompletedProcess[str], said: str) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and said in done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("error: ")] == \
        [done.stderr.strip().splitlines()[-1]]


@pytest.mark.parametrize("roster", [
    "id,name,email\nzz1,Ada,a@x\nzz2,Bob,b@x\n",  # another class's
    "id,name,email\n\x89PNG\r\x1a\x00\x00,\x00\x00,\x00\n\xff\xfe,x,y\n",  # a garbled file
    "id,name,email\n\x1b[2Js1,Ada,a@x\n",  # a terminal escape in an id
])
def test_a_roster_that_matches_no_submission_grades_nobody_and_says_so(
        tmp_path: Path, roster: str) -> None:
    submitted = tmp_path / "submitted"
    for sid in ("s1", "s2"):
        (submitted / sid).mkdir(parents=True)
    (tmp_path / "roster.csv").write_bytes(roster.encode("utf-8", "surrogateescape"))
    done = _main("teacher", "recheck", str(submitted), "--roster", "roster.csv",
                 "--no-isolation", "--out", "g.csv", cwd=tmp_path)
    said = ("line 2: not CSV" if "PNG" in roster else "is not an id" if "\x1b" in roster
            else "is one of the 2 submissions")
    _refused(done, said)
    assert not (tmp_path / "g.csv").exists(), "nothing graded, nothing written"


def test_an_empty_submissions_folder_grades_nobody_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "submitted").mkdir()
    (tmp_path / "roster.csv").write_text("id,name,email\ns1,Ada,a@x\n")
    done = _main("teacher", "recheck", "submitted", "--roster", "roster.csv", "--no-isolation",
                 "--out", "g.csv", cwd=tmp_path)
    _refused(done, "no submission in it")


def test_a_sealed_json_nested_100k_deep_is_one_line_in_lint_and_release(tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(str(catalog_root()), course)
    sealed = course / "quant-3" / "sealed.json"
    sealed.write_text("[" * 100_000 + "]" * 100_000)
    for command in (["lint", "quant-3"], ["release", str(tmp_path / "bundle")]):
        done = _main("teacher", *command, "--catalog", str(course), cwd=tmp_path)
        _refused(done, "catalog/quant-3/sealed.json: nested deeper than 64 levels")
    sealed.write_text('["a list, not a seal"]')
    _refused(_main("teacher", "lint", "quant-3", "--catalog", str(course), cwd=tmp_path),
             "sealed.json is not a seal")
    assert not (tmp_path / "bundle").exists()


@contextlib.contextmanager
def _listener(greeting: bytes | None) -> Iterator[str]:
    """A loopback port that accepts and sends `greeting` (None: nothing, ever)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():  # bounded: the test sets `stop`
            with contextlib.suppress(TimeoutError, OSError):
                conn = server.accept()[0]
                held.append(conn)
                if greeting is not None:
                    conn.sendall(greeting)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


@pytest.mark.timeout(60)
def test_a_scheduler_that_is_no_dask_scheduler_is_refused_in_seconds() -> None:
    for greeting, said in ((None, "sent nothing within 0.5 s"),
                           (b"SSH-2.0-OpenSSH_9.6\r\n", "did not open with a Dask frame"),
                           (b"HTTP/1.1 400 Bad Request\r\n\r\n", "did not open with a Dask")):
        with _listener(greeting) as address:
            # the refusal names the 0.5 s it waited: no clock is read, whatever the load
            with pytest.raises(GradesError, match=f"is not a Dask scheduler: it {said}"):
                check_greeting(address, within=0.5)
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    with pytest.raises(GradesError, match="cannot reach the Dask scheduler"):
        check_greeting(f"tcp://127.0.0.1:{port}")
    with pytest.raises(GradesError, match="give the Dask scheduler's address"):
        check_greeting("tcp://127.0.0.1:99999")
    frame = (120).to_bytes(8, "little") + b"\x81" * 120  # a Dask frame's length, then its bytes
    with _listener(frame) as address:
        check_greeting(address, within=0.5)


@pytest.mark.timeout(60)
def test_recheck_against_a_port_that_is_no_scheduler_fails_fast_in_one_line(
        tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the class extra is not installed")
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "registry_1.py").write_text("x = 1\n")  # an empty folder is refused
    with _listener(None) as address:
        done = _main("teacher", "recheck", "ada", "--out", "g.csv", "--scheduler", address,
                     cwd=tmp_path)
    # 3 s of RouterLab's own greeting check, not distributed's 40 s connect timeout: the line
    # says which waited, and the test's 60 s timeout catches a hang, whatever the load
    _refused(done, f"{address} is not a Dask scheduler: it sent nothing within 3 s")
    assert not (tmp_path / "g.csv").exists()
