"""Copies seen: pairs of students who handed in the same file, or the same predict answers.

`teacher recheck` writes `<OUT stem>.similar.csv` beside the grades CSV, with the columns
`exercise,student_a,student_b,kind`, one row per pair:

- `identical`: the graded files are the same bytes;
- `normalised`: the same once comments, blank space and the module docstring (the statement the
  starter put there, which differs between variants) are taken out, token by token;
- `answers`: a predict exercise whose two files give the same answers although the two students
  have different variants whose right answers differ: one student's answers handed to another.

A file that is its starter (normalised) is never paired: untouched starters are not copies. Nothing
here runs a student's file: sources are tokenised, predict answers read as literals.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog import Catalog, Exercise, Kind
from ..errors import GradesError
from .classroom import StudentResult

COLUMNS = ("exercise", "student_a", "student_b", "kind")
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}


@dataclass(frozen=True)
class Pair:
    exercise: str
    student_a: str
    student_b: str
    kind: str


def similar_path(csv_path: Path) -> Path:
    """`grades.csv` -> `grades.similar.csv`."""
    return csv_path.with_name(f"{csv_path.stem}.similar.csv")


def normalised(source: str) -> str:
    """The file's tokens without comments, layout or its leading docstring; the source itself
    when Python cannot tokenise it (then only identical files match)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return source
    kept = [t for t in tokens if t.type not in _SKIPPED]
    if kept and kept[0].type == tokenize.STRING:  # the module docstring: the statement
        kept = kept[1:]
    return " ".join(t.string for t in kept)


def find_pairs(results: Iterable[StudentResult], catalog: Catalog,
               variants: Mapping[str, Mapping[str, Any]] | None = None) -> list[Pair]:
    """Every pair, in exercise then student order. `variants[student][exercise]` are the
    parameters each student was graded on (absent: the catalog's own)."""
    from ..engine.literals import read_source

    variants = variants or {}
    graded = sorted((r for r in results if not r.error), key=lambda r: r.student_id)
    pairs: list[Pair] = []
    for exercise in catalog:
        files: dict[str, str] = {}
        for result in graded:
            entry = next((e for e in result.exercises if e.id == exercise.id and e.file), None)
            if entry is None:
                continue
            try:
                files[result.student_id] = read_source(Path(result.submission) / entry.file)
            except (GradesError, OSError):
                continue
        params = {sid: dict(variants.get(sid, {}).get(exercise.id) or {}) for sid in files}
        pairs += _pairs(exercise, files, params)
    return pairs


def _pairs(exercise: Exercise, files: dict[str, str], params: dict[str, dict[str, Any]]
           ) -> list[Pair]:
    starters = {sid: normalised(exercise.with_params(params[sid] or None).starter())
                for sid in files}
    shapes = {sid: normalised(text) for sid, text in files.items()}
    worked = [sid for sid in files if shapes[sid] != starters[sid]]
    answers = (_answers(exercise, {sid: files[sid] for sid in worked}, params)
               if exercise.kind is not Kind.IMPLEMENT else {})
    out = []
    for a, b in itertools.combinations(worked, 2):
        if files[a] == files[b]:
            out.append(Pair(exercise.id, a, b, "identical"))
        elif shapes[a] == shapes[b]:
            out.append(Pair(exercise.id, a, b, "normalised"))
        elif a in answers and b in answers and answers[a][0] == answers[b][0] \
                and answers[a][1] != answers[b][1]:
            out.append(Pair(exercise.id, a, b, "answers"))
    return out


def _answers(exercise: Exercise, files: dict[str, str], params: dict[str, dict[str, Any]]
             ) -> dict[str, tuple[str, str]]:
    """Per student: a digest of the answers they gave (all parts filled in) and of their own
    variant's right answers."""
    from ..checks import suite_for
    from ..checks.base import CheckFailure, PredictSuite
    from ..engine.judge import expected_for
    from ..engine.literals import NotData, literal_answers

    suite = suite_for(exercise)
    if not isinstance(suite, PredictSuite):
        return {}
    names = [p.name for p in suite.parts]
    out = {}
    for sid, source in files.items():
        try:
            given = literal_answers(source, names)
            formed = {p.name: p.form(given[p.name]) for p in suite.parts
                      if not (isinstance(given[p.name], dict) and set(given[p.name]) &
                              {"missing", "todo", "not_data"})}
        except (NotData, CheckFailure):
            continue
        if len(formed) != len(names):
            continue
        truth = expected_for(exercise.with_params(params[sid] or None)).answers
        right = {p.name: p.form(truth[p.name]) for p in suite.parts if p.name in truth}
        out[sid] = (_digest(formed), _digest(right))
    return out


def _digest(values: dict[str, Any]) -> str:
    from ..answers import canonical

    text = json.dumps({k: canonical(v) for k, v in sorted(values.items())})
    return hashlib.sha256(text.encode()).hexdigest()


def write_similar(path: Path, pairs: list[Pair]) -> Path:
    """The CSV, written whole, its cells neutralised as the grades CSV's are."""
    from .gradebook import write_csv

    return write_csv(path, list(COLUMNS),
                     [[p.exercise, p.student_a, p.student_b, p.kind] for p in pairs])
