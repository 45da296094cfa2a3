"""The exercise catalog: what each exercise is, read from the package data under `catalog/`.

Each exercise is a folder `catalog/<id>/` holding `exercise.toml` (title, concept, kind, points,
hints, which check module grades it, its numeric tolerance, the model functions a submission must
not call), `statement.md`, `starter.py`, `sealed.json` (digests of the right answers or of the
model's results on every check, and the worked solution encrypted under a key only a passing
submission gives, so that no answer and no solution ships in plain text, and, encrypted under the
same key, the wrong submissions `teacher lint` runs, each naming the hidden checks that must
reject it).
`catalog/index.toml` fixes the order. The data is read with `importlib.resources`, so the same
code serves a source tree, an editable install and a wheel.

A teacher's course folder (`teacher seal --catalog DIR`) and a class's course bundle
(`teacher release`, `routerlab.exercises.authoring.bundle`) have the same layout and are read by
`load_catalog(DIR)`; each exercise remembers the folder it came from (`Exercise.catalog`).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from ..core.base.safe_io import parse_json, read_text
from .errors import CatalogError, UnknownExerciseError
from .variants.spec import (
    Params,
    VariantError,
    VariantSpec,
    from_key,
    params_key,
    parse_spec,
    render,
)

HINT_LEVELS = ("nudge", "concept", "near solution")
"""What each hint level is for, in the order a student gets them."""


class Kind(Enum):
    """`implement`: write a function that the checks plug into the router model.
    `predict`: say what the model will do (a registry state, a scale) before running it.
    `experiment`: change a parameter, run, find the rule, and answer what no single run shows
    (a trend, a crossing point). Graded like `predict`: answers given as `NAME = value`."""

    IMPLEMENT = "implement"
    PREDICT = "predict"
    EXPERIMENT = "experiment"


@dataclass(frozen=True)
class Sealed:
    """An exercise's secrets in the form that can ship: a digest per answer part (predict) or per
    check's model results (implement), and the worked solution encrypted with a key that only the
    right answers, or a passing submission's results, give."""

    digests: dict[str, str]
    solution: str
    wrong: str = ""
    """The wrong submissions (a JSON list, sealed like the solution)."""


@dataclass(frozen=True)
class Tolerance:
    """How close a float must be to the model's: |got - want| <= max(rel * |want|, abs)."""

    rel: float = 1e-9
    abs: float = 0.0

    def widened(self, factor: float) -> Tolerance:
        return Tolerance(self.rel * factor, self.abs * factor)


@dataclass(frozen=True)
class WrongSubmission:
    """A shipped wrong answer: `rejects` names the hidden checks that must fail on it."""

    name: str
    rejects: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class Exercise:
    """One exercise as the catalog describes it."""

    id: str
    number: int
    title: str
    concept: str
    kind: Kind
    points: int
    checks: str
    """The module under `routerlab.exercises.checks` whose suite grades this exercise."""
    timeout: float
    reference: str
    """Where the taught behaviour is specified (a section of the Burn router model)."""
    hints: tuple[str, ...]
    folder: Traversable
    tolerance: Tolerance = Tolerance()
    delegation: tuple[str, ...] = ()
    """`module:Qual.name` of the model functions a submission must not call (its own answer)."""
    partial_credit: bool = False
    """Award points per passing hidden check (once the visible ones pass) instead of all or none."""
    notebook: str = ""
    """The guided notebook (its stem, e.g. "02-router-flow") this exercise is a checkpoint of;
    empty for an exercise met only in the terminal."""
    catalog: str = ""
    """The catalog folder it was read from; empty for the installed catalog."""
    hint_templates: tuple[str, ...] = ()
    """The hints as written (`hints` is them with this copy's variant's values in)."""
    variant: VariantSpec = VariantSpec()
    """Its parameters (`[variant]` in exercise.toml, `routerlab.exercises.variants`)."""
    params: str = ""
    """The variant this copy shows and is graded on (`variants.params_key`); empty for the
    catalog's own variant (the parameters' defaults), which is what self-study shows."""

    def variant_params(self) -> Params:
        """This copy's parameters: its variant's, or the catalog's own."""
        return from_key(self.params) if self.params else self.variant.defaults()

    def with_params(self, params: Params | None) -> Exercise:
        """This exercise as one variant shows it (None or the defaults: the catalog's own)."""
        key = "" if not params or params == self.variant.defaults() else params_key(params)
        if key == self.params:
            return self
        shown = replace(self, params=key)
        return replace(shown, hints=tuple(shown._render(h) for h in self.hint_templates))

    @property
    def file_name(self) -> str:
        """The student's file in the workspace, keyed by id (never by position, so inserting an
        exercise in the catalog renames nothing)."""
        return f"{self.id.replace('-', '_')}.py"

    @property
    def legacy_file_name(self) -> str:
        """The name RouterLab before layout 2 gave the file: numbered by catalog position."""
        return f"{self.number:02d}_{self.id.replace('-', '_')}.py"

    def statement(self) -> str:
        """What the student reads, with this copy's variant's values in it."""
        return self._render(read_entry(self.folder / "statement.md")).strip()

    def starter(self) -> str:
        """The file a student starts from: the statement as its docstring, then the TODO code."""
        body = self._render(read_entry(self.folder / "starter.py"))
        return f'"""{self.id}: {self.title}\n\n{self.statement()}\n"""\n\n{body}'

    def _render(self, template: str) -> str:
        try:
            return render(template, self.variant_params())
        except VariantError as error:
            raise CatalogError(f"{self.id}: {error}") from None

    def sealed(self) -> Sealed | None:
        """The sealed digests and solution (None before `teacher seal` ran)."""
        path = self.folder / "sealed.json"
        if not path.is_file():
            return None
        data = parse_json(read_entry(path), f"catalog/{self.id}/sealed.json", CatalogError)
        if not isinstance(data, dict) or not isinstance(data.get("digests"), dict) or \
                not isinstance(data.get("solution"), str):
            raise CatalogError(f"catalog/{self.id}/sealed.json is not a seal (an object with "
                               "digests and a solution): run `routerlab teacher seal` again")
        return Sealed(digests=dict(data["digests"]), solution=data["solution"],
                      wrong=str(data.get("wrong", "")))


class Catalog:
    """The ordered exercises, looked up by id."""

    def __init__(self, exercises: list[Exercise]) -> None:
        self.exercises = exercises
        self._by_id = {e.id: e for e in exercises}

    def __iter__(self) -> Iterator[Exercise]:
        return iter(self.exercises)

    def __len__(self) -> int:
        return len(self.exercises)

    def get(self, exercise_id: str) -> Exercise:
        """The exercise, or an error that names the closest ids (a typo is the usual cause)."""
        try:
            return self._by_id[exercise_id.strip().lower()]
        except KeyError:
            close = difflib.get_close_matches(exercise_id, list(self._by_id), n=3)
            also = f"; did you mean {', '.join(close)}?" if close else ""
            raise UnknownExerciseError(
                f"no exercise {exercise_id!r}{also} (`routerlab exercises list` shows them all)"
            ) from None

    def with_params(self, variants: dict[str, Params]) -> Catalog:
        """The same exercises, each as its variant in `variants` shows it (others unchanged)."""
        return Catalog([e.with_params(variants.get(e.id)) for e in self.exercises])

    @property
    def total_points(self) -> int:
        return sum(e.points for e in self.exercises)


def read_entry(entry: Traversable) -> str:
    """A catalog file's text. A folder's (a teacher's course, a class bundle) is read as a
    user's file: a FIFO, a device or a file over the size cap is refused, not waited on."""
    if isinstance(entry, Path):
        return read_text(entry, what="catalog file", error=CatalogError)
    return entry.read_text(encoding="utf-8")


def catalog_root() -> Traversable:
    return files("routerlab.exercises") / "catalog"


@cache
def load_catalog(folder: str | None = None) -> Catalog:
    """Read `index.toml` and every exercise it lists, in that order: of the installed catalog,
    or of the catalog folder `folder` (a course folder or a bundle)."""
    root: Traversable = catalog_root() if not folder else Path(folder)
    try:
        index = tomllib.loads(read_entry(root / "index.toml"))
        order = [str(i) for i in index["order"]]
    except (OSError, KeyError, TypeError, ValueError, RecursionError,
            tomllib.TOMLDecodeError) as error:
        raise CatalogError(f"{folder or 'the installed catalog'} has no readable index.toml "
                           f"({error!r})") from None
    return Catalog([_load_exercise(root / ex_id, ex_id, n, folder or "")
                    for n, ex_id in enumerate(order, 1)])


def _load_exercise(folder: Traversable, ex_id: str, number: int, catalog: str = "") -> Exercise:
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", ex_id):
        raise CatalogError(f"index.toml lists {ex_id!r}, which is not an exercise id")
    try:
        meta: dict[str, Any] = tomllib.loads(read_entry(folder / "exercise.toml"))
        if meta["id"] != ex_id:
            raise CatalogError(f"catalog/{ex_id}/exercise.toml says id = {meta['id']!r}")
        exercise = Exercise(
            id=ex_id, number=number, title=str(meta["title"]), concept=str(meta["concept"]),
            kind=Kind(meta["kind"]), points=int(meta["points"]), checks=str(meta["checks"]),
            timeout=float(meta.get("timeout", 10)), reference=str(meta.get("reference", "")),
            hints=tuple(str(h) for h in meta.get("hints", ())), folder=folder,
            tolerance=Tolerance(float(meta.get("tolerance", {}).get("rel", 1e-9)),
                                float(meta.get("tolerance", {}).get("abs", 0.0))),
            delegation=tuple(str(d) for d in meta.get("delegation", ())),
            partial_credit=bool(meta.get("partial_credit", False)),
            notebook=str(meta.get("notebook", "")), catalog=catalog,
            variant=parse_spec(meta.get("variant"), f"catalog/{ex_id}/exercise.toml"),
        )
        templates = exercise.hints
        return replace(exercise, hint_templates=templates,
                       hints=tuple(exercise._render(h) for h in templates))
    except (OSError, KeyError, TypeError, ValueError, RecursionError,
            tomllib.TOMLDecodeError) as error:
        raise CatalogError(f"catalog/{ex_id} is malformed: {error!r}") from None
