"""Copy detection on a generated class: precision and recall of `similar.csv`'s pairs.

    .venv/bin/python benchmarks/similar_class.py [--students 200] [--copiers 20] [--seed 0]

The class is made from the real catalog: every implement file is that exercise's worked
solution (the natural answer, which many honest students write) with each honest student's own
touches (a check with their own message, a constant of their own, a helper of their own: a few
lines, as people differ), and, for a third of the class, one of three idioms many students
share. Predict answers are synthetic digests: each student has a variant of their own; an
honest student is right three times in four, else makes one of three common mistakes of their
variant. A copier takes a classmate's files for 8 to all 42 exercises and hides it: identifiers
renamed, top-level blocks reordered, comments added, one of the source's touches rewritten as
their own; predict answers copied across variants. A pair of students is flagged when it shares
`PAIR_MIN` exercises beyond chance (`similar.PairSummary.beyond_chance`).

Prints precision and recall (goal: at least 0.9 each) and how long the pairing took. No timing
here is a test; tests/exercises/test_similar.py runs a smaller class for the two ratios.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
import time
from dataclasses import dataclass
from typing import Any

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import Catalog, Exercise, Kind, load_catalog
from routerlab.exercises.teacher.classroom import ExerciseResult, StudentResult
from routerlab.exercises.teacher.fingerprints import code_prints, values_digest
from routerlab.exercises.teacher.similar import FLAG, Pairs, find_pairs

PAIR_MIN = FLAG
"""Exercises shared beyond chance from which a pair is flagged (`similar.FLAG`)."""
_IDIOMS = (
    "\n\ndef _as_list(values):\n    return [v for v in values]\n",
    "\n\ndef _checked(value):\n    if value is None:\n        raise ValueError('none')\n"
    "    return value\n",
    "\n\n_DEBUG = False\n\n\ndef _log(*parts):\n    if _DEBUG:\n        print(*parts)\n",
)
_WORDS = ("router", "handle", "tensor", "stream", "queue", "peer", "batch", "scale", "block",
          "device", "client", "server", "fence", "cache", "drop", "sync", "moved", "fresh")


@dataclass
class GeneratedClass:
    catalog: Catalog
    results: list[StudentResult]
    variants: dict[str, dict[str, dict[str, Any]]]
    copiers: set[tuple[str, str]]

    def truth(self, exercise: Exercise) -> str:
        """A variant's right answers (synthetic: a digest of the exercise and its variant)."""
        return values_digest({"id": exercise.id, "variant": exercise.params})


def _touch(rng: random.Random) -> str:
    """One honest student's own lines: what makes two people's files differ (a check with a
    message of their own, constants, a helper of their own shape)."""
    words = " ".join(rng.sample(_WORDS, 3))
    kind = rng.randrange(3)
    if kind == 0:
        limit = rng.randrange(2, 10**6)
        return (f"\n\ndef check(value, limit={limit}):\n    if value > limit:\n"
                f"        raise ValueError({words!r})\n    return value\n")
    if kind == 1:
        return (f"\n\nLIMIT = {rng.randrange(2, 10**6)}  # {words}\n"
                f"STEP = {rng.randrange(3, 999)}\nNAMES = {rng.sample(_WORDS, 2)!r}\n")
    a, b = rng.randrange(2, 10**4), rng.randrange(2, 10**4)
    return (f"\n\ndef helper(value, extra={a}):\n    total = value * {b} + extra\n"
            f"    for step in range({rng.randrange(2, 9)}):\n        total -= step\n"
            f"    return total - {rng.randrange(1, 999)}\n")


def _honest_file(solution: str, rng: random.Random) -> str:
    text = solution
    if rng.random() < 0.33:
        text += rng.choice(_IDIOMS)
    if rng.random() < 0.15:
        return text  # the natural answer, exactly: many students write it
    return text + "".join(_touch(rng) for _ in range(rng.randint(1, 4)))


def _disguise(source: str, rng: random.Random) -> str:
    """A copy as a copier hides it: names renamed, blocks reordered, comments, one rewrite."""
    names = set(re.findall(r"^def (\w+)", source, re.M)) | set(
        re.findall(r"^([A-Za-z_]\w*) =", source, re.M))
    text = source
    for name in sorted(names):  # a fixed order: the same seed, the same class
        text = re.sub(rf"\b{re.escape(name)}\b", f"{name}_{rng.randrange(100)}x", text)
    blocks = re.split(r"\n(?=(?:def |class |[A-Za-z_]\w* =|assert ))", text)
    head, rest = blocks[0], blocks[1:]
    rng.shuffle(rest)
    text = "\n".join([head, *rest])
    touches = [m.start() for m in re.finditer(r"\n\ndef check|\n\nLIMIT = |\n\ndef helper",
                                              text)]
    if len(touches) > 1:  # one of the source's own touches rewritten as the copier's
        start = rng.choice(touches)
        end = text.find("\n\n", start + 2)
        text = text[:start] + _touch(rng) + (text[end:] if end != -1 else "")
    return text.replace("\n    return", "\n    # my own work\n    return", 1)


def generate(students: int = 200, copiers: int = 20, seed: int = 0) -> GeneratedClass:
    rng = random.Random(seed)
    catalog = load_catalog()
    solutions = {e.id: open_solution(e) for e in catalog if e.kind is Kind.IMPLEMENT}
    ids = [f"s{n:03d}" for n in range(students)]
    variants: dict[str, dict[str, dict[str, Any]]] = {sid: {} for sid in ids}
    choices = {e.id: list(itertools.islice(e.variant.every(), 100)) for e in catalog}
    files: dict[str, dict[str, ExerciseResult]] = {sid: {} for sid in ids}
    for sid in ids:
        for exercise in catalog:
            params = rng.choice(choices[exercise.id]) if exercise.variant.varies else {}
            variants[sid][exercise.id] = params
            entry = ExerciseResult(exercise.id, exercise.title, exercise.kind.value, 0.0,
                                   exercise.points, False, "failed", file="x.py",
                                   variant=params)
            if exercise.kind is Kind.IMPLEMENT:
                entry.prints = code_prints(_honest_file(solutions[exercise.id], rng))
                entry.passed = True
            else:
                key = exercise.with_params(params or None).params
                truth = values_digest({"id": exercise.id, "variant": key})
                entry.passed = rng.random() < 0.75
                entry.answers = truth if entry.passed else values_digest(
                    {"id": exercise.id, "variant": key, "mistake": rng.randrange(3)})
            files[sid][exercise.id] = entry
    pairs: set[tuple[str, str]] = set()
    shuffled = ids[:]
    rng.shuffle(shuffled)
    for n in range(copiers):
        source, copier = shuffled[2 * n], shuffled[2 * n + 1]
        pairs.add((min(source, copier), max(source, copier)))
        copied = rng.sample([e for e in catalog], rng.randint(8, len(catalog)))
        for exercise in copied:
            theirs, mine = files[source][exercise.id], files[copier][exercise.id]
            if exercise.kind is Kind.IMPLEMENT:
                mine.prints = code_prints(_disguise(_regenerate(solutions[exercise.id],
                                                                source, exercise.id, seed),
                                                    rng))
                theirs.prints = code_prints(_regenerate(solutions[exercise.id], source,
                                                        exercise.id, seed))
            else:
                mine.answers = theirs.answers
                mine.passed = mine.answers == values_digest(
                    {"id": exercise.id, "variant": exercise.with_params(
                        variants[copier][exercise.id] or None).params})
    results = [StudentResult(sid, f"/class/{sid}", exercises=list(files[sid].values()))
               for sid in ids]
    return GeneratedClass(catalog, results, variants, pairs)


def _regenerate(solution: str, student: str, exercise_id: str, seed: int) -> str:
    """The source's own file of an exercise, made again from a seed of its own (so its text
    is known to the copier as well as to the source)."""
    return _honest_file(solution, random.Random(f"{seed}:{student}:{exercise_id}"))


def measure(generated: GeneratedClass, pair_min: float = PAIR_MIN) -> tuple[float, float, Pairs]:
    """(precision, recall, the pairs) of the pairs flagged at `pair_min`."""
    pairs = find_pairs(generated.results, generated.catalog, generated.variants,
                       generated.truth)
    flagged = {(s.student_a, s.student_b) for s in pairs.flagged(pair_min)}
    hits = len(flagged & generated.copiers)
    precision = hits / len(flagged) if flagged else 1.0
    recall = hits / len(generated.copiers) if generated.copiers else 1.0
    return precision, recall, pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--copiers", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    generated = generate(args.students, args.copiers, args.seed)
    started = time.perf_counter()
    precision, recall, pairs = measure(generated)
    seconds = time.perf_counter() - started
    honest = [s for s in pairs.summary
              if (s.student_a, s.student_b) not in generated.copiers]
    planted = [s for s in pairs.summary if (s.student_a, s.student_b) in generated.copiers]
    print(f"class of {args.students}, {args.copiers} copier pairs (seed {args.seed})")
    print(f"pairs listed {len(pairs.summary)}, exercise rows {len(pairs.rows)}, pairing "
          f"{seconds:.2f} s")
    print(f"planted pairs share {min((s.shared for s in planted), default=0):g} to "
          f"{max((s.shared for s in planted), default=0):g} exercises; honest pairs at most "
          f"{max((s.shared for s in honest), default=0):g}; missed: "
          f"{len(generated.copiers) - len(planted)}")
    print(f"flagged at >= {PAIR_MIN:g} beyond chance: precision {precision:.3f}, recall "
          f"{recall:.3f} (goal >= 0.9 each)")
    return 0 if precision >= 0.9 and recall >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
