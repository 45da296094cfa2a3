"""Variants: the same exercise with other numbers, one per student, so answers cannot be shared.

An exercise declares its parameters as data, in its `exercise.toml`:

    [variant.params]
    clones = { range = [1, 4], default = 1 }          # whole numbers 1 to 4
    device = { choices = ["cpu:0", "cpu:1"], default = "cpu:0" }

or says why it stays the same for everyone:

    [variant]
    fixed = "its point is Burn's one panic text"

`default` is the catalog's own variant: what self-study shows, what `sealed.json` was sealed
with. A class variant is picked from a seed that only the teacher can make,
`HMAC-SHA256(course secret, student id, exercise id)` (`seed`), one parameter at a time
(`VariantSpec.pick`), so the same student, exercise and secret always give the same variant, and
nothing in a course bundle lets anyone compute another's. The statement and the starter are
templates: `{{clones}}` is replaced by the variant's value, `{{move.0}}` by the first item of a
list value (`render`).

This module knows nothing of the catalog or the checks: it is data and arithmetic.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Params = dict[str, Any]
"""One variant: each parameter's value (plain data: ints, strings, bools, lists of them)."""

_SEED_SALT = b"routerlab-variant-v1"
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.(\d+))?\s*\}\}")
MAX_CHOICES = 10_000
"""The most values one parameter may take (a range wider than this is a typo)."""


class VariantError(ValueError):
    """A malformed `[variant]` table, or a template that names an undeclared parameter."""


@dataclass(frozen=True)
class Param:
    """One parameter: the values it may take, in a fixed order, and the catalog's own value."""

    name: str
    choices: tuple[Any, ...]
    default: Any


@dataclass(frozen=True)
class VariantSpec:
    """An exercise's parameters (none: it is the same for everyone, and `fixed` says why)."""

    params: tuple[Param, ...] = ()
    fixed: str = ""

    @property
    def varies(self) -> bool:
        return any(len(p.choices) > 1 for p in self.params)

    def defaults(self) -> Params:
        return {p.name: p.default for p in self.params}

    def pick(self, seed: bytes) -> Params:
        """The variant a seed gives: each parameter indexed by its own HMAC of the seed, so
        adding a parameter later leaves the others' values as they were."""
        out: Params = {}
        for param in self.params:
            draw = hmac.new(seed, param.name.encode(), hashlib.sha256).digest()
            out[param.name] = param.choices[int.from_bytes(draw[:8], "big") % len(param.choices)]
        return out

    def size(self) -> int:
        """How many variants there are."""
        total = 1
        for param in self.params:
            total *= len(param.choices)
        return total

    def every(self) -> Iterator[Params]:
        """Every variant, in a fixed order (for measuring how often two agree)."""
        names = [p.name for p in self.params]
        for values in itertools.product(*(p.choices for p in self.params)):
            yield dict(zip(names, values, strict=True))


def parse_spec(table: Any, where: str) -> VariantSpec:
    """The `[variant]` table of an exercise.toml (absent: no parameters, nothing fixed said)."""
    if table is None:
        return VariantSpec()
    if not isinstance(table, Mapping):
        raise VariantError(f"{where}: [variant] must be a table")
    fixed = table.get("fixed", "")
    raw = table.get("params", {})
    if not isinstance(fixed, str) or not isinstance(raw, Mapping):
        raise VariantError(f"{where}: [variant] has `fixed = \"why\"` or a `params` table")
    params = tuple(_param(str(name), value, where) for name, value in raw.items())
    if params and fixed:
        raise VariantError(f"{where}: [variant] is either fixed or has parameters, not both")
    return VariantSpec(params, fixed)


def _param(name: str, value: Any, where: str) -> Param:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not isinstance(value, Mapping):
        raise VariantError(f"{where}: variant parameter {name!r} must be a name = {{ ... }} table")
    if "range" in value:
        bounds = value["range"]
        if not (isinstance(bounds, list) and len(bounds) == 2
                and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                and bounds[0] <= bounds[1] and bounds[1] - bounds[0] < MAX_CHOICES):
            raise VariantError(f"{where}: {name}.range must be [low, high], whole numbers")
        step = value.get("step", 1)
        if not isinstance(step, int) or step < 1:
            raise VariantError(f"{where}: {name}.step must be a whole number above 0")
        choices: tuple[Any, ...] = tuple(range(bounds[0], bounds[1] + 1, step))
    elif "choices" in value:
        choices = tuple(value["choices"]) if isinstance(value["choices"], list) else ()
        if not choices or len(choices) > MAX_CHOICES:
            raise VariantError(f"{where}: {name}.choices must be a non-empty list")
    else:
        raise VariantError(f"{where}: {name} needs `range = [low, high]` or `choices = [...]`")
    default = value.get("default", choices[0])
    if default not in choices:
        raise VariantError(f"{where}: {name}.default {default!r} is not one of its values")
    return Param(name, choices, default)


def seed(secret: bytes, student_id: str, exercise_id: str) -> bytes:
    """The seed of one student's variant of one exercise: only the secret's holder can make it."""
    message = b"\0".join([_SEED_SALT, student_id.encode(), exercise_id.encode()])
    return hmac.new(secret, message, hashlib.sha256).digest()


def render(template: str, params: Mapping[str, Any]) -> str:
    """`template` with each `{{name}}` replaced by the variant's value; an undeclared name is an
    error (a statement must never show a placeholder to a student)."""

    def value(match: re.Match[str]) -> str:
        name, index = match.group(1), match.group(2)
        if name not in params:
            raise VariantError(f"the template names {{{{{name}}}}}, which is not a parameter")
        if index is None:
            return show(params[name])
        if not isinstance(params[name], list) or int(index) >= len(params[name]):
            raise VariantError(f"the template names {{{{{name}.{index}}}}}, which {name} lacks")
        return show(params[name][int(index)])

    return _PLACEHOLDER.sub(value, template)


def placeholders(template: str) -> set[str]:
    """The parameter names a template uses."""
    return {name for name, _index in _PLACEHOLDER.findall(template)}


def show(value: Any) -> str:
    """A parameter's value as a statement shows it (Python's own spelling: `[1, 2]`, `'f32'`
    inside code is written by the template itself)."""
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, str):
        return value
    return json.dumps(value)


def params_key(params: Mapping[str, Any] | None) -> str:
    """A variant as one canonical string (a cache key; "" for the catalog's own variant)."""
    return "" if not params else json.dumps(dict(params), sort_keys=True, separators=(",", ":"))


def from_key(key: str) -> Params:
    return dict(json.loads(key)) if key else {}
