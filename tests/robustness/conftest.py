"""Running `routerlab` as its console script does (`routerlab.cli.app.main`), in this process
for speed or in a child process where only a real one tells (FIFOs, /dev/zero, memory).

`invoke` lets any exception that escapes `main()` propagate: that is the traceback a user would
see, so a test fails on it with the traceback in its report.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from routerlab.cli import app as app_module

ROUTERLAB = Path(sys.executable).parent / "routerlab"
SECONDS = 60.0
"""A guard against a hostile input that hangs or works for minutes (issue 9), not a speed claim:
generous, so a loaded machine never fails it (a refusal takes well under a second of CPU; the
tests that say "before it computes" check that nothing was computed, not the clock)."""


@dataclass(frozen=True)
class Outcome:
    argv: tuple[str, ...]
    code: int
    out: str
    err: str
    seconds: float

    def assert_refused(self) -> None:
        """Non-zero exit, exactly one `error: ` line on stderr, no traceback, in time."""
        lines = self.err.strip().splitlines()
        shown = [a if len(a) < 60 else a[:60] + "…" for a in self.argv]
        assert self.code != 0, f"{shown} was accepted (exit 0): {self.out[-300:]!r}"
        assert "Traceback" not in self.err, f"{shown}: {self.err[-2000:]}"
        assert len(lines) == 1 and lines[0].startswith("error: "), f"{shown}: {self.err!r}"
        assert self.seconds < SECONDS, f"{shown} took {self.seconds:.1f} s"


Invoke = Callable[..., Outcome]


@pytest.fixture
def invoke(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Invoke:
    """`invoke("simulate", path)`: main() in this process, stdin empty, no colour."""
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*argv: str) -> Outcome:
        monkeypatch.setattr(sys, "argv", ["routerlab", *argv])
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        capsys.readouterr()
        start = time.monotonic()
        try:
            app_module.main()
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
        else:  # pragma: no cover - main always exits
            raise AssertionError("main() returned without exiting")
        seconds = time.monotonic() - start
        captured = capsys.readouterr()
        return Outcome(tuple(argv), code, captured.out, captured.err, seconds)

    return run


@pytest.fixture
def process() -> Callable[..., Outcome]:
    """`process(argv, timeout=60)`: the real console script in a child process."""
    def run(argv: Sequence[str], timeout: float = 60) -> Outcome:
        start = time.monotonic()
        done = subprocess.run([str(ROUTERLAB), *argv], capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, "NO_COLOR": "1"},
                              stdin=subprocess.DEVNULL)
        return Outcome(tuple(argv), done.returncode, done.stdout, done.stderr,
                       time.monotonic() - start)

    return run


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], str]:
    """`write(name, content)`: a file in this test's folder, its path as a string."""
    def make(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return str(path)

    return make


@pytest.fixture
def fifo(tmp_path: Path) -> str:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = tmp_path / "fifo.toml"
    os.mkfifo(path)
    return str(path)
