"""The checks that grade each exercise, one module per topic (`registry`, `quant`, ...).

Each exercise's `exercise.toml` names its module; the module holds one `Suite` per exercise. The
checks import the core model and plug the student's code into it, so they are only imported in
the subprocess that runs the student's code, never by the CLI or the notebook process.
"""

from __future__ import annotations

import importlib
import threading

from ..catalog import Exercise
from ..errors import CatalogError
from .base import Suite

_IMPORTING = threading.Lock()
"""One checks module imported at a time: `teacher lint` looks suites up from a thread pool, and
two threads importing modules that share the core's circular imports (build-3's and build-4's
both reach core.fix.arms and core.fix.qtensor) deadlock in importlib."""


def suite_for(exercise: Exercise) -> Suite:
    """The suite that grades `exercise`, found in the module its catalog entry names."""
    with _IMPORTING:
        module = importlib.import_module(f"routerlab.exercises.checks.{exercise.checks}")
    for value in vars(module).values():
        if isinstance(value, Suite) and value.exercise_id == exercise.id:
            return value
    raise CatalogError(f"routerlab.exercises.checks.{exercise.checks} has no suite for "
                       f"{exercise.id}")
