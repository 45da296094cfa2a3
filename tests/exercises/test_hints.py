"""Hint levels as shipped: three per exercise, and every failing check points at one that exists
and explains (docs/exercises.md, "Progress, attempts and hints")."""

from __future__ import annotations

import ast
import importlib
import inspect

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for

NEAR_SOLUTION = 3


def test_every_exercise_has_exactly_three_non_empty_hint_levels() -> None:
    for exercise in load_catalog():
        assert len(exercise.hints) == 3, f"{exercise.id} has {len(exercise.hints)} hint levels"
        assert all(h.strip() for h in exercise.hints), f"{exercise.id} has an empty hint level"


def test_every_check_points_at_an_explaining_hint_level_of_its_exercise() -> None:
    # A failing check names the level that explains its part: the nudge or the concept, never
    # a level that does not exist, and never the near solution (which would hand out the code).
    for exercise in load_catalog():
        for check in suite_for(exercise).checks:
            assert 1 <= check.hint <= len(exercise.hints), (exercise.id, check.name, check.hint)
            assert check.hint < NEAR_SOLUTION, (exercise.id, check.name, check.hint)


def test_every_hint_a_check_module_raises_is_a_level_that_exists() -> None:
    # CheckFailure(..., hint=N) is raised at run time; read every literal `hint=` in the modules.
    # A module may raise none itself: the shared answer forms (`forms`) raise for it.
    modules = {e.checks for e in load_catalog()}
    found = 0
    for name in sorted(modules) + ["base", "forms"]:
        module = importlib.import_module(f"routerlab.exercises.checks.{name}")
        tree = ast.parse(inspect.getsource(module))
        levels = [(kw.value.value, getattr(node, "lineno", 0))
                  for node in ast.walk(tree) if isinstance(node, ast.Call)
                  for kw in node.keywords
                  if kw.arg == "hint" and isinstance(kw.value, ast.Constant)]
        found += len(levels)
        bad = [(level, line) for level, line in levels
               if not isinstance(level, int) or not 1 <= level < NEAR_SOLUTION]
        assert not bad, f"checks/{name}.py: hint levels out of range at {bad}"
    assert found > 20, "hardly any hint= found: the test reads the wrong source"


def test_the_nudge_and_the_concept_never_quote_the_worked_solution() -> None:
    for exercise in load_catalog():
        solution = open_solution(exercise)
        lines = [line.strip() for line in solution.splitlines()
                 if len(line.strip()) > 24
                 and not line.strip().startswith(("#", '"""', "def ", "from ", "import "))]
        for level, text in enumerate(exercise.hints[:2], start=1):
            quoted = [line for line in lines if line in text]
            assert not quoted, f"{exercise.id} hint {level} quotes the solution: {quoted[:1]}"
