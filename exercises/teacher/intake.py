"""Where a student's work enters the teacher's process: the one boundary every byte and every
string a student controls crosses, checked once here and trusted nowhere else.

- *Files*: a submission file is read once, opened with `O_NOFOLLOW` (a symlink is not a
  submission), as a regular file with one link (a hard link to a teacher's file, which
  `O_NOFOLLOW` cannot see and an archive unpacked by Python's `tarfile` makes, is not one
  either), bounded, and only if its real path stays inside the student's
  own folder, which may not itself be a link. So a `registry_1.py` linked to a teacher file is
  never read, and a folder of links to another student's files earns nothing. The bytes are
  kept as bytes: they are hashed as handed in, and a stray Latin-1 byte fails that one file in
  Python's own words, never the whole student.
- *Strings*: every text a student's code or files can shape (exception texts, printed output,
  predict answers, file names, the marker's name) is made encodable (`clean`): a lone surrogate
  such as "\\udcff" becomes U+FFFD, so no CSV, journal, feedback page or terminal line of the
  teacher's can fail to encode it. `clean_result` does it to a whole `StudentResult`, once,
  where it leaves the grading of one student (`grade_student`) or arrives from elsewhere (a
  worker, the journal).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..engine.literals import SOURCE_LIMIT
from ..errors import GradesError

FILE_LIMIT = SOURCE_LIMIT
"""Bytes of a submission file read at most: the limit the predict reader and the jail keep."""

T = TypeVar("T")
_SURROGATE = re.compile("[\ud800-\udfff]")
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
"""Control characters (an escape sequence starts with one), bidi overrides, zero widths."""


class Refused(GradesError):
    """A submission path that is not the student's own regular file (a link, outside the
    folder, a FIFO, too large): that exercise scores 0, and the row says why."""


def clean(text: str) -> str:
    """`text` as valid Unicode: every lone surrogate replaced by U+FFFD, nothing else changed."""
    return _SURROGATE.sub("\ufffd", text)


def printable(text: str) -> str:
    """`text` as one line a terminal or a CSV shows as it is: `clean`ed, and every control,
    bidi or zero-width character written as its Python escape (`\\x1b`), so an escape sequence
    in a folder name or a marker can neither clear the teacher's screen nor forge a line."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"),
                            clean(text))


def clean_result(value: T) -> T:
    """`value` (a result dataclass, a list, a dict, a string) with every string `clean`ed, in
    place for dataclasses and lists; returned for convenience."""
    return _clean(value)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        value[:] = [_clean(v) for v in value]
        return value
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            old = getattr(value, f.name)
            new = _clean(old)
            if new is not old:
                object.__setattr__(value, f.name, new)
        return value
    return value


def check_folder(folder: Path) -> Path:
    """The real path of a student's folder; `Refused` when the folder itself is a link (to
    another student's folder, say) or no folder."""
    if folder.is_symlink():
        raise Refused(f"{clean(folder.name)}: the submission folder is a link, not a "
                      "submission; nothing in it is graded")
    if not folder.is_dir():
        raise Refused(f"{clean(str(folder))} is not a folder")
    return Path(os.path.realpath(folder))


def inside(root: Path, path: Path) -> bool:
    """Whether `path` is no link and its real path lies inside `root` (a real path)."""
    if path.is_symlink():
        return False
    real = Path(os.path.realpath(path))
    return real == root or root in real.parents


def read_file(root: Path, path: Path, limit: int = FILE_LIMIT) -> bytes:
    """The bytes of the student's file `path` under their folder's real path `root`, read once
    (see the module docstring); `Refused` says why a path is not one."""
    name = clean(path.name)
    if not inside(root, path):
        raise Refused(f"{name}: a link, or a path that leaves your folder, is not a submission")
    flags = (os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags)
    except OSError as problem:
        raise Refused(f"{name}: cannot read it ({problem.strerror or problem}); a link is not a "
                      "submission") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Refused(f"{name}: not a regular file (a folder, FIFO or device)")
        if status.st_nlink != 1:
            raise Refused(f"{name}: a hard link (it has {status.st_nlink} names), not a "
                          "submission; hand in a file of your own")
        opened = Path(f"/proc/self/fd/{fd}")  # what was opened, if a folder was swapped since
        if opened.exists() and not inside(root, Path(os.path.realpath(opened))):
            raise Refused(f"{name}: its real path leaves your folder")
        data = os.read(fd, limit + 1)
        while len(data) <= limit:
            more = os.read(fd, limit + 1 - len(data))
            if not more:
                break
            data += more
    except OSError as problem:
        raise Refused(f"{name}: cannot read it ({problem.strerror or problem})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise Refused(f"{name}: more than the {limit} bytes an exercise file may have")
    return data
