"""The exercise face's file access: every failure is one `ExerciseError` line naming the path.

A workspace lives on the student's disk, so anything can be in it: a progress file nested
100,000 levels deep, a marker saved as Latin-1, a FIFO where a file should be, a results path
in a folder that does not exist. Reads go through `routerlab.core.base.safe_io` (regular files only,
a size cap, strict UTF-8, nesting and integer limits); writes go to a temporary file that
replaces the target only once complete, so a failed write never leaves half a file; an
`OSError` becomes one line that says which path and why (docs/limits.md lists the limits).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from .errors import ExerciseError, WorkspaceError

ErrorType = type[ExerciseError]


@contextlib.contextmanager
def os_errors(action: str, error: ErrorType = WorkspaceError) -> Iterator[None]:
    """Turn an `OSError` raised inside into `error`: `PATH: cannot ACTION: REASON`."""
    try:
        yield
    except OSError as problem:
        raise error(describe(problem, action)) from None


def describe(problem: OSError, action: str) -> str:
    """One line for an `OSError`: the path it names (if any), the action, the reason."""
    where = f"{problem.filename}: " if problem.filename is not None else ""
    return f"{where}cannot {action}: {problem.strerror or problem}"


def check_target(path: Path, what: str, error: ErrorType = WorkspaceError) -> None:
    """Refuse, before any work, a path that `write_text` could not write: its folder is missing
    or not a folder, or the path is something other than a regular file (a folder, a FIFO
    that would block the write, a device)."""
    folder = path.parent
    try:
        if not folder.is_dir():
            raise error(f"{path}: cannot write the {what}: the folder {folder} does not exist "
                        "(or is not a folder)")
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as problem:
        raise error(describe(problem, f"write the {what}")) from None
    if not stat.S_ISREG(mode):
        raise error(f"{path}: cannot write the {what}: it exists and is not a regular file")


def write_text(path: Path, text: str, what: str, error: ErrorType = WorkspaceError) -> Path:
    """Write `text` to `path` whole or not at all: a temporary file beside it, then a rename."""
    check_target(path, what, error)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(text.encode("utf-8"))  # as given: a CSV keeps its \r\n line ends
        os.replace(tmp, path)
    except OSError as problem:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise error(describe(problem, f"write the {what}")) from None
    return path
