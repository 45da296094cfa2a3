"""The student's workspace: a folder they own, outside the installed package.

`routerlab exercises init DIR` writes a marker file (`routerlab-exercises.toml`), one starter file
per exercise under `exercises/` and the progress file `.routerlab/state.json`. Every other command,
in the terminal or in a notebook, finds the workspace by walking up from the current directory to
the marker (as git finds `.git`), or takes it from `--dir` / `dir=`. So the terminal and a notebook
opened anywhere inside the folder share one state file.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..core.safe_io import load_toml
from .catalog import Catalog, Exercise, load_catalog
from .errors import NoWorkspaceError, WorkspaceError
from .files import os_errors

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

In a notebook started anywhere inside this folder:

    from . import check
    check("registry-1")

Your progress is in `.routerlab/state.json`; the terminal and the notebook share it.
"""


@dataclass(frozen=True)
class Workspace:
    """A workspace folder and the paths inside it."""

    root: Path
    student: str

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


def init_workspace(directory: Path, student: str | None = None) -> tuple[Workspace, list[Path]]:
    """Create (or complete) a workspace in `directory`; return it and the files written.

    Existing student files are never overwritten: running `init` again only adds the starters of
    exercises that are new in this RouterLab version. An `init` that fails part-way removes what
    it wrote, so the folder is as it was.
    """
    with os_errors("create the workspace"):
        directory, ours, created = _plan_init(directory)
    try:
        with os_errors("create the workspace"):
            directory.mkdir(parents=True, exist_ok=True)
            fresh = [directory / MARKER, directory / "README.md"]
            if fresh[0] not in ours:
                fresh = []
            else:
                _write_marker(fresh[0], student or _default_student())
                fresh[1].write_text(_README, encoding="utf-8")
        workspace = open_workspace(directory)
        added = upgrade_workspace(workspace).added
    except WorkspaceError:
        _remove(ours, [directory / STATE_DIR, directory / EXERCISE_DIR, *created])
        raise
    return workspace, fresh + added


def _plan_init(directory: Path) -> tuple[Path, list[Path], list[Path]]:
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
            *(directory / EXERCISE_DIR / e.file_name for e in load_catalog())]
    return (directory, [p for p in ours if not os.path.lexists(p)],
            [d for d in (directory, *directory.parents) if not d.exists()])


def _write_marker(marker: Path, student: str) -> None:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    marker.write_text("# Marks a RouterLab exercises workspace; keep this file.\n"
                      f"student = {json.dumps(student)}\ncreated = {json.dumps(stamp)}\n",
                      encoding="utf-8")


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
    """What `upgrade_workspace` did: files renamed to their id-keyed names, starters added."""

    renamed: list[tuple[Path, Path]]
    added: list[Path]


def upgrade_workspace(workspace: Workspace) -> Upgrade:
    """Bring a workspace up to this RouterLab: rename position-numbered files to id-keyed names
    and add the starters of new exercises. No student file is overwritten and the progress file
    is not touched (it is keyed by exercise id), so every result is kept."""
    result = Upgrade([], [])
    for exercise in load_catalog():
        keyed = workspace.exercise_dir / exercise.file_name
        current = workspace.file_for(exercise)
        if current != keyed and not keyed.exists():
            with os_errors("rename the exercise file"):
                current.rename(keyed)
            result.renamed.append((current, keyed))
        elif not keyed.exists():
            result.added.append(workspace.restore_starter(exercise))
    with os_errors("create the progress folder"):
        workspace.state_path.parent.mkdir(exist_ok=True)
    return result


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
    """The workspace at `root`, its marker read as a user's file (`routerlab.core.safe_io`)."""
    try:
        meta = load_toml(root / MARKER, what="workspace file", error=WorkspaceError)
    except WorkspaceError as error:
        raise WorkspaceError(f"{error}; fix it or delete it and run `init` again") from None
    return Workspace(root=root, student=str(meta.get("student") or _default_student()))


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
