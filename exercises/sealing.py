"""Authoring a predict exercise: seal its worked solution so that no plain answer ships.

The author writes the solution file (the starter with every `...` replaced and the reasoning in
comments) anywhere outside the catalog and runs `routerlab teacher seal ID FILE`. The answers in
the file are read with `ast.literal_eval` (the file is never executed), compared with what the
model computes (`PredictSuite.oracle`), and only then are the digests and the encrypted solution
written to `catalog/ID/sealed.json`. The plain file can then be deleted: `teacher lint` re-derives
the key from the model whenever it needs to open the solution.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from routerlab.exercises.answers import canonical, seal, unlock_key
from routerlab.exercises.catalog import Exercise
from routerlab.exercises.checks import suite_for
from routerlab.exercises.checks.base import PredictSuite
from routerlab.exercises.errors import CatalogError


def seal_exercise(exercise: Exercise, solution_file: Path) -> Path:
    """Write `sealed.json` of a predict exercise from a solution file the model agrees with."""
    suite = suite_for(exercise)
    if not isinstance(suite, PredictSuite):
        raise CatalogError(f"{exercise.id} is not a predict exercise; its solution.py ships as is")
    text = solution_file.read_text(encoding="utf-8")
    written = literal_assignments(text)
    model = suite.oracle()
    wrong = []
    for part in suite.parts:
        if part.name not in written:
            raise CatalogError(f"{solution_file} has no `{part.name} = ...` line")
        mine = canonical(part.form(written[part.name]), part.places)
        theirs = canonical(part.form(model[part.name]), part.places)
        if mine != theirs:
            wrong.append(f"{part.name}: file says {mine}, the model computes {theirs}")
    if wrong:
        raise CatalogError("the solution disagrees with the model: " + "; ".join(wrong))
    key = unlock_key(exercise.id, suite.canonical_answers(model))
    target = Path(str(exercise.folder)) / "sealed.json"
    target.write_text(json.dumps({"digests": suite.digests(model), "solution": seal(text, key)},
                                 indent=2) + "\n", encoding="utf-8")
    return target


def literal_assignments(source: str) -> dict[str, Any]:
    """Top-level `NAME = <literal>` lines of a Python file, without running it."""
    values = {}
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return values
