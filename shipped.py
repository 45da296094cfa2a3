"""The files RouterLab ships beside its code: the guided notebooks, the scenarios and the docs.

They are package data of `routerlab` (setup.py), read through `importlib.resources`, so they are
found the same way in a checkout (an editable install: the package is the checkout's root) and in
a wheel installed from PyPI or `pip install .` (they sit in `site-packages/routerlab/`). No
caller builds a path from `__file__`: that broke the moment a module moved or the checkout was
not there.

A shipped scenario is named by its file name without `.toml`, as `routerlab simulate --list`
shows it (`shared-add`, `peers/kill-mid-transfer`).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

NOTEBOOKS = "notebooks"
SCENARIOS = "scenarios"
DOCS = "docs"


class NotShipped(LookupError):
    """A shipped folder or scenario that this install does not have."""


def folder(name: str) -> Path:
    """The shipped folder `name` (`NOTEBOOKS`, `SCENARIOS` or `DOCS`) as a real directory."""
    found = Path(str(files(__package__ or "routerlab").joinpath(name)))
    if not found.is_dir():
        raise NotShipped(f"this RouterLab install has no {name}/ ({found}); reinstall it "
                         "(pip install routerlab, or pip install -e . in a checkout)")
    return found


def scenario_names() -> dict[str, Path]:
    """Every shipped scenario by name (`shared-add`, `peers/kill-mid-transfer`), sorted."""
    root = folder(SCENARIOS)
    found = {path.relative_to(root).with_suffix("").as_posix(): path
             for path in root.rglob("*.toml")}
    return dict(sorted(found.items()))


def scenario(name: str) -> Path:
    """The shipped scenario called `name` (with or without `.toml`)."""
    names = scenario_names()
    key = name.removesuffix(".toml").removeprefix(f"{SCENARIOS}/")
    if key not in names:
        raise NotShipped(f"no scenario file {name!r} here, and no shipped scenario of that name "
                         "(`routerlab simulate --list` shows them)")
    return names[key]
