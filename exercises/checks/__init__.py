"""The checks that grade each exercise, one module per topic (`registry`, `quant`, ...).

Each exercise's `exercise.toml` names its module; the module holds one `Suite` per exercise. The
checks import the core model and plug the student's code into it, so they are only imported in
the subprocess that runs the student's code, never by the CLI or the notebook process.
"""

from __future__ import annotations

import importlib

from ..catalog import Exercise
from ..errors import CatalogError
from .base import Suite


def suite_for(exercise: Exercise) -> Suite:
    """The suite that grades `exercise`, found in the module its catalog entry names."""
    module = importlib.import_module(f"routerlab.exercises.checks.{exercise.checks}")
    for value in vars(module).values():
        if isinstance(value, Suite) and value.exercise_id == exercise.id:
            return value
    raise CatalogError(f"routerlab.exercises.checks.{exercise.checks} has no suite for "
                       f"{exercise.id}")
