"""The student's workspace: a folder they own, outside the installed package.

`routerlab exercises init DIR` writes a marker file (`routerlab-exercises.toml`), one starter file
per exercise under `exercises/` and the progress file `.routerlab/state.json`. Every other command,
in the terminal or in a notebook, finds the workspace by walking up from the current directory to
the marker (as git finds `.git`), or takes it from `--dir` / `dir=`. So the terminal and a notebook
opened anywhere inside the folder share one state file.

A *class workspace* (`init DIR --course BUNDLE --student-id ID`) is made from a teacher's course
bundle (`routerlab.exercises.authoring.bundle`): the marker records the student id and the course's
id and version, and the bundle is copied into `.routerlab/course/`, which is its catalog from then
on. `Workspace.student_id` is how grading matches a handed-in workspace to a roster row.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...core.base.safe_io import load_json, load_toml, read_text
from ..authoring.bundle import CourseInfo, check_student_id, open_bundle
from ..catalog import Catalog, Exercise, load_catalog
from ..errors import CatalogError, NoWorkspaceError, WorkspaceError
from ..files import os_errors, write_text

MARKER = "routerlab-exercises.toml"
EXERCISE_DIR = "exercises"
STATE_DIR = ".routerlab"

_README = """# RouterLab exercises

Each file in `exercises/` is one exercise: read its docstring, replace the `TODO`, then check it.

    routerlab exercises list            what there is, and how far you are
    routerlab exercises check           check the next unfinished exercise (or give an id)
    routerlab exercises watch           re-check every time you save
    routerlab exercises hint ID         a hint (run it again for the next level)
    routerlab exercises solution ID     the reference solution, once you have passed
    routerlab exercises export          a results file to hand in (re-checks every file)
    routerlab exercises upgrade         after updating RouterLab: add new exercises, keep yours

In a notebook started anywhere inside this folder (`routerlab lab` starts one):

    from routerlab.exercises import check, hint, progress
    check("registry-1")

Your progress is in `.routerlab/state.json`; the terminal and the notebook share it.
"""


@dataclass(frozen=True)
class Workspace:
    """A workspace folder and the paths inside it."""

    root: Path
    student: str
    student_id: str | None = None
    """The roster id a class workspace was made with (`--student-id`); None in self-study."""
    course: str | None = None
    """The course id of a class workspace's bundle; None in self-study."""
    course_version: str | None = None
    """The version (content digest) of that bundle."""
    tag: str | None = None
    """The tag the teacher handed the student (`--tag`): it finds their own variant."""

    @property
    def class_mode(self) -> bool:
        """Made from a course bundle: no answers here; hidden checks and solutions come from the
        teacher."""
        return self.course is not None

    @property
    def course_dir(self) -> Path:
        """A class workspace's copy of its course bundle: its catalog."""
        return self.root / STATE_DIR / "course"

    @property
    def released_path(self) -> Path:
        """The solutions the teacher released, once imported (`exercises import-solutions`)."""
        return self.root / STATE_DIR / "solutions.json"

    def catalog(self) -> Catalog:
        """The exercises of this workspace: its course bundle's, or the installed catalog."""
        if not self.class_mode:
            return load_catalog()
        if not (self.course_dir / "index.toml").is_file():
            raise WorkspaceError(f"{self.root} is a class workspace of {self.course!r}, but its "
                                 f"copy of the course ({self.course_dir}) is missing; run "
                                 "`routerlab exercises init` on it again with --course BUNDLE")
        try:
            catalog = load_catalog(str(self.course_dir.resolve()))
        except CatalogError as error:
            raise WorkspaceError(f"{self.course_dir}: {error}") from None
        from ..variants.table import apply_table

        return apply_table(catalog, self.course_dir, str(self.course), self.tag)

    @property
    def exercise_dir(self) -> Path:
        return self.root / EXERCISE_DIR

    @property
    def state_path(self) -> Path:
        return self.root / STATE_DIR / "state.json"

    @property
    def solutions_dir(self) -> Path:
        return self.root / "solutions"

    def file_for(self, exercise: Exercise) -> Path:
        """The student's file of `exercise`: named by id; a workspace made by an older RouterLab
        (files numbered by catalog position) keeps its numbered file until `upgrade` renames
        it, whatever number it has now."""
        keyed = self.exercise_dir / exercise.file_name
        if keyed.exists():
            return keyed
        legacy = sorted(self.exercise_dir.glob(f"[0-9][0-9]_{exercise.file_name}"))
        return legacy[0] if legacy else keyed

    def exercise_for_file(self, path: Path, catalog: Catalog) -> Exercise | None:
        """Which exercise a changed file belongs to (for `watch`); None for any other file."""
        if path.parent.resolve() != self.exercise_dir.resolve():
            return None
        for exercise in catalog:
            if path.name == exercise.file_name or (
                    path.name[:2].isdigit() and path.name[2:] == "_" + exercise.file_name):
                return exercise
        return None

    def restore_starter(self, exercise: Exercise) -> Path:
        """Write the exercise's starter file, replacing whatever the student had there."""
        path = self.file_for(exercise)
        with os_errors("write the starter file"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(exercise.starter(), encoding="utf-8")
        return path


def init_workspace(directory: Path, student: str | None = None, course: Path | None = None,
                   student_id: str | None = None, tag: str | None = None
                   ) -> tuple[Workspace, list[Path]]:
    """Create (or complete) a workspace in `directory`; return it and the files written.

    With `course` (a bundle folder) and `student_id`, a class workspace. Existing student files
    are never overwritten: running `init` again only adds the starters of exercises that are new
    in this RouterLab version (or course). An `init` that fails part-way removes what it wrote,
    so the folder is as it was.
    """
    info: CourseInfo | None = None
    catalog = load_catalog()
    if course is not None:
        if not student_id:
            raise WorkspaceError("a class workspace needs your --student-id (the id on your "
                                 "teacher's roster)")
        check_student_id(student_id)
        if tag is not None:
            from ..variants.table import check_tag

            tag = check_tag(tag)
        info, catalog = open_bundle(_absolute(course), WorkspaceError)
    elif student_id or tag:
        raise WorkspaceError("--student-id and --tag are for a class workspace: give the course "
                             "bundle too (--course BUNDLE)")
    with os_errors("create the workspace"):
        directory, ours, created = _plan_init(directory, catalog)
    if (directory / MARKER).exists():
        _same_mode(open_workspace(directory), info)
    copy = directory / STATE_DIR / "course"
    copied = course is not None and not copy.exists()
    try:
        with os_errors("create the workspace"):
            directory.mkdir(parents=True, exist_ok=True)
            fresh = [directory / MARKER, directory / "README.md"]
            if fresh[0] not in ours:
                fresh = []
            else:
                _write_marker(fresh[0], student or student_id or _default_student(),
                              student_id, info, tag)
                fresh[1].write_text(_README, encoding="utf-8")
            if copied and course is not None:
                shutil.copytree(_absolute(course), copy, symlinks=True)  # links: refused above
        workspace = open_workspace(directory)
        added = upgrade_workspace(workspace).added
    except WorkspaceError:
        if copied:
            shutil.rmtree(copy, ignore_errors=True)
        _remove(ours, [directory / STATE_DIR, directory / EXERCISE_DIR, *created])
        raise
    return workspace, fresh + added


def _same_mode(existing: Workspace, info: CourseInfo | None) -> None:
    """`init` on an existing workspace completes it; it never turns one mode into the other."""
    course = info.id if info else None
    if existing.course != course:
        have = f"the course {existing.course!r}" if existing.course else "self-study"
        want = f"the course {course!r}" if course else "self-study"
        raise WorkspaceError(f"{existing.root} is already a workspace for {have}, not {want}; "
                             "choose another folder")


def _absolute(path: Path) -> Path:
    path = path.expanduser()
    return (path if path.is_absolute() else caller_cwd() / path).resolve()


def _plan_init(directory: Path, catalog: Catalog) -> tuple[Path, list[Path], list[Path]]:
    """The workspace folder `init` makes; the files and the folders it would create (what a
    failure takes back), after refusing a folder that cannot be a workspace."""
    directory = directory.expanduser()
    directory = (directory if directory.is_absolute() else caller_cwd() / directory).resolve()
    if directory.exists() and not directory.is_dir():
        raise WorkspaceError(f"{directory} exists and is not a folder")
    enclosing = _find_marker(directory.parent)
    if enclosing is not None and not (directory / MARKER).exists():
        raise WorkspaceError(f"{directory} is inside the workspace {enclosing}; "
                             "choose a folder outside it")
    ours = [directory / MARKER, directory / "README.md",
            *(directory / EXERCISE_DIR / e.file_name for e in catalog)]
    return (directory, [p for p in ours if not os.path.lexists(p)],
            [d for d in (directory, *directory.parents) if not d.exists()])


def _write_marker(marker: Path, student: str, student_id: str | None = None,
                  course: CourseInfo | None = None, tag: str | None = None) -> None:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    lines = ["# Marks a RouterLab exercises workspace; keep this file.",
             f"student = {json.dumps(student)}", f"created = {json.dumps(stamp)}"]
    if course is not None:  # a class workspace: who, and which release
        lines += [f"student_id = {json.dumps(student_id)}", f"course = {json.dumps(course.id)}",
                  f"course_version = {json.dumps(course.version)}"]
        lines += [f"tag = {json.dumps(tag)}"] if tag else []
    marker.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _remove(files: list[Path], folders: list[Path]) -> None:
    """Undo a failed `init`: the files it wrote, then the folders it made if they are empty
    (`rmdir` takes only an empty folder, so nothing of the student's is lost)."""
    for path in files:
        with contextlib.suppress(OSError):
            path.unlink()
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


@dataclass
class Upgrade:
    """What `upgrade_workspace` did: files renamed to their id-keyed names, starters added, and
    the exercises that changed since the workspace last saw them (with what changed)."""

    renamed: list[tuple[Path, Path]]
    added: list[Path]
    changed: dict[str, list[str]] = field(default_factory=dict)
    beside: list[tuple[Path, Path]] = field(default_factory=list)
    """(the student's file, kept; the changed exercise's new starter, written beside it)."""


SNAPSHOT = "catalog.json"
"""`.routerlab/catalog.json`: each exercise's fingerprint as of the last init or upgrade, so the
next upgrade can say what changed."""


def upgrade_workspace(workspace: Workspace, catalog: Catalog | None = None) -> Upgrade:
    """Bring a workspace up to this RouterLab (or `catalog`): rename position-numbered files to
    id-keyed names and add the starters of new exercises. No student file is overwritten (a
    changed starter is written beside it, `NAME.new.py`) and the progress file is not touched
    (it is keyed by exercise id), so every result is kept; `changed` says which exercises
    changed since the last upgrade, and how (a pass of one may no longer count)."""
    catalog = catalog or workspace.catalog()
    result = Upgrade([], [])
    before = _snapshot(workspace)
    now = {e.id: fingerprint(e) for e in catalog}
    for exercise in catalog:
        keyed = workspace.exercise_dir / exercise.file_name
        current = workspace.file_for(exercise)
        if current != keyed and not keyed.exists():
            with os_errors("rename the exercise file"):
                current.rename(keyed)
            result.renamed.append((current, keyed))
        elif not keyed.exists():
            result.added.append(workspace.restore_starter(exercise))
        old = before.get(exercise.id)
        if isinstance(old, dict) and old != now[exercise.id]:
            result.changed[exercise.id] = _differences(old, now[exercise.id])
            if old.get("starter") != now[exercise.id]["starter"]:
                beside = keyed.with_name(f"{keyed.stem}.new.py")
                write_text(beside, exercise.starter(), "new starter file")
                result.beside.append((keyed, beside))
    with os_errors("create the progress folder"):
        workspace.state_path.parent.mkdir(exist_ok=True)
    write_text(workspace.root / STATE_DIR / SNAPSHOT, json.dumps(now, indent=1) + "\n",
               "exercise fingerprints")
    return result


def fingerprint(exercise: Exercise) -> dict[str, Any]:
    """What a pass depends on: a digest of each sealed check or answer (a class bundle's
    visible results), and of the starter."""
    sealed = exercise.sealed()
    checks = dict(sealed.digests) if sealed else {}
    visible = exercise.folder / "visible.json"
    if visible.is_file():
        checks["the visible checks"] = _short(visible.read_bytes())
    return {"checks": checks, "starter": _short(exercise.starter().encode())}


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    was, now = old.get("checks") or {}, new["checks"]
    found = [f"“{name}” now expects other results" for name in now
             if name in was and was[name] != now[name]]
    found += [f"“{name}” is new" for name in now if name not in was]
    found += [f"“{name}” was removed" for name in was if name not in now]
    if old.get("starter") != new["starter"]:
        found.append("its starter changed")
    return found or ["it was sealed again"]


def _snapshot(workspace: Workspace) -> dict[str, Any]:
    path = workspace.root / STATE_DIR / SNAPSHOT
    if not path.is_file():
        return {}
    try:
        data = load_json(path, what="exercise fingerprints", error=WorkspaceError)
    except WorkspaceError:
        return {}  # a damaged record of the past: this upgrade starts a new one
    return data if isinstance(data, dict) else {}


def _short(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def replace_course(workspace: Workspace, bundle: Path) -> Workspace:
    """Move a class workspace to a new release of its course (the teacher fixed something): the
    new bundle becomes its catalog, the old copy is kept as `.routerlab/course-VERSION/`, and
    the marker records the new version. Another course's bundle is refused."""
    if not workspace.class_mode:
        raise WorkspaceError(f"{workspace.root} is a self-study workspace; --course is for a "
                             "class workspace")
    bundle = _absolute(bundle)
    info, _ = open_bundle(bundle, WorkspaceError)
    if info.id != workspace.course:
        raise WorkspaceError(f"{bundle} is a release of {info.id!r}; this workspace belongs to "
                             f"{workspace.course!r}")
    if info.version == workspace.course_version:
        return workspace
    kept = workspace.root / STATE_DIR / f"course-{workspace.course_version}"
    incoming = workspace.root / STATE_DIR / "course.incoming"
    with os_errors("replace the course copy"):
        shutil.rmtree(incoming, ignore_errors=True)
        shutil.copytree(bundle, incoming, symlinks=True)
        if kept.exists():
            shutil.rmtree(kept)
        workspace.course_dir.rename(kept)
        incoming.rename(workspace.course_dir)
    marker = workspace.root / MARKER
    lines = [line for line in read_text(marker, what="workspace file", error=WorkspaceError)
             .splitlines() if not line.startswith("course_version =")]
    write_text(marker, "\n".join([*lines, f"course_version = {json.dumps(info.version)}"]) + "\n",
               "workspace file")
    load_catalog.cache_clear()  # the same folder now holds another release
    return open_workspace(workspace.root)


def caller_cwd() -> Path:
    """Where the student typed the command: `./run` passes it on (it runs RouterLab from the
    repository root), otherwise the current directory."""
    given = os.environ.get("ROUTERLAB_CALLER_CWD")
    return Path(given) if given and Path(given).is_dir() else Path.cwd()


def find_workspace(explicit: Path | None = None, start: Path | None = None) -> Workspace:
    """The workspace named by `explicit`, or the one enclosing `start` (default: where the
    command was typed)."""
    if explicit is not None:
        root = explicit.expanduser()
        root = (root if root.is_absolute() else caller_cwd() / root).resolve()
        if not (root / MARKER).is_file():
            raise WorkspaceError(f"{root} is not a RouterLab workspace (no {MARKER}); "
                                 f"create one with `routerlab exercises init {explicit}`")
        return open_workspace(root)
    here = (start or caller_cwd()).resolve()
    found = _find_marker(here)
    if found is None:
        raise NoWorkspaceError(f"no RouterLab workspace here: no {MARKER} in {here} or above it; "
                             "run `routerlab exercises init DIR`, or pass --dir DIR")
    return open_workspace(found)


def open_workspace(root: Path) -> Workspace:
    """The workspace at `root`, its marker read as a user's file (`routerlab.core.base.safe_io`)."""
    try:
        meta = load_toml(root / MARKER, what="workspace file", error=WorkspaceError)
    except WorkspaceError as error:
        raise WorkspaceError(f"{error}; fix it or delete it and run `init` again") from None
    def text(key: str) -> str | None:
        value = meta.get(key)
        return str(value) if isinstance(value, str) and value else None

    return Workspace(root=root, student=text("student") or _default_student(),
                     student_id=text("student_id"), course=text("course"),
                     course_version=text("course_version"), tag=text("tag"))


def _find_marker(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / MARKER).is_file():
            return folder
    return None


def _default_student() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "student"
