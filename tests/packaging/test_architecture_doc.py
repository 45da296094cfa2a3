"""docs/ARCHITECTURE.md says what is there: every module file it names exists, and every
subpackage of RouterLab has its place in it.

A file is named in backticks, by its path (`core/runtime.py`, `exercises/engine/jail.py`), by a
path inside the folder a table row or paragraph is about (`fix/guard.py`, `host.py`), or as a
dotted module (`routerlab.core.serving`); each must match a file of the package. A subpackage is
in the text as its folder (`serving/`, `exercises/engine/`) or its dotted name.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
LAYERS = ("core", "present", "teaching", "notebook", "exercises", "cli")
"""The package's folders (setup.py's LAYERS); tests, docs and the rest are not modules."""


def _package_files() -> list[str]:
    files = ["__init__.py", "__main__.py"]
    for layer in LAYERS:
        files += [p.relative_to(ROOT).as_posix() for p in (ROOT / layer).rglob("*.py")
                  if "__pycache__" not in p.parts and "catalog" not in p.parts[1:-1]]
    return files


def _checkout_files() -> list[str]:
    """The package's files and those beside it the page may point at (tests, setup.py, an
    exercise's `starter.py`)."""
    skip = {".git", ".venv", "build", "dist", "__pycache__"}
    return [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")
            if not skip.intersection(p.relative_to(ROOT).parts)]


def _subpackages() -> list[str]:
    return sorted(p.parent.relative_to(ROOT).as_posix() for layer in LAYERS
                  for p in (ROOT / layer).rglob("__init__.py") if "__pycache__" not in p.parts)


def _named_files(text: str) -> set[str]:
    return {token for token in re.findall(r"`([\w./-]+\.py)`", text) if "<" not in token}


def _dotted(text: str) -> set[str]:
    return set(re.findall(r"`(routerlab(?:\.\w+)+)`", text))


def test_every_module_file_the_page_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    files = _checkout_files()
    missing = sorted(name for name in _named_files(text)
                     if not any(f == name or f.endswith("/" + name) for f in files))
    assert missing == [], f"docs/ARCHITECTURE.md names files that do not exist: {missing}"
    modules = {"routerlab." + f.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
               for f in _package_files()} | {"routerlab"}
    unknown = sorted(name for name in _dotted(text)
                     if name not in modules and name.rpartition(".")[0] not in modules)
    assert unknown == [], f"docs/ARCHITECTURE.md names modules that do not exist: {unknown}"


def test_every_subpackage_has_its_place_in_the_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    left_out = [package for package in _subpackages()
                if f"`{package}/`" not in text and f"`{package.rpartition('/')[2]}/`" not in text
                and f"`routerlab.{package.replace('/', '.')}`" not in text
                and f"{package}/" not in text]
    assert left_out == [], f"docs/ARCHITECTURE.md leaves out {left_out}"


def test_the_checks_catch_a_page_that_drifted() -> None:
    """The same reading on a page naming a file that moved away and a module that never was."""
    drifted = "`fix/burn_text.py` and `core/remote/host.py` and `routerlab.exercises.grading`"
    files = _checkout_files()
    assert {n for n in _named_files(drifted)
            if not any(f == n or f.endswith("/" + n) for f in files)} == {
        "fix/burn_text.py", "core/remote/host.py"}
    assert "routerlab.exercises.grading" in _dotted(drifted)
    assert "exercises/engine" in _subpackages() and "core/serving" in _subpackages()
