"""Copy detection a teacher can read (issue 37 §5): a renamed, reordered copy is found; the
natural solution, a right answer for one's own variant and a fixed exercise's right answer are
never evidence; pairs come from the evidence the results carry (no path is read again); the
pair summary comes first; and on a generated class precision and recall are at least 0.9."""

from __future__ import annotations

import csv
import random
import sys
from pathlib import Path

from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import Catalog, Exercise, load_catalog
from routerlab.exercises.teacher.classroom import ExerciseResult, StudentResult
from routerlab.exercises.teacher.fingerprints import answers_digest, code_prints, values_digest
from routerlab.exercises.teacher.similar import find_pairs, write_similar

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import similar_class  # noqa: E402  (the generator of benchmarks/similar_class.py)


def _catalog(*ids: str) -> Catalog:
    full = load_catalog()
    return Catalog([full.get(i) for i in ids])


def _entry(exercise: Exercise, **fields: object) -> ExerciseResult:
    entry = ExerciseResult(exercise.id, exercise.title, exercise.kind.value, 0.0,
                           exercise.points, False, "failed", file="x.py")
    for name, value in fields.items():
        setattr(entry, name, value)
    return entry


def _truth(exercise: Exercise) -> str:
    return values_digest({"variant": exercise.params})


def test_a_renamed_reordered_copy_is_found_and_the_natural_solution_is_not() -> None:
    catalog = _catalog("registry-1")
    exercise = catalog.get("registry-1")
    solution = open_solution(exercise)
    rng = random.Random(3)
    own = solution + similar_class._touch(rng) + similar_class._touch(rng)
    copy = similar_class._disguise(own, rng)
    assert copy != own and "my own work" in copy
    results = [StudentResult("src", "/nowhere/src", [_entry(exercise, prints=code_prints(own))]),
               StudentResult("cop", "/nowhere/cop", [_entry(exercise, prints=code_prints(copy))])]
    results += [StudentResult(f"h{n}", f"/nowhere/h{n}",  # ten write the natural answer
                              [_entry(exercise, prints=code_prints(solution))])
                for n in range(10)]
    pairs = find_pairs(results, catalog, truth=_truth)  # no path exists: evidence only
    assert [(p.student_a, p.student_b, p.kind) for p in pairs.rows] == [("cop", "src", "code")]
    assert pairs.rows[0].score >= 0.5


def test_right_answers_are_never_evidence_and_copied_ones_across_variants_are() -> None:
    catalog = _catalog("flow-2", "faults-1")
    flow, fixed = catalog.get("flow-2"), catalog.get("faults-1")
    assert flow.variant.varies and not fixed.variant.varies
    one, two = list(flow.variant.every())[1:3]
    variants = {"ada": {"flow-2": one}, "bob": {"flow-2": two}, "cy": {"flow-2": two},
                "dee": {"flow-2": one}}
    right = {sid: _truth(flow.with_params(v["flow-2"])) for sid, v in variants.items()}
    fixed_right = _truth(fixed)

    def student(sid: str, answers: str, passed: bool) -> StudentResult:
        return StudentResult(sid, f"/nowhere/{sid}", [
            _entry(flow, answers=answers, passed=passed, variant=variants[sid]["flow-2"]),
            _entry(fixed, answers=fixed_right, passed=True)])

    results = [student("ada", right["ada"], True), student("dee", right["dee"], True),
               student("bob", right["bob"], True),  # right for his own variant: no evidence
               student("cy", right["ada"], False)]  # ada's (and dee's) right answer, not hers
    pairs = find_pairs(results, catalog, variants, truth=_truth)
    rows = {(p.student_a, p.student_b): p for p in pairs.rows}
    assert set(rows) == {("ada", "cy"), ("cy", "dee")}, "bob and the fixed exercise: nothing"
    assert {p.kind for p in rows.values()} == {"answers"} and rows[("ada", "cy")].score == 0.5


def test_the_csv_puts_the_pair_summary_first(tmp_path: Path) -> None:
    generated = similar_class.generate(40, 3, seed=5)
    _, _, pairs = similar_class.measure(generated)
    path = write_similar(tmp_path / "g.similar.csv", pairs)
    rows = list(csv.DictReader(path.open()))
    tops = [r for r in rows if r["exercise"] == "*"]
    assert rows[:len(tops)] == tops and len(tops) == len(pairs)
    beyond = [float(r["beyond_chance"]) for r in tops]
    assert beyond == sorted(beyond, reverse=True)
    assert {(r["student_a"], r["student_b"]) for r in rows[len(tops):]} <= {
        (r["student_a"], r["student_b"]) for r in tops}


def test_precision_and_recall_on_a_generated_class_are_at_least_0_9() -> None:
    generated = similar_class.generate(120, 12, seed=1)
    precision, recall, _ = similar_class.measure(generated)
    assert precision >= 0.9 and recall >= 0.9, (precision, recall)


def test_a_predict_digest_is_read_as_data_and_a_huge_literal_is_no_answer() -> None:
    exercise = load_catalog().get("registry-2")
    assert answers_digest(exercise, "ADD_STATUSES = 10**400\n") == ""
    assert answers_digest(load_catalog().get("registry-1"), "x = 1\n") == ""
