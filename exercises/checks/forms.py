"""Answer forms shared by the predict exercises: each checks the *shape* of an answer (not its
truth), says in plain words what was expected, and puts the answer in one canonical form
(`Part.form`, see `routerlab.exercises.checks.base`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import CheckFailure


def number(value: Any) -> float:
    """One number (compared with the exercise's tolerance when the part is numeric)."""
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool):
        raise CheckFailure("write one number (3 decimals or more)", got=repr(value), hint=1)
    return float(value)


def whole(value: Any) -> int:
    """A whole number >= 0."""
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 0:
        raise CheckFailure("write a whole number >= 0", got=repr(value), hint=1)
    return int(value)


def yes_no(value: Any) -> bool:
    """True or False, nothing else (not 0/1, not a string)."""
    if not isinstance(value, bool | np.bool_):
        raise CheckFailure("write True or False", got=repr(value), hint=1)
    return bool(value)


def floats(count: int) -> Callable[[Any], list[float]]:
    """A list of `count` numbers."""
    def form(value: Any) -> list[float]:
        if not isinstance(value, list | tuple) or len(value) != count or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            raise CheckFailure(f"write a list of {count} numbers (3 decimals or more)",
                               got=repr(value), hint=1)
        return [float(v) for v in value]

    return form


def ints(count: int) -> Callable[[Any], list[int]]:
    """A list of `count` whole numbers (negative ones allowed: q values)."""
    def form(value: Any) -> list[int]:
        if not isinstance(value, list | tuple) or len(value) != count or not all(
                isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value):
            raise CheckFailure(f"write a list of {count} whole numbers", got=repr(value), hint=1)
        return [int(v) for v in value]

    return form
