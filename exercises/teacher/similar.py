"""Copies seen: pairs of students whose work agrees beyond what honest work explains.

`teacher recheck` writes `<OUT stem>.similar.csv` beside the grades CSV, with the columns
`student_a,student_b,exercise,kind,score,shared,beyond_chance`:

- first, one row per pair of students (`exercise` is `*`, `kind` is `pair`), sorted by how many
  exercises they share *beyond chance* (`shared` minus what an average pair of the class
  shares): the pairs to look at first are at the top;
- behind them, one row per flagged exercise of those pairs, its `kind` and `score`:
  - `code`: an implement file whose rare fingerprints (`teacher.fingerprints`: identifiers
    renamed, functions in any order) are mostly the other's. A fingerprint weighs
    `1 / (students holding it - 1)`, and one held by more than `COMMON` students weighs
    nothing: the natural solution, the starter and the idioms a class shares are no evidence;
    only what two files share and few others have is. `score` = the weight shared over the
    smaller file's count of rare fingerprints (at least `MIN_RARE`);
  - `answers`: a predict answer that is wrong for the student's own variant and is exactly
    another student's variant's right answer (cross-variant copying), weighed by how many
    students have that variant;
  - `wrong-answers`: the same wrong answers, all parts, held by at most `COMMON` students
    (a common mistake is shared by many and weighs nothing; two students of one variant
    sharing a slip weigh half).

A row is kept from a score of `ROW_MIN`; a pair's `shared` is the sum of its rows' scores (a
full copy of an exercise counts 1), and a pair sharing `FLAG` (3) exercises or more beyond
chance is one to look at (`Pairs.flagged`).

An answer that is right for the student's own variant is never evidence (nor, so, the right
answer of a fixed exercise); an untouched starter is never paired. Pairs are made from the
evidence each result carries (`ExerciseResult.prints`, `.answers`: the bytes read once at the
intake), never by reading a path again, and only inside a fingerprint's (or an answer's)
bucket, so the work grows with the class, not with its square. Precision and recall on a
generated class are measured by `benchmarks/similar_class.py` (docs/exercises.md).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import Catalog, Exercise, Kind
from .classroom import ExerciseResult, StudentResult
from .fingerprints import values_digest

COLUMNS = ("student_a", "student_b", "exercise", "kind", "score", "shared", "beyond_chance")
ROW_MIN = 0.2
"""The least score an exercise's row is kept with (below: evidence too thin to show)."""
FLAG = 3.0
"""Exercises shared beyond chance from which a pair is one to look at (`flagged`)."""
COMMON = 6
"""Evidence held by more students than this weighs nothing (a shared form, a common mistake)."""
MIN_RARE = 4
"""The least count of rare fingerprints a score divides by: two files that each have one rare
fingerprint, and share it, are not a copy."""

Truth = Callable[[Exercise], str]
"""A variant's right answers as `fingerprints.values_digest` gives them ("" when unknown)."""


@dataclass(frozen=True)
class Pair:
    """One exercise two students share beyond honest work."""

    exercise: str
    student_a: str
    student_b: str
    kind: str
    score: float


@dataclass(frozen=True)
class PairSummary:
    student_a: str
    student_b: str
    exercises: tuple[str, ...]
    shared: float
    """The exercises the two share, each counted by its score (a full copy counts 1)."""
    beyond_chance: float


@dataclass
class Pairs:
    """The flagged exercises, and per pair of students how many beyond chance."""

    rows: list[Pair] = field(default_factory=list)
    summary: list[PairSummary] = field(default_factory=list)

    def __len__(self) -> int:
        """How many pairs of students share at least one exercise's evidence."""
        return len(self.summary)

    def flagged(self, at: float = FLAG) -> list[PairSummary]:
        """The pairs sharing `at` exercises or more beyond chance: the ones to look at."""
        return [s for s in self.summary if s.beyond_chance >= at]


def similar_path(csv_path: Path) -> Path:
    """`grades.csv` -> `grades.similar.csv`."""
    return csv_path.with_name(f"{csv_path.stem}.similar.csv")


def find_pairs(results: Iterable[StudentResult], catalog: Catalog,
               variants: Mapping[str, Mapping[str, Any]] | None = None,
               truth: Truth | None = None) -> Pairs:
    """The pairs (see the module docstring). `variants[student][exercise]`: the parameters each
    student was graded on (absent: the catalog's own). `truth`: a variant's right answers'
    digest (default: the model's, `model_truth`)."""
    variants = variants or {}
    truth = truth or model_truth()
    graded = sorted((r for r in results if not r.error), key=lambda r: r.student_id)
    rows: list[Pair] = []
    chance = 0.0
    for exercise in catalog:
        entries = {r.student_id: e for r in graded for e in r.exercises
                   if e.id == exercise.id and e.file and not e.starter}
        if exercise.kind is Kind.IMPLEMENT:
            found = _code_pairs(exercise.id, entries)
        else:
            params = {sid: dict(variants.get(sid, {}).get(exercise.id) or {})
                      for sid in entries}
            found = _answer_pairs(exercise, entries, params, truth)
        kept = [p for p in found if p.score >= ROW_MIN]
        rows += kept
        possible = len(entries) * (len(entries) - 1) / 2
        chance += sum(p.score for p in kept) / possible if possible else 0.0
    return Pairs(sorted(rows, key=lambda p: (p.student_a, p.student_b, p.exercise)),
                 _summary(rows, chance))


def _code_pairs(exercise_id: str, entries: dict[str, ExerciseResult]) -> list[Pair]:
    """Pairs of implement files by their rare fingerprints, bucketed by fingerprint."""
    holders: dict[int, list[str]] = defaultdict(list)
    for sid, entry in entries.items():
        for fingerprint in set(entry.prints):
            holders[fingerprint].append(sid)
    rare = {sid: sum(1 for f in set(e.prints) if len(holders[f]) <= COMMON)
            for sid, e in entries.items()}
    shared: dict[tuple[str, str], float] = defaultdict(float)
    for sids in holders.values():
        if 2 <= len(sids) <= COMMON:
            for a, b in itertools.combinations(sorted(sids), 2):
                shared[(a, b)] += 1 / (len(sids) - 1)
    return [Pair(exercise_id, a, b, "code",
                 round(weight / max(MIN_RARE, min(rare[a], rare[b])), 3))
            for (a, b), weight in shared.items()]


def _answer_pairs(exercise: Exercise, entries: dict[str, ExerciseResult],
                  params: dict[str, dict[str, Any]], truth: Truth) -> list[Pair]:
    """Pairs of predict answers: wrong ones that are another's right ones, or shared by few."""
    right: dict[str, str] = {}
    for key in {_key(p) for p in params.values()}:
        right[key] = truth(exercise.with_params(dict(_unkey(key)) or None))
    own_truth = {sid: right[_key(params[sid])] for sid in entries}
    having: dict[str, list[str]] = defaultdict(list)
    for sid, digest in own_truth.items():
        having[digest].append(sid)
    wrong = {sid: e.answers for sid, e in entries.items()
             if e.answers and not e.passed and e.answers != own_truth[sid]}
    out: dict[tuple[str, str], Pair] = {}
    for sid, given in wrong.items():
        sources = [s for s in having.get(given, []) if s != sid]
        if sources and len(sources) <= COMMON:
            for source in sources:
                a, b = sorted((sid, source))
                out[(a, b)] = Pair(exercise.id, a, b, "answers", round(1 / len(sources), 3))
    same: dict[str, list[str]] = defaultdict(list)
    for sid, given in wrong.items():
        same[given].append(sid)
    for sids in same.values():
        if 2 <= len(sids) <= COMMON:
            for a, b in itertools.combinations(sorted(sids), 2):
                alike = 2 if _key(params[a]) == _key(params[b]) else 1  # one variant's common slip
                out.setdefault((a, b), Pair(exercise.id, a, b, "wrong-answers",
                                            round(1 / (alike * (len(sids) - 1)), 3)))
    return list(out.values())


def _summary(rows: list[Pair], chance: float) -> list[PairSummary]:
    """Per pair of students: the exercises they share (the sum of their scores) beyond what
    an average pair of the class shares (`chance`), largest first."""
    shared: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for pair in rows:
        shared[(pair.student_a, pair.student_b)].append(pair)
    out = [PairSummary(a, b, tuple(sorted(p.exercise for p in found)),
                       round(sum(p.score for p in found), 2),
                       round(sum(p.score for p in found) - chance, 2))
           for (a, b), found in shared.items()]
    return sorted(out, key=lambda s: (-s.beyond_chance, s.student_a, s.student_b))


def model_truth(truths_key: str = "") -> Truth:
    """A variant's right answers' digest, from the teacher's truths (`truths.TruthStore`, signed
    with the class's `truths_key`): the ones grading just computed or read, so the model is not
    asked again. (Asked per process, a regrade whose truths came from the cache ran every
    variant's oracle once more here, the served-peer exercises' real peers included.)"""
    from .truths import TruthStore

    store = TruthStore.default(truths_key)

    def truth(exercise: Exercise) -> str:
        from ..checks import suite_for
        from ..checks.base import PredictSuite

        suite = suite_for(exercise)
        if not isinstance(suite, PredictSuite):
            return ""
        answers = store.expected(exercise).answers
        if any(p.name not in answers for p in suite.parts):
            return ""
        return values_digest({p.name: p.form(answers[p.name]) for p in suite.parts})

    return truth


def _key(params: Mapping[str, Any]) -> str:
    from ..variants.spec import params_key

    return params_key(params)


def _unkey(key: str) -> dict[str, Any]:
    from ..variants.spec import from_key

    return from_key(key)


def write_similar(path: Path, pairs: Pairs) -> Path:
    """The CSV, written whole, its cells neutralised as the grades CSV's are: the summary
    first, the flagged exercises behind it, pair by pair in the summary's order."""
    from .gradebook import write_csv

    order = {(s.student_a, s.student_b): n for n, s in enumerate(pairs.summary)}
    lines: list[list[Any]] = [[s.student_a, s.student_b, "*", "pair", "", s.shared,
                               s.beyond_chance] for s in pairs.summary]
    lines += [[p.student_a, p.student_b, p.exercise, p.kind, p.score, "", ""]
              for p in sorted(pairs.rows, key=lambda p: (order[(p.student_a, p.student_b)],
                                                         p.exercise))]
    return write_csv(path, list(COLUMNS), lines)
