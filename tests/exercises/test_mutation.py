"""Mutation testing of the implement checks (issue 39, item 3): a wrong line cannot pass."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from routerlab.exercises.authoring.lint import lint_exercise, mutation_score
from routerlab.exercises.authoring.mutation import (
    GOAL_EACH,
    declared_equivalent,
    mutants,
    mutation_test,
)
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog

SOURCE = '''
LIMIT = 4


def leaves(kind, queued):
    """Why the batch leaves."""
    if kind == "answer" and queued >= 0:
        return "answer"
    else:
        queued += 1
    return "count" if queued >= LIMIT else None
'''


def _labels() -> dict[str, str]:
    return {m.label: m.source for m in mutants(SOURCE, limit=100)}


def test_every_kind_of_change_is_made_once_per_site() -> None:
    made = mutants(SOURCE, limit=100)
    kinds = {m.kind for m in made}
    assert kinds == {"comparison", "integer", "and/or", "return None", "statement dropped",
                     "branches swapped"}
    labels = _labels()
    assert "if kind != 'answer'" in labels["line 7:7: `==` → `!=`"]
    assert "LIMIT = 5" in labels["line 2:8: 4 → 5"]
    assert "queued += 0" in labels["line 10:18: 1 → 0"]
    assert "kind == 'answer' or queued >= 0" in labels["line 7:7: `and` → `or`"]
    swapped = ast.parse(labels["line 7:4: if/else branches swapped"]).body[1]
    assert isinstance(swapped, ast.FunctionDef)
    branch = swapped.body[1]
    assert isinstance(branch, ast.If) and isinstance(branch.body[0], ast.AugAssign)
    assert "None if queued >= LIMIT else 'count'" in labels["line 11:11: if/else branches swapped"]
    assert "return None\n" in labels["line 8:8: return None"]
    # the docstring is never dropped, a module constant never (the file would not load)
    dropped = [m for m in made if m.kind == "statement dropped"]
    assert {m.label for m in dropped} == {"line 7:4: statement dropped",
                                          "line 8:8: statement dropped",
                                          "line 10:8: statement dropped",
                                          "line 11:4: statement dropped"}
    assert all(m.source != ast.unparse(ast.parse(SOURCE)) + "\n" for m in made)


def test_mutants_are_bounded_and_every_kind_comes_first() -> None:
    first = mutants(SOURCE, limit=6)
    assert len(first) == 6
    assert len({m.kind for m in first}) == 6  # round-robin: no kind crowds out another
    assert [m.label for m in mutants(SOURCE, limit=6)] == [m.label for m in first]


def test_a_check_that_misses_one_dropped_bit_is_found(tmp_path: Path) -> None:
    """quant-2's known gap: `+ step - 1` → `- 2` passed every check before its hidden case."""
    exercise = load_catalog().get("quant-2")
    survivors = mutation_test(exercise, open_solution(exercise), limit=60)
    assert "line 31:51: 1 → 2" in survivors.killed
    assert not survivors.survived and not survivors.problems
    assert set(survivors.equivalent) == set(declared_equivalent(exercise))


def test_lint_reports_a_weak_check(tmp_path: Path) -> None:
    """registry-3's checks against a solution with a line they cannot see: an extra function
    that no check calls makes its mutants survive, and lint says so, naming them."""
    exercise = load_catalog().get("registry-3")
    result = mutation_test(exercise, open_solution(exercise))
    assert result.score == 1.0 and result.killed
    padded = open_solution(exercise) + "\n\ndef unused(n: int) -> int:\n    return n + 1\n"
    weak = mutation_test(exercise, padded)
    assert weak.score < GOAL_EACH
    assert "line 11:15: 1 → 2" in weak.survived
    linted = lint_exercise(exercise, tmp_path, mutants=12)
    assert linted.ok and linted.mutation is not None and linted.mutation.score == 1.0
    assert mutation_score([linted]) == 1.0


def test_a_declared_equivalent_mutant_that_a_check_kills_is_a_problem(tmp_path: Path) -> None:
    exercise = load_catalog().get("registry-3")
    folder = tmp_path / "registry-3"
    folder.mkdir()
    for entry in exercise.folder.iterdir():
        if entry.is_file():
            (folder / entry.name).write_bytes(entry.read_bytes())
    with (folder / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write('\n[[equivalent_mutant]]\nmutant = "line 7:4: return None"\nwhy = "it is not"\n'
                   '\n[[equivalent_mutant]]\nmutant = "line 99:0: gone"\nwhy = "stale"\n')
    copy = replace(exercise, folder=folder)
    result = mutation_test(copy, open_solution(exercise))
    assert any("“line 7:4: return None” is declared equivalent but a check kills it" in p
               for p in result.problems)
    assert any("“line 99:0: gone” is not among the mutants" in p for p in result.problems)


def test_teacher_lint_reports_each_mutation_score() -> None:
    import json

    from typer.testing import CliRunner

    from routerlab.cli.app import app

    done = CliRunner().invoke(app, ["teacher", "lint", "registry-3", "flow-1", "--variants", "0",
                                    "--json"], env={"NO_COLOR": "1"})
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    scores = {e["id"]: e["mutation_score"] for e in report["exercises"]}
    assert scores == {"registry-3": 1.0, "flow-1": None}  # a predict exercise has no mutants
    assert report["mutation_score"] == 1.0
