"""Mutation testing of an implement exercise's checks: a wrong line must not pass.

A check that passes its sealed solution proves little on its own: it may also pass a solution
with one comparison flipped. Here the sealed solution is mutated mechanically, one change per
copy, with the changes a slip of the hand makes:

- a comparison flipped (`<` ↔ `>=`, `==` ↔ `!=`, `in` ↔ `not in`, `is` ↔ `is not`);
- an integer off by one (both ways);
- `and` ↔ `or`;
- a `return VALUE` made `return None`;
- one statement of a function dropped (made `pass`);
- an if/else's (or a conditional expression's) branches swapped.

Each mutant is graded like a student's file; it is *killed* when it does not pass. The score is
killed / (mutants − declared equivalent). A mutant that computes the same function as the
solution (say, `x <= 1` ↔ `x < 1` over integers that are never 1) cannot be killed by any check;
its label may be declared in `exercise.toml`, with why:

    [[equivalent_mutant]]
    mutant = "line 14: `<=` → `>`"
    why = "..."

The mutants are bounded (`MUTANT_LIMIT` per exercise, every kind of change represented) and run
in one warm grading jail per exercise (`routerlab.exercises.engine.jail`; the sandbox where no jail
can run), inside the worker pool `teacher lint` already uses.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import os
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..catalog import Exercise, load_catalog, read_entry
from ..engine import judge
from ..engine.runner import Candidate, judge_reply, sandboxed
from ..errors import CatalogError
from .sealing import scratch_file

if TYPE_CHECKING:
    from ..engine.jail import Jail

MUTANT_LIMIT = 60
"""Mutants graded per exercise: every change of a 15-line solution and most of a 30-line one
(quant-2's `+ step - 1` is its 50th); in a warm jail 60 take 2 to 6 s."""
GOAL_EACH = 0.75
GOAL_ALL = 0.9
"""The mutation scores `teacher lint` asks of each implement exercise and of all of them."""

_FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_SYMBOL: dict[type[ast.cmpop], str] = {
    ast.Lt: "<", ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}


@dataclass(frozen=True)
class Mutant:
    """One mechanical change of the solution: its label (stable: where and what) and source."""

    kind: str
    label: str
    source: str


@dataclass
class MutationResult:
    """How an exercise's checks fared against the mutants of its sealed solution."""

    exercise: str
    killed: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    """Survivors declared equivalent in the catalog entry (left out of the score)."""
    problems: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        counted = len(self.killed) + len(self.survived)
        return len(self.killed) / counted if counted else 1.0


@dataclass(frozen=True)
class _Site:
    index: int
    """The node's position in `ast.walk` order (the same in a deep copy)."""
    kind: str
    label: str
    at: tuple[bool, int, int]
    """Outside any function (a module constant: graded after the functions' own lines), line,
    column: the order sites are taken in."""
    apply: Callable[[ast.AST, ast.AST], None]


def mutants(source: str, limit: int = MUTANT_LIMIT) -> list[Mutant]:
    """Up to `limit` distinct mutants of `source`, taken round-robin over the kinds of change
    (in source order within a kind), so that a long solution's many integers do not crowd out
    its few comparisons."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    by_kind: dict[str, list[_Site]] = {}
    for site in sorted(_sites(tree), key=lambda s: s.at):
        by_kind.setdefault(site.kind, []).append(site)
    chosen: list[Mutant] = []
    seen = {original}
    queues = [iter(sites) for sites in by_kind.values()]
    while queues and len(chosen) < limit:
        for queue in list(queues):
            found = next(queue, None)
            if found is None:
                queues.remove(queue)
                continue
            site = found
            mutated = copy.deepcopy(tree)
            site.apply(list(ast.walk(mutated))[site.index], mutated)
            text = ast.unparse(ast.fix_missing_locations(mutated))
            if text in seen:
                continue
            seen.add(text)
            chosen.append(Mutant(site.kind, site.label, text + "\n"))
            if len(chosen) == limit:
                break
    return chosen


def _sites(tree: ast.Module) -> Iterator[_Site]:
    inside = _function_nodes(tree)
    docstrings = {id(f.body[0]) for f in ast.walk(tree)
                  if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef |
                                ast.Module)
                  and f.body and isinstance(f.body[0], ast.Expr)
                  and isinstance(f.body[0].value, ast.Constant)}
    for index, node in enumerate(ast.walk(tree)):
        at = (id(node) not in inside, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        line = f"{at[1]}:{at[2]}"
        if isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                new = _FLIPPED.get(type(op))
                if new is not None:
                    yield _Site(index, "comparison",
                                f"line {line}: `{_SYMBOL[type(op)]}` → `{_SYMBOL[new]}`",
                                at, _set_op(position, new))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            for delta in (1, -1):
                yield _Site(index, "integer", f"line {line}: {node.value} → {node.value + delta}",
                            at, _add(delta))
        elif isinstance(node, ast.BoolOp):
            other = "or" if isinstance(node.op, ast.And) else "and"
            yield _Site(index, "and/or", f"line {line}: `{'and' if other == 'or' else 'or'}` → "
                                         f"`{other}`", at, _swap_bool)
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            yield _Site(index, "return None", f"line {line}: return None", at,
                        _return_none)
        elif isinstance(node, ast.If | ast.IfExp) and (
                not isinstance(node, ast.If) or node.orelse):
            yield _Site(index, "branches swapped", f"line {line}: if/else branches swapped",
                        at, _swap_branches)
        if id(node) in inside and id(node) not in docstrings and isinstance(node, ast.stmt) \
                and not isinstance(node, ast.Pass | ast.FunctionDef | ast.AsyncFunctionDef):
            yield _Site(index, "statement dropped", f"line {line}: statement dropped", at, _drop)


def _function_nodes(tree: ast.Module) -> set[int]:
    """The nodes inside a function's body (at any depth). Only their statements are dropped:
    dropping a module-level import or constant makes the file fail to load, which tells nothing
    about the checks."""
    found: set[int] = set()
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            found.update(id(n) for n in ast.walk(function) if n is not function)
    return found


def _set_op(at: int, new: type[ast.cmpop]) -> Callable[[ast.AST, ast.AST], None]:
    def apply(node: ast.AST, root: ast.AST) -> None:
        assert isinstance(node, ast.Compare)
        node.ops[at] = new()
    return apply


def _add(delta: int) -> Callable[[ast.AST, ast.AST], None]:
    def apply(node: ast.AST, root: ast.AST) -> None:
        assert isinstance(node, ast.Constant) and type(node.value) is int
        node.value = int(node.value) + delta
    return apply


def _swap_bool(node: ast.AST, root: ast.AST) -> None:
    assert isinstance(node, ast.BoolOp)
    node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()


def _return_none(node: ast.AST, root: ast.AST) -> None:
    assert isinstance(node, ast.Return)
    node.value = ast.Constant(None)


def _swap_branches(node: ast.AST, root: ast.AST) -> None:
    assert isinstance(node, ast.If | ast.IfExp)
    node.body, node.orelse = node.orelse, node.body


def _drop(node: ast.AST, root: ast.AST) -> None:
    """Put `pass` where the statement was (its block keeps its length and stays valid)."""
    for parent in ast.walk(root):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and any(s is node for s in block):
                block[[id(s) for s in block].index(id(node))] = ast.Pass()
                return


def declared_equivalent(exercise: Exercise) -> dict[str, str]:
    """The catalog entry's `[[equivalent_mutant]]` declarations: label → why."""
    try:
        meta: dict[str, Any] = tomllib.loads(read_entry(exercise.folder / "exercise.toml"))
        entries = meta.get("equivalent_mutant", [])
        return {str(e["mutant"]): str(e["why"]) for e in entries}
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError) as error:
        raise CatalogError(f"catalog/{exercise.id}: malformed equivalent_mutant ({error!r})"
                           ) from None


def mutation_test(exercise: Exercise, solution: str, limit: int = MUTANT_LIMIT,
                  timeout: float | None = None, jail: Jail | None = None) -> MutationResult:
    """Grade each mutant of `solution` against `exercise`'s checks, in forks of `jail` (else of
    one warm jail started for them)."""
    result = MutationResult(exercise.id)
    declared = declared_equivalent(exercise)
    expected = judge.expected_for(exercise)
    limit_s = timeout or exercise.timeout
    made = mutants(solution, limit)
    with _grader(exercise, jail) as grade:
        for mutant in made:
            passed = _passes(exercise, grade, mutant.source, limit_s, expected)
            if passed is None:
                result.problems.append(f"the mutant “{mutant.label}” could not be graded (the "
                                       "jail or sandbox failed twice): run lint again")
            elif not passed:
                result.killed.append(mutant.label)
                if mutant.label in declared:
                    result.problems.append(f"the mutant “{mutant.label}” is declared equivalent "
                                           f"but a check kills it: remove the declaration")
            elif mutant.label in declared:
                result.equivalent.append(mutant.label)
            else:
                result.survived.append(mutant.label)
    labels = {m.label for m in made}
    result.problems += [f"the declared equivalent mutant “{label}” is not among the mutants "
                        f"(the solution changed?)" for label in declared if label not in labels]
    return result


def _passes(exercise: Exercise, grade: Callable[[str, float], dict[str, Any]], source: str,
            limit: float, expected: judge.Expected) -> bool | None:
    """Whether the checks pass `source`. A run the machine cut short (a busy machine's time-out,
    a jail that did not start) is no verdict on the checks: it is run once more with twice the
    time; a mutant that times out twice loops (killed); None: it could not be run at all."""
    for attempt in (1, 2):
        reply = grade(source, limit * attempt)
        if reply.get("supervisor"):
            continue
        if reply.get("timed_out") and attempt == 1:
            continue
        return judge_reply(exercise, reply, limit * attempt, expected).passed
    return None


@contextlib.contextmanager
def _grader(exercise: Exercise, kept: Jail | None
            ) -> Iterator[Callable[[str, float], dict[str, Any]]]:
    """A function grading a source for `exercise`: forks of `kept`, or of one warm jail where a
    jail runs, else one sandbox per source."""
    from ..engine.jail import Jail, unavailable
    from ..engine.jail_image import build_image, graded_targets

    if kept is not None:
        yield lambda source, limit: kept.run(exercise, source, "mutant.py", limit)
        return
    if not os.environ.get("ROUTERLAB_NO_JAIL") and unavailable() is None:
        image = build_image(frozenset(graded_targets(load_catalog())))
        with Jail(image, [exercise.checks]) as jail:
            yield lambda source, limit: jail.run(exercise, source, "mutant.py", limit)
        return
    with tempfile.TemporaryDirectory(prefix=f"routerlab-mutants-{exercise.id}-") as scratch:
        def grade(source: str, limit: float) -> dict[str, Any]:
            path = scratch_file(Path(scratch) / "mutant.py", source)
            return sandboxed(exercise, Candidate(path, "mutant.py"), limit)
        yield grade
