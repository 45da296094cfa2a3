"""No dead functions in the package: vulture finds every function, method, class and property
that nothing names, reading the package, its tests, benchmarks, the notebooks' code cells and the
exercises' starters (a name used by any of them is alive). What Python or a library calls by
name, and Burn's API mirrors, are listed with their reason in `dead_code_whitelist.txt`; an entry
nothing needs any more is an error too, so the list stays small and true."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from vulture import Vulture

ROOT = Path(__file__).resolve().parents[2]
WHITELIST = Path(__file__).with_name("dead_code_whitelist.txt")
KINDS = frozenset(("function", "method", "class", "property"))
"""What is reported: a definition nothing calls. Unused variables and attributes are left out:
an exercise's answers and a dataclass's fields are read by name from outside the code."""
SKIP = frozenset((".venv", "build", "dist", "routerlab.egg-info", "__pycache__", ".git"))
NOT_THE_PACKAGE = ("tests/", "benchmarks/", "exercises/catalog/")
"""Where a definition may go unused: test helpers, benchmark scripts and learners' starters are
read for the names they use, not reported."""


def whitelist(path: Path = WHITELIST) -> dict[str, str]:
    """Each entry's name (or `@decorator` glob) and its reason; a line without a reason is an
    error, so every entry says why it stays."""
    entries = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, why = line.partition("  ")
        assert why.strip(), f"{path.name}: {name!r} has no reason"
        entries[name.strip()] = why.strip()
    return entries


def notebook_cells(root: Path) -> str:
    """Every notebook's code cells as one module of functions (their names are uses too)."""
    cells: list[str] = []
    for notebook in sorted(root.glob("notebooks/*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and source.strip():
                body = "\n".join("    " + line for line in source.splitlines()
                                 if not line.lstrip().startswith(("%", "!")))
                cells.append(f"def cell_{len(cells)}():\n{body}\n    pass\n")
    return "\n".join(cells)


def dead_code(root: Path, allowed: Iterable[str], scratch: Path) -> list[str]:
    """vulture's report of the package's unused definitions under `root`, `allowed` names and
    decorators ignored: `path:line: unused kind 'name'`, sorted."""
    return sorted(f"{where}:{line}: unused {kind} {name!r}"
                  for where, line, kind, name in unused(root, allowed, scratch))


def unused(root: Path, allowed: Iterable[str], scratch: Path) -> list[tuple[str, int, str, str]]:
    """The package's unused definitions under `root` as (path, line, kind, name)."""
    allowed = list(allowed)
    vulture = Vulture(ignore_names=[n for n in allowed if not n.startswith("@")],
                      ignore_decorators=[n for n in allowed if n.startswith("@")])
    sources = [p for p in root.rglob("*.py") if not SKIP & set(p.relative_to(root).parts)]
    cells = scratch / "notebook_cells.py"
    cells.write_text(notebook_cells(root), encoding="utf-8")
    vulture.scavenge([str(p) for p in sources] + [str(cells)])
    found = []
    for item in vulture.get_unused_code(min_confidence=60):
        path = Path(item.filename).resolve()
        if item.typ not in KINDS or not path.is_relative_to(root.resolve()):
            continue
        where = path.relative_to(root.resolve()).as_posix()
        if not where.startswith(NOT_THE_PACKAGE):
            found.append((where, item.first_lineno, item.typ, item.name))
    return found


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, int, str, str]]:
    """The package's unused definitions with nothing whitelisted (one scan for the module)."""
    return unused(ROOT, [], tmp_path_factory.mktemp("cells"))


def test_the_package_has_no_dead_code(tmp_path: Path) -> None:
    assert dead_code(ROOT, whitelist(), tmp_path) == []


def test_every_whitelist_entry_is_still_needed(raw: list[tuple[str, int, str, str]]) -> None:
    """Each name is one vulture reports without the list, and what the names leave is what the
    decorators spare (else an entry is stale)."""
    entries = whitelist()
    names = {n for n in entries if not n.startswith("@")}
    assert sorted(names - {name for *_, name in raw}) == []
    decorators = [n for n in entries if n.startswith("@")]
    assert not decorators or [f for f in raw if f[3] not in names]


def test_a_planted_dead_function_is_found(tmp_path: Path) -> None:
    """The check fails on a function nothing calls, and is satisfied by one a whitelist names."""
    package = tmp_path / "tree"
    (package / "tests").mkdir(parents=True)
    (package / "lib.py").write_text(
        "def used() -> int:\n    return 1\n\n\n"
        "def planted() -> int:\n    return 2\n\n\n"
        "def helper_only_tests_use() -> int:\n    return 3\n")
    (package / "main.py").write_text("from lib import used\n\nprint(used())\n")
    (package / "tests" / "test_lib.py").write_text(
        "from lib import helper_only_tests_use\n\nhelper_only_tests_use()\n")
    assert dead_code(package, [], tmp_path) == ["lib.py:5: unused function 'planted'"]
    assert dead_code(package, ["planted"], tmp_path) == []
