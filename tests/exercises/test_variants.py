"""Answers that cannot be shared: each student's own variant of every exercise that varies
(issue 31), and the copies a class regrade still sees (issue 33 item 10).

A tiny course (three predict exercises that vary, one implement exercise whose visible checks
vary, one fixed exercise) is released to a roster of three with a known course secret, so every
variant below is the same on every run. Predict files are graded as data (`--no-isolation` only
changes where implement code would run, and the class here hands in predict files).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from routerlab.exercises.answers import answer_digest, canonical, unlock_key
from routerlab.exercises.authoring.bundle import release
from routerlab.exercises.authoring.secret import secret_path
from routerlab.exercises.authoring.tags import tags_path
from routerlab.exercises.authoring.variant_lint import (
    agreement,
    lint_catalog_variants,
    lint_variants,
)
from routerlab.exercises.catalog import Catalog, Kind, load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.checks.base import PredictSuite, to_data
from routerlab.exercises.engine import judge
from routerlab.exercises.errors import WorkspaceError
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import init_workspace
from routerlab.exercises.teacher.fingerprints import tokens
from routerlab.exercises.variants.spec import VariantError, parse_spec, render
from routerlab.exercises.variants.table import class_variants, student_tag

COURSE = "variants-2027"
KEY = bytes([1]) * 32
"""A fixed course secret: with it, ada, bob and cy have three different variants (and different
right answers) of every exercise that varies. With a random secret two students agree on an
exercise as often as docs/exercises.md says."""
VARYING_PREDICT = ["flow-2", "lifecycle-2", "registry-2"]
EXERCISES = [*VARYING_PREDICT, "registry-1", "policy-1"]
STUDENTS = ["ada", "bob", "cy"]
RUN = [sys.executable, "-m", "routerlab"]


@pytest.fixture(scope="module")
def course_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A teacher's course folder: the catalog's folders of the chosen exercises."""
    folder = tmp_path_factory.mktemp("course") / "course"
    folder.mkdir()
    source = Path(str(load_catalog().get("flow-2").folder)).parent
    for exercise_id in EXERCISES:
        shutil.copytree(source / exercise_id, folder / exercise_id)
    (folder / "index.toml").write_text(f"order = {json.dumps(EXERCISES)}\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def catalog(course_folder: Path) -> Catalog:
    return load_catalog(str(course_folder.resolve()))


@pytest.fixture(scope="module")
def bundle(course_folder: Path, catalog: Catalog, tmp_path_factory: pytest.TempPathFactory
           ) -> Path:
    path = secret_path(COURSE)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'course = "{COURSE}"\nsecret = "{KEY.hex()}"\nvariants = false\n')
    out = tmp_path_factory.mktemp("release") / "bundle"
    release(catalog, out, COURSE, roster=STUDENTS)
    return out


def test_the_release_command_hands_out_variants_and_keeps_the_secret_home(
        course_folder: Path, tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\nann,Ann,a@x\nben,Ben,b@x\n")
    out = tmp_path / "bundle"
    done = subprocess.run([*RUN, "teacher", "release", str(out), "--course", "cli-2027",
                           "--catalog", str(course_folder), "--roster", str(roster), "--plain"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "a variant for each of 2 students" in done.stdout
    assert str(secret_path("cli-2027")) in done.stdout.replace("\n", "")
    table = json.loads((out / "variants.json").read_text())
    assert len(table["students"]) == 2 and "ann" not in json.dumps(table)
    assert not list(out.rglob("secret.toml"))
    tags = tags_path("cli-2027")  # each student's tag: the teacher's, readable by them alone
    assert str(tags) in done.stdout.replace("\n", "") and "--tag TAG" in done.stdout
    assert (tags.stat().st_mode & 0o077) == 0 and not list(out.rglob("tags.csv"))
    rows = list(csv.DictReader(tags.open()))
    assert [r["id"] for r in rows] == ["ann", "ben"]
    assert {r["tag"] for r in rows} == set(table["students"])


def _workspace(bundle: Path, root: Path, student: str) -> Course:
    tag = student_tag(KEY, COURSE, student)  # what the teacher handed the student
    return Course(init_workspace(root / student, student, bundle, student, tag)[0])


def _answers_file(exercise_id: str, answers: dict[str, Any], tuples: bool = False) -> str:
    """A predict file giving `answers`, as a student writes it (lists as tuples: retyped)."""
    lines = []
    for name, value in answers.items():
        data = to_data(value)
        lines.append(f"{name} = {tuple(data)!r}" if tuples and isinstance(data, list)
                     else f"{name} = {data!r}")
    return f'"""{exercise_id}"""\n' + "\n".join(lines) + "\n"


def _truth(catalog: Catalog, exercise_id: str, student: str) -> dict[str, Any]:
    params = class_variants(catalog, KEY, student).get(exercise_id)
    suite = suite_for(catalog.get(exercise_id))
    assert isinstance(suite, PredictSuite)
    return suite.answers(params)


# --- the variant itself -------------------------------------------------------------------------


def test_a_variant_is_declared_as_data_and_rendered_into_the_statement() -> None:
    spec = parse_spec({"params": {"n": {"range": [1, 3], "default": 2},
                                  "d": {"choices": ["cpu:0", "cpu:1"]}}}, "here")
    assert spec.varies and spec.size() == 6 and spec.defaults() == {"n": 2, "d": "cpu:0"}
    assert {spec.pick(bytes([i]) * 32)["n"] for i in range(40)} == {1, 2, 3}
    assert spec.pick(b"x" * 32) == spec.pick(b"x" * 32)
    assert render("make {{n}} on {{ d }}", {"n": 3, "d": "cpu:1"}) == "make 3 on cpu:1"
    for bad in ({"params": {"n": {"range": [3, 1]}}}, {"params": {"n": {"choices": []}}},
                {"params": {"n": {"range": [1, 2], "default": 7}}},
                {"fixed": "why", "params": {"n": {"range": [1, 2]}}}):
        with pytest.raises(VariantError):
            parse_spec(bad, "here")
    with pytest.raises(VariantError, match="not a parameter"):
        render("{{m}}", {"n": 1})


def test_at_least_80_percent_of_predict_exercises_vary_and_the_others_say_why() -> None:
    predict = [e for e in load_catalog() if e.kind is not Kind.IMPLEMENT]
    varying = [e.id for e in predict if e.variant.varies]
    fixed = [e for e in predict if not e.variant.varies]
    assert all(e.variant.fixed.strip() for e in fixed), [e.id for e in fixed
                                                         if not e.variant.fixed]
    assert len(varying) >= 0.8 * len(predict), f"only {len(varying)}/{len(predict)} vary"


def test_every_implement_exercise_gives_its_visible_checks_the_students_own_inputs() -> None:
    implement = [e for e in load_catalog() if e.kind is Kind.IMPLEMENT]
    for exercise in implement:
        assert exercise.variant.varies, f"{exercise.id}: its visible checks do not vary"
        suite = suite_for(exercise)
        visible = frozenset(c.name for c in suite.checks if not c.hidden)
        spec = exercise.variant
        other = next(p for p in spec.every() if p != spec.defaults())
        mine = judge.model_observations(suite, spec.defaults(), visible)
        theirs = judge.model_observations(suite, other, visible)
        assert mine != theirs, f"{exercise.id}: another variant sees the same visible checks"


# --- class mode ---------------------------------------------------------------------------------


def test_two_students_get_their_own_statement_of_every_varying_exercise(
        bundle: Path, catalog: Catalog, tmp_path: Path) -> None:
    ada, bob = (_workspace(bundle, tmp_path, s) for s in ("ada", "bob"))
    for exercise in catalog:
        a = ada.workspace.file_for(exercise).read_text()
        b = bob.workspace.file_for(exercise).read_text()
        if exercise.variant.varies:
            assert a != b, f"{exercise.id}: ada and bob read the same statement"
            assert "{{" not in a and "{{" not in b
        else:
            assert a == b
    # self-study is unchanged: the catalog's own variant
    alone = init_workspace(tmp_path / "alone", "ann")[0]
    flow = load_catalog().get("flow-2")
    assert alone.file_for(flow).read_text() == flow.starter()
    assert "range(0)" in flow.statement()


def test_an_id_not_on_the_roster_is_told_so_and_nothing_is_left(bundle: Path,
                                                                 tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="not on the roster"):
        init_workspace(tmp_path / "eve", "eve", bundle, "eve", student_tag(KEY, COURSE, "eve"))
    assert not (tmp_path / "eve" / "routerlab-exercises.toml").exists()


def test_a_classmates_id_finds_no_variant_only_their_tag_does(bundle: Path,
                                                              tmp_path: Path) -> None:
    """The table is keyed by an HMAC under the course secret: ada's id (or a digest of it, as
    the bundle of before keyed it) finds nothing; without a tag, init says to give one."""
    import hashlib

    with pytest.raises(WorkspaceError, match="give the tag your teacher handed you"):
        init_workspace(tmp_path / "mallory", "mallory", bundle, "ada")
    old_key = hashlib.sha256(b"\0".join([b"routerlab-student-v1", COURSE.encode(),
                                         b"ada"])).hexdigest()[:32]
    table = json.loads((bundle / "variants.json").read_text())["students"]
    assert old_key not in table and student_tag(KEY, COURSE, "ada") in table
    with pytest.raises(WorkspaceError, match="a tag is the 20 letters"):
        init_workspace(tmp_path / "mallory", "mallory", bundle, "ada", "not-a-tag")
    assert not (tmp_path / "mallory" / "routerlab-exercises.toml").exists()


def test_class_check_runs_an_implement_exercises_visible_checks_on_the_students_inputs(
        bundle: Path, catalog: Catalog, tmp_path: Path,
        reference: Any) -> None:
    ada = _workspace(bundle, tmp_path, "ada")
    exercise = ada.catalog.get("registry-1")
    params = class_variants(catalog, KEY, "ada")["registry-1"]
    assert exercise.variant_params() == params
    ada.workspace.file_for(exercise).write_text(reference(load_catalog().get("registry-1")))
    report = ada.check("registry-1")
    visible = [o for o in report.outcomes if not o.hidden]
    assert visible and all(o.ok for o in visible), [o.message for o in visible]
    ada.workspace.file_for(exercise).write_text("def get_handle(handles, tensor_id, status):\n"
                                                "    return handles.pop(int(tensor_id))\n")
    failed = [o for o in ada.check("registry-1").outcomes if not o.ok and not o.hidden]
    own = json.dumps(sorted([params["tid"], params["other"]]))
    assert failed and failed[0].expected == own, "the student sees their own inputs"


def test_the_bundle_holds_no_value_that_grading_any_of_200_variants_compares_with(
        bundle: Path, catalog: Catalog) -> None:
    shipped = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                        for p in bundle.rglob("*") if p.is_file())
    assert not list(bundle.rglob("sealed.json")) and "secret = \"" not in shipped
    assert KEY.hex() not in shipped
    checked = 0
    for exercise in catalog:
        if not exercise.variant.varies:
            continue
        suite = suite_for(exercise)
        visible = json.loads((bundle / exercise.id / "visible.json").read_text())
        assert all(c["expected"] is None for c in visible["checks"])
        for _ in range(200):
            params = exercise.variant.pick(os.urandom(32))
            if isinstance(suite, PredictSuite):
                answers = suite.canonical_answers(suite.answers(params))
                secrets = [answer_digest(exercise.id, n, t) for n, t in answers.items()]
                secrets += [unlock_key(exercise.id, answers), canonical(answers)]
            else:
                seen = judge.model_observations(suite, params)
                secrets = [judge.check_digest(exercise.id, n, o) for n, o in seen.items()]
                secrets += [canonical(o) for o in seen.values()]
            assert not [s for s in secrets if s in shipped], f"{exercise.id} {params}"
            checked += 1
    assert checked == 200 * 4


# --- grading a class ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graded(bundle: Path, catalog: Catalog, course_folder: Path,
           tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """ada answers her own variant right; bob hands in ada's files; cy retypes ada's answers
    (tuples for lists) into her own starter. Graded twice."""
    root = tmp_path_factory.mktemp("class")
    courses = {s: _workspace(bundle, root / "ws", s) for s in STUDENTS}
    submitted = root / "submitted"
    for student, course in courses.items():
        for exercise_id in VARYING_PREDICT:
            exercise = course.catalog.get(exercise_id)
            own = _answers_file(exercise_id, _truth(catalog, exercise_id, student))
            ada = _answers_file(exercise_id, _truth(catalog, exercise_id, "ada"), student == "cy")
            path = course.workspace.file_for(exercise)
            if student == "cy":
                path.write_text(exercise.starter().split('"""\n', 2)[-1] + ada)
            else:
                path.write_text(ada if student == "bob" else own)
        shutil.copytree(course.workspace.root, submitted / student)
    roster = root / "roster.csv"
    roster.write_text("id,name,email\n" + "".join(f"{s},{s},{s}@x\n" for s in STUDENTS))
    runs = []
    for n in (1, 2):
        out = root / f"grades{n}.csv"
        done = subprocess.run([*RUN, "teacher", "recheck", str(submitted), "--roster", str(roster),
                               "--catalog", str(course_folder), "--out", str(out),
                               "--course", COURSE, "--no-isolation", "--plain"],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        runs.append((out, done.stdout))
    return {"runs": runs, "submitted": submitted, "roster": roster, "root": root}


def _rows(path: Path) -> dict[str, dict[str, str]]:
    """The CSV's rows by id (its first line is --no-isolation's warning)."""
    lines = path.read_text().splitlines()[1:]
    return {r["id"]: r for r in csv.DictReader(lines) if r.get("id")}


def test_copied_answers_fail_for_the_copier_and_own_answers_pass(graded: dict[str, Any],
                                                                 catalog: Catalog) -> None:
    rows = _rows(graded["runs"][0][0])
    for exercise_id in VARYING_PREDICT:
        points = catalog.get(exercise_id).points
        assert float(rows["ada"][exercise_id]) == points, exercise_id
        assert _truth(catalog, exercise_id, "ada") != _truth(catalog, exercise_id, "bob")
        assert float(rows["bob"][exercise_id]) < points, f"bob's copy of {exercise_id} passed"
        assert float(rows["cy"][exercise_id]) < points, f"cy's copy of {exercise_id} passed"


def test_regrading_the_same_class_twice_gives_the_same_csv(graded: dict[str, Any]) -> None:
    (first, _), (second, _) = graded["runs"]
    assert first.read_text() == second.read_text()


def test_feedback_shows_each_student_their_own_variant(graded: dict[str, Any],
                                                       catalog: Catalog) -> None:
    from routerlab.exercises.teacher.classroom import StudentResult
    from routerlab.exercises.teacher.feedback import feedback_html, feedback_json

    journal = graded["runs"][0][0].with_suffix(".jsonl")
    results = [StudentResult.from_json(json.loads(line))
               for line in journal.read_text().splitlines() if line.strip()]
    for result in results:
        own = class_variants(catalog, KEY, result.student_id)["flow-2"]
        flow = next(e for e in result.exercises if e.id == "flow-2")
        assert flow.variant == own
        shown = ", ".join(f"{k} = {v}" for k, v in own.items())
        assert f"Your variant: {shown}" in feedback_html(result)
        assert next(e for e in feedback_json(result)["exercises"]
                    if e["id"] == "flow-2")["variant"] == own


def test_similar_csv_pairs_copied_answers_and_never_a_right_one(graded: dict[str, Any]) -> None:
    """bob hands in ada's files and cy retypes ada's answers: each is ada's variant's right
    answer, wrong for their own (`answers`), and bob and cy share the same wrong answers. ada's
    own answers are right for her variant: evidence against nobody, yet she is the source."""
    out, stdout = graded["runs"][0]
    similar = out.with_name("grades1.similar.csv")
    rows = list(csv.DictReader(similar.open()))
    assert list(rows[0]) == ["student_a", "student_b", "exercise", "kind", "score", "shared",
                             "beyond_chance"]
    summary = [r for r in rows if r["exercise"] == "*"]
    assert rows[:len(summary)] == summary, "the per-pair summary comes first"
    assert {(r["student_a"], r["student_b"]): float(r["shared"]) for r in summary} == {
        ("ada", "bob"): 3, ("ada", "cy"): 3, ("bob", "cy"): 3}
    pairs = {(r["exercise"], r["student_a"], r["student_b"]): r["kind"] for r in rows
             if r["exercise"] != "*"}
    for exercise_id in VARYING_PREDICT:
        assert pairs[(exercise_id, "ada", "bob")] == "answers"
        assert pairs[(exercise_id, "ada", "cy")] == "answers"
        assert pairs[(exercise_id, "bob", "cy")] == "wrong-answers"
    assert not [p for p in pairs if p[0] in ("registry-1", "policy-1")], "starters are never paired"
    assert "3 pairs of similar files or answers" in stdout


def test_normalising_drops_comments_layout_the_statement_and_names() -> None:
    a = '"""statement of ada"""\nX = [1, 2]  # mine\n\n\ndef f( a ):\n    return a\n'
    b = '"""statement of bob"""\nY = [1,2]\ndef g(b):\n    # copied\n    return b\n'
    assert tokens(a) == tokens(b)
    assert tokens(a) != tokens(b.replace("[1,2]", "[2,1]"))


def test_grading_with_a_wrong_secret_is_refused(graded: dict[str, Any], tmp_path: Path) -> None:
    wrong = tmp_path / "secret.toml"
    wrong.write_text(f'course = "{COURSE}"\nsecret = "{bytes(32).hex()}"\nvariants = true\n')
    done = subprocess.run([*RUN, "teacher", "recheck", str(graded["submitted"]), "--roster",
                           str(graded["roster"]), "--out", str(tmp_path / "g.csv"),
                           "--course", COURSE, "--secret", str(wrong), "--no-isolation",
                           "--plain"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "is not the secret the course" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr and not (tmp_path / "g.csv").exists()


def test_the_secret_lives_in_the_teachers_data_folder_never_in_the_bundle(
        bundle: Path) -> None:
    path = secret_path(COURSE)
    assert path.is_file() and (path.stat().st_mode & 0o077) == 0
    assert not path.resolve().is_relative_to(bundle.resolve())
    assert os.environ["XDG_DATA_HOME"] in str(path)


def test_the_report_groups_wrong_answers_by_kind_of_mistake_across_variants(
        catalog: Catalog, tmp_path: Path) -> None:
    from routerlab.exercises.engine.runner import Candidate, run_checks
    from routerlab.exercises.teacher.analytics import analyse
    from routerlab.exercises.teacher.classroom import StudentResult, _exercise

    exercise = catalog.get("flow-2")
    suite = suite_for(exercise)
    assert isinstance(suite, PredictSuite)
    results = []
    for student in ("ada", "bob"):
        params = class_variants(catalog, KEY, student)["flow-2"]
        mine = exercise.with_params(params)
        path = tmp_path / f"{student}.py"
        path.write_text(_answers_file("flow-2", suite.mistaken("counted the clone as a copy",
                                                              params)))
        report = run_checks(mine, Candidate(path, path.name), predict_as_data=True)
        assert not report.passed
        results.append(StudentResult(student, str(tmp_path), [_exercise(mine, report, 0.0)]))
    gots = {c.got for r in results for c in r.exercises[0].checks if c.name.startswith("HANDLES")}
    assert len(gots) == 2, "the two students wrote different numbers"
    wrong = analyse(results).wrong
    handles = next(v for (e, c), v in wrong.items() if e == "flow-2" and c.startswith("HANDLES"))
    assert handles == [("counted the clone as a copy", 2)]


def test_released_solutions_give_each_student_their_own_variants_answers(
        bundle: Path, catalog: Catalog, tmp_path: Path) -> None:
    from routerlab.exercises.authoring.bundle import release_solutions

    out = tmp_path / "solutions.json"
    release_solutions(catalog, out, COURSE, ["flow-2", "policy-1"],
                      {s: class_variants(catalog, KEY, s) for s in STUDENTS})
    assert "ada" not in out.read_text()
    own_files = out.with_name("solutions.students")
    assert sorted(p.name for p in own_files.iterdir()) == [f"{s}.json" for s in STUDENTS]
    for student in ("ada", "bob"):
        course = _workspace(bundle, tmp_path, student)
        other = "bob" if student == "ada" else "ada"
        with pytest.raises(WorkspaceError, match="another student's solutions"):
            course.import_solutions(own_files / f"{other}.json")
        assert course.import_solutions(own_files / f"{student}.json") == ["flow-2", "policy-1"]
        given = course.released()["flow-2"]
        own = {k: to_data(v) for k, v in _truth(catalog, "flow-2", student).items()}
        assert given.answers == own
        assert f"HANDLES = {own['HANDLES']!r}" in given.solution
        assert course.released()["policy-1"].answers == {
            k: to_data(v) for k, v in _truth(catalog, "policy-1", student).items()}


# --- lint and agreement -------------------------------------------------------------------------


def test_lint_proves_random_variants_and_catches_a_wrong_answer_that_passes(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    results = lint_catalog_variants(catalog, count=3)
    assert all(not r.problems for r in results), [r.problems for r in results]
    assert {r.exercise.id: r.variants for r in results}["flow-2"] == 3
    suite = suite_for(catalog.get("flow-2"))
    assert isinstance(suite, PredictSuite)
    monkeypatch.setitem(suite.mistakes, "no mistake at all", lambda **_: {})  # type: ignore[index]
    found = lint_variants(catalog.get("flow-2"), 2).problems
    assert found and "“no mistake at all” passes" in found[0]


@pytest.mark.slow
def test_lint_over_5_variants_of_every_exercise_is_green() -> None:
    """Five fresh random variants a run (`teacher lint` proves 50; ten took some 140 of the
    suite's CPU-seconds on two cores, against its ten-minute goal; each run draws others, so the
    runs together cover more)."""
    results = lint_catalog_variants(load_catalog(), count=5)
    assert all(not r.problems for r in results), [(r.exercise.id, r.problems[:2])
                                                   for r in results if r.problems]


def test_copied_answers_pass_by_chance_as_rarely_as_the_docs_say() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "exercises.md").read_text()
    for exercise_id in VARYING_PREDICT:
        rate = agreement(load_catalog().get(exercise_id))
        assert rate is not None and rate < 0.1
        assert f"| `{exercise_id}` | {rate:.1%} |" in docs, exercise_id
