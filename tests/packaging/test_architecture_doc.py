"""docs/ARCHITECTURE.md says what is there: every module file it names exists, every module and
subpackage of RouterLab has its place in it, and no module or package name repeats inside core.

A module is named when the page has its path or a tail of it in backticks (`core/quant/ops.py`,
`quant/ops.py`, `ops.py`), its dotted name (`routerlab.core.quant.ops`), or its bare name in
backticks in the same table row or paragraph as its folder (`serving/` ... `faults`).

A file is named in backticks, by its path (`core/runtime.py`, `exercises/engine/jail.py`), by a
path inside the folder a table row or paragraph is about (`fix/guard.py`, `host.py`), or as a
dotted module (`routerlab.core.serving`); each must match a file of the package. A subpackage is
in the text as its folder (`serving/`, `exercises/engine/`) or its dotted name.
"""

from __future__ import annotations

import re
from collections import Counter
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


def _ticked(text: str) -> set[str]:
    """What a text has in backticks, code fences left out (their backticks pair nothing)."""
    return set(re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S)))


def _blocks(text: str) -> list[str]:
    """The page's paragraphs, each table row a block of its own."""
    blocks: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        lines = paragraph.splitlines()
        rows = bool(lines) and all(line.startswith("|") for line in lines)
        blocks += lines if rows else [paragraph]
    return blocks


def _unnamed(text: str, files: list[str]) -> list[str]:
    """The module files (`__init__.py` aside: a package is its folder) the page names nowhere."""
    ticked, blocks = _ticked(text), [_ticked(b) for b in _blocks(text)]

    def named(path: str) -> bool:
        parts = path.removesuffix(".py").split("/")
        if any("/".join(parts[i:]) + ".py" in ticked for i in range(len(parts))):
            return True
        if "routerlab." + ".".join(parts) in ticked:
            return True
        folders = {"/".join(parts[i:-1]) + "/" for i in range(len(parts) - 1)}
        folders.add("routerlab." + ".".join(parts[:-1]))
        return len(parts) > 1 and any(parts[-1] in b and folders & b for b in blocks)

    return sorted(f for f in files if not f.endswith("__init__.py") and not named(f))


def test_every_module_of_the_package_is_named_in_the_page() -> None:
    files = _package_files() + [p.name for p in ROOT.glob("*.py") if p.name != "setup.py"]
    unnamed = _unnamed(DOC.read_text(encoding="utf-8"), files)
    assert unnamed == [], f"docs/ARCHITECTURE.md names nowhere: {unnamed}"


def test_the_module_check_catches_a_module_the_page_forgot() -> None:
    page = ("| `quant/` | the scheme (`scheme.py`) |\n"
            "| `serving/` | `faults`, a peer's faults |\n\n"
            "```\n `ops` in a fence\n```\n`ops` alone in a paragraph of its own\n")
    files = ["core/quant/scheme.py", "core/quant/ops.py", "core/serving/faults.py",
             "core/serving/gate.py", "core/serving/__init__.py"]
    assert _unnamed(page, files) == ["core/quant/ops.py", "core/serving/gate.py"]


def _core_names(core: Path) -> list[str]:
    """Every module's and package's own name inside `core` (its `__init__` aside)."""
    modules = [p.stem for p in core.rglob("*.py")
               if p.name != "__init__.py" and "__pycache__" not in p.parts]
    packages = [p.parent.name for p in core.rglob("*/__init__.py")]
    return modules + packages


def test_no_module_or_package_name_repeats_inside_core() -> None:
    repeated = [n for n, c in Counter(_core_names(ROOT / "core")).items() if c > 1]
    assert repeated == [], f"names used twice inside core/: {repeated}"


def test_the_name_check_catches_a_repeat(tmp_path: Path) -> None:
    for path in ("core/__init__.py", "core/wire/__init__.py", "core/serving/wire.py",
                 "core/remote/streams.py", "core/wire/streams.py", "core/remote/__init__.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    names = Counter(_core_names(tmp_path / "core"))
    assert sorted(n for n, c in names.items() if c > 1) == ["streams", "wire"]
