"""A class roster, and which submission belongs to which roster id.

`roster.csv` has the columns `id,name,email` and optionally `section` and `lms_id` (a header
row, in any order; more columns are ignored). Two ids, because at most schools they differ:
`id` is the student's hub user name (what `teacher collect` names their folder, and what a
class workspace is made with), `lms_id` the one the LMS matches grades on (Canvas's SIS User ID,
Moodle's ID number); without it the LMS layouts use `id`. Submissions are matched on the id,
never on a typed name: `submitted/<id>/` (nbgrader's layout, what `teacher collect` writes), or
a class workspace whose marker holds the id it was made with (`exercises init --course BUNDLE
--student-id ID`). Every roster id without a submission, every submission whose id is not on
the roster, and every id claimed twice (in the roster, or by two workspaces) is reported, never
silently dropped.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...core.base.safe_io import load_toml, read_bytes, shorten
from ..errors import GradesError
from .intake import printable

COLUMNS = ("id", "name", "email")
OPTIONAL = ("section", "lms_id")
ID_LIMIT = 64
"""Characters of a roster id at most (a hub user name; it names a folder and files)."""
CELL_LIMIT = 1000
"""Characters of any roster cell at most (a name, an email)."""


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    email: str
    section: str = ""
    lms_id: str = ""
    """The id the LMS matches grades on, when it is not `id`."""


@dataclass
class Matched:
    """The roster against the submissions folder."""

    students: list[Student]
    folders: dict[str, Path]
    """Roster id -> the submission folder graded for it."""
    missing: list[str] = field(default_factory=list)
    """Roster ids with no submission (they get a row of zeros, flagged)."""
    unknown: list[Path] = field(default_factory=list)
    """Submissions whose id is not on the roster (not graded)."""
    duplicates: list[str] = field(default_factory=list)
    """Ids claimed by more than one submission or listed twice on the roster (flagged; the
    folder named by the id is graded for it, else the first in sorted order)."""
    claimants: list[tuple[str, Path]] = field(default_factory=list)
    """(id, folder): the other folders that claim an id, graded under their folder names."""
    near: list[str] = field(default_factory=list)
    """"Did you mean" lines: folders that differ from a roster id only in case."""

    def problems(self) -> list[str]:
        out = [f"{printable(sid)}: on the roster, but no submission" for sid in self.missing]
        out += [f"{printable(p.name)}: a submission whose id is not on the roster (not graded)"
                for p in self.unknown]
        out += [f"{printable(sid)}: claimed twice (roster or submissions); check by hand"
                for sid in self.duplicates]
        return out + self.near


def read_roster(path: Path) -> list[Student]:
    """The roster's students, in file order; GradesError names the line that is wrong: a file
    that is not CSV at all (`csv.Error` is said, never raised), bytes that are not UTF-8 (a
    Latin-1 export), a quote left open (it would swallow every row after it), an id listed
    twice, a cell longer than `CELL_LIMIT` or an id longer than `ID_LIMIT`."""
    raw = read_bytes(path, what="roster", error=GradesError)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise GradesError(f"{path}, line {line}: not UTF-8 (byte 0x{raw[error.start]:02x}); "
                          "save the roster as UTF-8 (CSV UTF-8 in a spreadsheet)") from None
    reader = csv.DictReader(io.StringIO(text), strict=True)
    try:
        header = reader.fieldnames
    except csv.Error as error:
        raise _not_csv(path, 1, error) from None
    return _students(path, reader, header)


def _not_csv(path: Path, line: int, error: csv.Error) -> GradesError:
    return GradesError(f"{path}, line {line}: not CSV ({error}); a roster is "
                       "id,name,email[,section] rows (a quote opened there is never closed?)")


def _students(path: Path, reader: csv.DictReader[str], fieldnames: Sequence[str] | None
              ) -> list[Student]:
    header = [h.strip().lower() for h in fieldnames or []]
    lacking = [c for c in COLUMNS if c not in header]
    if lacking:
        raise GradesError(f"{path}: the roster needs the columns id,name,email[,section,lms_id]; "
                          f"{', '.join(lacking)} missing (header: {','.join(header) or 'none'})")
    students = []
    seen: dict[str, int] = {}
    line = reader.line_num + 1  # where the row being read starts
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise _not_csv(path, line, error) from None
        values = [v for v in row.values() if isinstance(v, str)]
        if any("\n" in v or "\r" in v for v in values):
            raise GradesError(f"{path}, line {line}: a quote opened here is never closed (it "
                              "runs over the rows after it)")
        data = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()
                if isinstance(v, str)}
        sid = data.get("id", "")
        if not sid:
            raise GradesError(f"{path}, line {line}: no id")
        if len(sid) > ID_LIMIT:
            raise GradesError(f"{path}, line {line}: an id of {len(sid)} characters (at most "
                              f"{ID_LIMIT})")
        if any(len(v) > CELL_LIMIT for v in values):
            raise GradesError(f"{path}, line {line}: a cell longer than {CELL_LIMIT} characters")
        if not valid_id(sid):
            raise GradesError(f"{path}, line {line}: {shorten(sid, 40)!r} is not an id (a folder "
                              "name: no slashes)")
        if sid in seen:
            raise GradesError(f"{path}, line {line}: the id {sid!r} is listed twice (lines "
                              f"{seen[sid]} and {line}); one student, one row")
        seen[sid] = line
        students.append(Student(sid, data.get("name", ""), data.get("email", ""),
                                data.get("section", ""), data.get("lms_id", "")))
        line = reader.line_num + 1
    if not students:
        raise GradesError(f"{path}: the roster lists no student")
    return students


def valid_id(text: str) -> bool:
    """The roster's id rule, for a roster row and a marker's id alike: it names a folder and
    a feedback file (no slashes, not `.` or `..`, printable)."""
    return bool(text) and not any(c in text for c in "/\\") and text not in (".", "..") \
        and text.isprintable()


def refuse_unmatched(matched: Matched, roster: Path, submissions: Path) -> None:
    """GradesError when the roster matches no submission at all: a garbled roster, or another
    class's, would otherwise grade nobody, give every student a zero and still succeed."""
    if matched.folders:
        return
    if not matched.unknown:
        raise GradesError(f"{submissions}: no submission in it (one folder per student id); "
                          "nothing was graded")
    ids = _some([s.id for s in matched.students])
    names = _some([p.name for p in matched.unknown])
    raise GradesError(f"{roster}: none of its {len(matched.students)} ids ({ids}) is one of the "
                      f"{len(matched.unknown)} submissions in {submissions} ({names}): is it "
                      "this class's roster? Nothing was graded")


def _some(names: list[str]) -> str:
    """The first three names, short and quoted, for a line that stays one line."""
    shown = ", ".join(repr(shorten(n, 20)) for n in names[:3])
    return shown + (", …" if len(names) > 3 else "")


def workspace_id(folder: Path) -> str | None:
    """The student id a class workspace was made with (its marker's `student_id`), if any."""
    from ..learner.workspace import MARKER

    marker = folder / MARKER
    if folder.is_symlink() or marker.is_symlink() or not marker.is_file():
        return None  # a link is not the student's own folder or file: it names nobody
    try:
        meta = load_toml(marker)
    except Exception:  # noqa: BLE001 - an unreadable marker identifies nobody
        return None
    value = meta.get("student_id")
    return str(value) if isinstance(value, str | int) and str(value) else None


def match(students: list[Student], submissions: Path) -> Matched:
    """Pair each roster id with its folder under `submissions` (see the module docstring).

    Ids and folder names are compared in Unicode's NFC form (a folder made on macOS is NFD).
    When several folders claim one id, the folder *named* by the id is graded for it (a folder
    that sorts first cannot take a classmate's place); the others are `claimants`, graded under
    their own folder names and flagged. A folder that differs from an id only in case is told
    "did you mean". Linear in the roster and the folders."""
    if not submissions.is_dir():
        raise GradesError(f"{submissions}: not a folder of submissions")
    roster_ids = [s.id for s in students]
    counts = Counter(roster_ids)  # linear: a roster of 100,000 is matched in well under a second
    duplicates = sorted(i for i, n in counts.items() if n > 1)
    by_nfc = {_nfc(i): i for i in roster_ids}
    by_case = {_nfc(i).casefold(): i for i in roster_ids}
    claims: dict[str, list[Path]] = {}
    unknown: list[Path] = []
    near: list[str] = []
    for folder in sorted(p for p in submissions.iterdir() if p.is_dir()):
        claimed = workspace_id(folder) or folder.name
        sid = by_nfc.get(_nfc(claimed))
        if sid is not None:
            claims.setdefault(sid, []).append(folder)
        elif not folder.name.startswith("."):
            unknown.append(folder)
            guess = by_case.get(_nfc(claimed).casefold())
            if guess is not None:
                near.append(f"{printable(folder.name)}: not on the roster; did you mean "
                            f"{printable(guess)!r}? (ids differ in case)")
    duplicates += sorted(sid for sid, found in claims.items()
                         if len(found) > 1 and counts[sid] == 1)
    unique = list(dict.fromkeys(roster_ids))
    folders: dict[str, Path] = {}
    claimants: list[tuple[str, Path]] = []
    for sid in unique:
        found = claims.get(sid, [])
        if not found:
            continue
        named = [f for f in found if _nfc(f.name) == _nfc(sid)]
        folders[sid] = (named or found)[0]
        claimants += [(sid, f) for f in found if f != folders[sid]]
    missing = [sid for sid in unique if sid not in claims]
    return Matched(_first_each(students), folders, missing, unknown, duplicates, claimants,
                   near)


def _first_each(students: list[Student]) -> list[Student]:
    """Each id's first roster row, in roster order."""
    seen: set[str] = set()
    out = []
    for student in students:
        if student.id not in seen:
            seen.add(student.id)
            out.append(student)
    return out


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)
