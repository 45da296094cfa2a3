"""The learner's copy of the guided notebooks, inside their exercise workspace.

`routerlab lab` never serves the shipped `notebooks/`: JupyterLab saves outputs into whatever it
serves, and the shipped notebooks are committed without outputs (a test checks it). It serves
`<workspace>/notebooks/` instead, kept up to date the way `routerlab exercises upgrade` keeps
exercise files: a new notebook is added, a changed one replaces a copy the learner never edited,
and an edited copy is kept with the new version written beside it (`NAME.new.ipynb`).

The notebooks link to RouterLab's own documentation as `../docs/NAME.md`, so the shipped
`docs/*.md` are copied to `<workspace>/docs/` too (`sync_docs`): without them those links give
404 in the served workspace. The docs are reference pages, not the learner's work: a copy that
differs from the shipped page is replaced.

"Edited" means the cells' sources changed (a prediction typed in, a cell added), not their
outputs: running a notebook and saving it is not editing it. What was copied is recorded in
`.routerlab/notebooks.json` (file name → digest of its sources), which is how an unedited copy
is recognised after the shipped version moved on.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ... import shipped
from ...core.base.safe_io import parse_json, read_bytes
from ..errors import WorkspaceError
from ..files import os_errors
from .workspace import (
    MARKER,
    STATE_DIR,
    Workspace,
    caller_cwd,
    find_workspace,
    init_workspace,
    open_workspace,
)

NOTEBOOK_DIR = "notebooks"
"""The learner's notebooks: `<workspace>/notebooks/`."""
DOCS_DIR = "docs"
"""RouterLab's documentation in the workspace, where the notebooks' `../docs/` links point."""
FIRST = "00-welcome.ipynb"
"""The notebook `routerlab lab` opens."""
DEFAULT_WORKSPACE = Path("~/routerlab-exercises")
"""Where `routerlab lab` makes the workspace when none is given or found (docs/notebooks.md)."""
_RECORD = "notebooks.json"
_NEW = ".new.ipynb"


@dataclass
class NotebookSync:
    """What `sync_notebooks` did, by file name in the learner's notebook folder."""

    folder: Path
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    beside: list[tuple[str, str]] = field(default_factory=list)
    """(the learner's edited copy, the new version written beside it)."""
    docs: list[str] = field(default_factory=list)
    """Documentation pages copied or refreshed in `<workspace>/docs/` (`sync_docs`)."""

    def lines(self) -> list[str]:
        """One line per thing worth telling the learner; nothing when all was up to date."""
        lines = []
        if self.added:
            lines.append(f"Copied {len(self.added)} notebook(s) into {self.folder}.")
        if self.updated:
            lines.append(f"Updated {', '.join(self.updated)} (you had not edited them).")
        lines.extend(f"{mine} has your edits and was kept; the new version is {new}."
                     for mine, new in self.beside)
        if self.docs:
            lines.append(f"Copied {len(self.docs)} documentation page(s) into "
                         f"{self.folder.parent / DOCS_DIR}.")
        return lines


def shipped_notebooks() -> Path:
    """The guided notebooks of this RouterLab, from its package data (`routerlab.shipped`): the
    checkout's `notebooks/` in an editable install, `site-packages/routerlab/notebooks/` in a
    wheel."""
    return _shipped(shipped.NOTEBOOKS)


def shipped_docs() -> Path:
    """RouterLab's documentation pages, the ones the notebooks' `../docs/` links open."""
    return _shipped(shipped.DOCS)


def _shipped(name: str) -> Path:
    try:
        return shipped.folder(name)
    except shipped.NotShipped as missing:
        raise WorkspaceError(str(missing)) from None


def sync_docs(workspace: Workspace, source: Path, done: NotebookSync) -> NotebookSync:
    """Copy the documentation pages of `source` (`*.md`) to `<workspace>/docs/`, replacing a
    copy that differs, so that the notebooks' `../docs/NAME.md` links open there; what was
    copied is added to `done`."""
    target = workspace.root / DOCS_DIR
    with os_errors("copy the documentation into the workspace"):
        target.mkdir(parents=True, exist_ok=True)
        for page in sorted(source.glob("*.md")):
            copy = target / page.name
            shipped = page.read_bytes()
            if not copy.is_file() or copy.read_bytes() != shipped:
                copy.write_bytes(shipped)
                done.docs.append(page.name)
    return done


def sync_notebooks(workspace: Workspace, source: Path) -> NotebookSync:
    """Bring `<workspace>/notebooks/` up to the notebooks in `source` (see the module docstring);
    the learner's edits are never overwritten."""
    target = workspace.root / NOTEBOOK_DIR
    record_path = workspace.root / STATE_DIR / _RECORD
    record = _load_record(record_path)
    done = NotebookSync(target)
    with os_errors("copy the notebooks into the workspace"):
        target.mkdir(parents=True, exist_ok=True)
        for shipped in sorted(source.glob("*.ipynb")):
            name = shipped.name
            new = _digest(shipped) or ""  # ours: always a notebook
            copy = target / name
            if not copy.exists():
                shutil.copyfile(shipped, copy)
                done.added.append(name)
            elif (mine := _digest(copy)) == new or record.get(name) == new:
                pass  # up to date, or the learner's edits of this very version
            elif mine is not None and mine == record.get(name):  # never edited: replace it
                shutil.copyfile(shipped, copy)
                done.updated.append(name)
            else:  # edited, and the shipped version moved on: keep it, the new one beside it
                beside = target / (name.removesuffix(".ipynb") + _NEW)
                if _digest(beside) != new:
                    shutil.copyfile(shipped, beside)
                    done.beside.append((name, beside.name))
                continue  # the record keeps the version the learner's edits started from
            record[name] = new
        record_path.parent.mkdir(parents=True, exist_ok=True)
        record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n",
                               encoding="utf-8")
    return done


def _digest(path: Path) -> str | None:
    """A digest of a notebook's cell types and sources (outputs and metadata left out); None
    for a file that is not a readable notebook (it counts as the learner's own)."""
    try:
        cells = parse_json(read_bytes(path, what="notebook", error=WorkspaceError), "notebook",
                           WorkspaceError)["cells"]
        parts = [[c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list)
                  else c["source"]] for c in cells]
    except (WorkspaceError, ValueError, KeyError, TypeError):
        return None
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _load_record(path: Path) -> dict[str, str]:
    """The digests of the copies as written; an unreadable record counts as empty (every copy
    that differs from the shipped one is then treated as edited, and kept)."""
    try:
        loaded = parse_json(read_bytes(path, what="notebook record", error=WorkspaceError),
                            "notebook record", WorkspaceError)
    except WorkspaceError:
        return {}
    return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}


@dataclass(frozen=True)
class LabWorkspace:
    """The workspace `routerlab lab` serves, and what bringing it up to date did."""

    root: Path
    how: str
    """How it was chosen, as the learner reads it ("Your workspace (the default), created")."""
    synced: NotebookSync | None = None
    """The notebooks and docs brought up to date; None on a dry run (nothing is copied)."""
    source: Path | None = None
    """The shipped notebooks they came from; None on a dry run."""


def lab_workspace(directory: Path | None, *, dry_run: bool = False,
                  before_changes: Callable[[], None] | None = None) -> LabWorkspace:
    """`routerlab lab`'s workspace in one call: `directory` (from the caller's folder), else the
    one around the caller's folder, else `DEFAULT_WORKSPACE`; made a workspace if it is a new
    or empty folder, its notebooks and docs brought up to date. A folder that cannot be one is
    refused first, then `before_changes` may refuse (JupyterLab missing), and only then is
    anything written; a dry run writes nothing."""
    root, how, new = _choose_workspace(directory)
    if before_changes is not None:
        before_changes()
    if new:
        how += ", to be created" if dry_run else ", created"
    if dry_run:
        return LabWorkspace(root, how)
    if new:
        init_workspace(root)
    source = shipped_notebooks()
    opened = open_workspace(root)
    synced = sync_docs(opened, shipped_docs(), sync_notebooks(opened, source))
    return LabWorkspace(root, how, synced, source)


def _choose_workspace(directory: Path | None) -> tuple[Path, str, bool]:
    """The workspace folder to serve, how it was chosen, and whether it is still to be made one
    (a new or empty folder). Nothing is created here: a `directory` that is a file, or lies
    under one, is refused even by a dry run."""
    if directory is None:
        try:
            return find_workspace().root, "Your workspace (found from the current folder)", False
        except WorkspaceError:
            directory, how = DEFAULT_WORKSPACE, "Your workspace (the default)"
    else:
        how = "Your workspace"
    folder = directory.expanduser()
    folder = (folder if folder.is_absolute() else caller_cwd() / folder).resolve()
    with os_errors("look at the workspace folder"):
        if (folder / MARKER).is_file():
            return folder, how, False
        existing = next(p for p in (folder, *folder.parents) if p.exists() or p.is_symlink())
        if not existing.is_dir():
            raise WorkspaceError(f"{existing} is not a folder: give --dir a new or empty "
                                 "folder, or a workspace")
        full = folder.is_dir() and any(folder.iterdir())
    if full:
        raise WorkspaceError(f"{folder} is not a RouterLab workspace (no {MARKER}) and not "
                             "empty: give --dir a new or empty folder, or a workspace")
    return folder, how, True
