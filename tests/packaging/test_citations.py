"""Shipped files cite Burn's source or RouterLab's own docs, never a document a learner lacks.

The team's working notes live outside the repository; a learner has only the clone. So no shipped
file (the package, notebooks, exercises with their sealed solutions, scenarios, docs, README) may
say "reference §N" or point at a path outside the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from routerlab.exercises.authoring.sealing import open_solution, open_wrong
from routerlab.exercises.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("core", "cli", "present", "teaching", "notebook", "exercises", "notebooks", "scenarios",
           "docs")
SUFFIXES = {".py", ".md", ".toml", ".ipynb", ".json", ".txt"}
FORBIDDEN = re.compile(
    r"reference §|\.\./shared|shared/reference|/work/|burn-router-model\.md|burn-claims-audit\.md"
)


def _shipped_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in SHIPPED:
        files += [p for p in sorted((ROOT / folder).rglob("*"))
                  if p.suffix in SUFFIXES and "__pycache__" not in p.parts]
    return files


def _offences(name: str, text: str) -> list[str]:
    return [f"{name}:{n}: {line.strip()[:120]}" for n, line in enumerate(text.splitlines(), 1)
            if FORBIDDEN.search(line)]


def test_the_scan_sees_every_kind_of_shipped_file() -> None:
    names = {p.relative_to(ROOT).parts[0] for p in _shipped_files()}
    assert names == {*SHIPPED, "README.md"}
    assert _offences("x.md", "see reference §9.3") and _offences("x.py", "# ../shared/notes")


def test_no_shipped_file_cites_the_reference_or_a_path_outside_the_repository() -> None:
    found = [o for p in _shipped_files()
             for o in _offences(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("exercise", [e for e in load_catalog() if e.sealed() is not None],
                         ids=lambda e: e.id)
def test_sealed_solutions_cite_nothing_a_learner_lacks(exercise) -> None:  # type: ignore[no-untyped-def]
    """A sealed worked solution ships encrypted: open it as `teacher lint` does and scan it."""
    text = open_solution(exercise)
    assert not _offences(f"{exercise.id} (sealed)", text)
    for wrong in open_wrong(exercise):
        assert not _offences(f"{exercise.id} ({wrong.name}, sealed)", wrong.source)
