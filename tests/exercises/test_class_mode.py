"""Class mode: a course bundle that holds no answers, a class workspace that checks its visible
checks from the bundle's data alone, and solutions only once the teacher releases them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from routerlab.exercises.authoring.bundle import release, release_solutions
from routerlab.exercises.authoring.sealing import model_key, open_solution
from routerlab.exercises.catalog import Exercise, Kind, load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.engine import judge
from routerlab.exercises.errors import LockedError, WorkspaceError
from routerlab.exercises.learner import notebook as face
from routerlab.exercises.learner.course import Course
from routerlab.exercises.learner.workspace import MARKER, find_workspace, init_workspace
from routerlab.exercises.report import AT_GRADING, PASSED

Reference = Callable[[Exercise], str]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "course"
    release(load_catalog(), out, "burn-router-2027", "Burn's router")
    return out


@pytest.fixture
def class_course(bundle: Path, tmp_path: Path) -> Course:
    return Course(init_workspace(tmp_path / "ws", "Ada", bundle, "s1234")[0])


def _text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*"))
                     if p.is_file())


def _secret_lines(exercise: Exercise) -> list[str]:
    starter = (Path(str(exercise.folder)) / "starter.py").read_text()
    return [line.strip() for line in open_solution(exercise).splitlines()
            if len(line.strip()) > 24 and line.strip() not in starter
            and not line.strip().startswith(("#", '"""', "def ", "from ", "import "))]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "state.lock"}


def test_the_bundle_holds_no_solution_no_hidden_value_and_no_answer_digest(bundle: Path) -> None:
    shipped = _text(bundle)
    assert not list(bundle.rglob("sealed.json"))
    assert not re.search(r"\b[0-9a-f]{64}\b", shipped), "a SHA-256 digest ships in the bundle"
    hidden_seen = 0
    for exercise in load_catalog():
        leaked = [line for line in _secret_lines(exercise) if line in shipped]
        assert not leaked, f"{exercise.id}: solution lines in the bundle: {leaked[:2]}"
        sealed = exercise.sealed()
        assert sealed is not None
        for secret in (sealed.solution, model_key(exercise), *sealed.digests.values()):
            assert secret not in shipped, f"{exercise.id}: a sealed secret is in the bundle"
        suite = suite_for(exercise)
        if exercise.kind is not Kind.IMPLEMENT:  # the solution's `NAME = answer` lines
            answers = suite.oracle()
            for line in open_solution(exercise).splitlines():
                name = line.split("=")[0].strip()
                if "=" in line and name in answers:
                    assert line.strip() not in shipped, f"{exercise.id} ships {line}"
            continue
        observed = judge.expected(exercise.id).observations
        visible = {_compact(list(pair)) for c in suite.checks if not c.hidden
                   for pair in observed[c.name]}
        assert visible and all(pair in shipped for pair in visible), "the grep sees this form"
        for check in (c for c in suite.checks if c.hidden):
            assert _compact(observed[check.name]) not in shipped
            for label, value in observed[check.name]:
                pair = _compact([label, value])
                if pair in visible:  # the same case, shown by a visible check: no secret
                    continue
                assert pair not in shipped, f"{exercise.id}: hidden “{check.name}”: {pair}"
                hidden_seen += 1
    assert hidden_seen > 100


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_a_class_workspace_records_who_and_which_course(class_course: Course,
                                                        bundle: Path) -> None:
    workspace = find_workspace(class_course.workspace.root)
    assert (workspace.student_id, workspace.course, workspace.class_mode) == (
        "s1234", "burn-router-2027", True)
    marker = (workspace.root / MARKER).read_text()
    assert 'student_id = "s1234"' in marker and "course_version" in marker
    assert workspace.course_dir.is_dir() and not list(workspace.root.rglob("sealed.json"))
    assert [e.id for e in class_course.catalog] == [e.id for e in load_catalog()]
    assert all(len(e.hints) == 2 for e in class_course.catalog), "the near solution is held"


def test_init_refuses_a_bad_id_a_missing_id_and_mixing_modes(bundle: Path, tmp_path: Path
                                                             ) -> None:
    for student_id in ("", "../x", "a;=1", "x" * 65):
        with pytest.raises(WorkspaceError):
            init_workspace(tmp_path / "bad", None, bundle, student_id)
    with pytest.raises(WorkspaceError, match="--course"):
        init_workspace(tmp_path / "bad", None, None, "s1")
    with pytest.raises(WorkspaceError, match="not a course bundle"):
        init_workspace(tmp_path / "bad", None, tmp_path, "s1")
    assert not (tmp_path / "bad").exists()
    own = init_workspace(tmp_path / "own", "ada")[0]
    with pytest.raises(WorkspaceError, match="self-study"):
        init_workspace(own.root, None, bundle, "s1")


def test_check_runs_the_visible_checks_from_the_bundle_and_leaves_hidden_ones_to_grading(
        class_course: Course, reference: Reference, monkeypatch: pytest.MonkeyPatch) -> None:
    exercise = class_course.catalog.get("quant-1")
    path = class_course.workspace.file_for(exercise)
    assert not class_course.check("quant-1").passed  # the starter
    path.write_text(reference(load_catalog().get("quant-1")))

    def no_answers(*_: object) -> None:
        raise AssertionError("a class workspace's check used the teacher's answers")

    monkeypatch.setattr(judge, "expected", no_answers)
    report = class_course.check("quant-1")
    assert report.passed and report.unlock is None
    assert {o.status for o in report.outcomes if o.hidden} == {AT_GRADING}
    assert {o.status for o in report.outcomes if not o.hidden} == {PASSED}
    status = class_course.status("quant-1")
    assert status.done and status.earned == 0 and not status.revealed
    # the data is the bundle's: change one expected value there and the same code fails
    visible = class_course.workspace.course_dir / "quant-1" / "visible.json"
    visible.write_text(visible.read_text().replace("0.014173228293657303", "0.5"))
    failed = class_course.check("quant-1")
    assert not failed.passed and failed.failures[0].expected == "0.5"


def test_a_predict_exercise_checks_only_that_the_answers_are_well_formed(
        class_course: Course, reference: Reference) -> None:
    exercise = class_course.catalog.get("registry-2")
    path = class_course.workspace.file_for(exercise)
    path.write_text(reference(load_catalog().get("registry-2")))
    right = class_course.check("registry-2")
    assert right.passed and right.at_grading == len(suite_for(exercise).checks) - 1
    wrong = path.read_text()
    for line in wrong.splitlines():  # any well-formed answer passes here: no answer is known
        if line.startswith("IDS_AFTER") or line.startswith("COUNT"):
            wrong = wrong.replace(line, line.split("=")[0] + "= []" if "IDS" in line
                                  else line.split("=")[0] + "= 99")
    path.write_text(wrong)
    assert class_course.check("registry-2").passed == right.passed


def test_give_up_and_solution_in_a_class_workspace_gain_nothing(
        class_course: Course, reference: Reference) -> None:
    root = class_course.workspace.root
    before = _tree(root)
    secret = _secret_lines(load_catalog().get("quant-3"))
    for exercise_id in ("quant-3", "registry-2"):
        with pytest.raises(LockedError, match="after grading"):
            class_course.give_up(exercise_id)
        with pytest.raises(LockedError, match="after grading"):
            class_course.solution(exercise_id)
        with pytest.raises(LockedError, match="after grading"):
            face.give_up(exercise_id, dir=root)
    for command in (["give-up", "quant-3", "--yes"], ["give-up", "quant-3"],
                    ["solution", "quant-3"]):
        done = subprocess.run([sys.executable, "-m", "routerlab", "exercises", *command,
                               "--dir", str(root)], capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and "after grading" in done.stderr + done.stdout
        assert not any(line in done.stdout + done.stderr for line in secret)
    assert _tree(root) == before, "a refused give-up changed the workspace"
    assert not (root / "solutions").exists()
    status = class_course.status("quant-3")
    assert not status.revealed and not status.record.gave_up


def test_released_solutions_open_in_the_class_workspace(class_course: Course,
                                                        tmp_path: Path) -> None:
    file = tmp_path / "solutions.json"
    release_solutions(load_catalog(), file, "burn-router-2027", ["quant-3", "registry-2"])
    assert class_course.import_solutions(file) == ["quant-3", "registry-2"]
    text = class_course.solution("quant-3").text
    assert text == open_solution(load_catalog().get("quant-3"))
    given = class_course.give_up("registry-2")
    assert given.released and not given.forfeited
    assert given.answers == json.loads(json.dumps(suite_for(given.exercise).oracle()))
    assert class_course.status("registry-2").revealed
    with pytest.raises(LockedError):
        class_course.solution("quant-1")  # not released yet
    other = tmp_path / "other.json"
    release_solutions(load_catalog(), other, "another-course", ["quant-1"])
    with pytest.raises(WorkspaceError, match="another-course"):
        class_course.import_solutions(other)


def test_the_terminal_and_a_notebook_show_the_class_verdict(bundle: Path, tmp_path: Path,
                                                            reference: Reference) -> None:
    ws = tmp_path / "class-ws"
    run = [sys.executable, "-m", "routerlab", "exercises"]
    made = subprocess.run([*run, "init", str(ws), "--course", str(bundle), "--student-id",
                           "s42"], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert "Class workspace of burn-router-2027 for s42" in made.stdout
    (ws / "exercises" / "quant_3.py").write_text(reference(load_catalog().get("quant-3")))
    done = subprocess.run([*run, "check", "quant-3", "--dir", str(ws)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hidden checks run when your teacher grades" in done.stdout
    assert "at grading" in done.stdout
    view = face.check("quant-3", dir=ws)
    assert view.passed and "teacher grades" in view.headline
    listed = subprocess.run([*run, "progress", "--dir", str(ws)], capture_output=True,
                            text=True, timeout=120)
    assert "points come when your teacher grades" in " ".join(listed.stdout.split())
    export = subprocess.run([*run, "export", "--dir", str(ws)], capture_output=True, text=True,
                            timeout=120)
    assert export.returncode != 0 and "hand in the workspace folder" in export.stderr
    assert not list(ws.glob("routerlab-results-*.json"))


def test_the_teacher_commands_release_a_course_and_its_solutions(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "routerlab", "teacher"]
    out = tmp_path / "release"
    done = subprocess.run([*run, "release", str(out), "--course", "c2", "--hints", "3"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "--course" in done.stdout and "--student-id" in done.stdout
    assert "near solution" not in done.stdout
    course = load_catalog(str(out.resolve()))
    assert all(len(e.hints) == 3 for e in course) and len(course) == len(load_catalog())
    again = subprocess.run([*run, "release", str(out), "--course", "c2"], capture_output=True,
                           text=True, timeout=300)
    assert again.returncode != 0 and "not an empty folder" in again.stderr
    file = tmp_path / "solutions.json"
    given = subprocess.run([*run, "release-solutions", str(file), "quant-3", "--course", "c2"],
                           capture_output=True, text=True, timeout=300)
    assert given.returncode == 0, given.stderr
    assert list(json.loads(file.read_text())["exercises"]) == ["quant-3"]


def test_notebook_checkpoints_in_a_class_workspace_behave_like_its_terminal(
        class_course: Course, tmp_path: Path) -> None:
    from routerlab.exercises.authoring.sealing import literal_assignments
    from routerlab.notebook import Callout, lesson

    lab = lesson("01-handles", dir=class_course.workspace.root)
    answers = literal_assignments(open_solution(load_catalog().get("registry-2")))
    shown = lab.check("registry-2", **answers)
    assert shown.passed and "teacher grades" in shown.headline
    calls: list[int] = []
    locked = lab.reveal("registry-2", lambda: calls.append(1))
    assert isinstance(locked, Callout) and calls == [], "a pass opens nothing in class mode"
    with pytest.raises(LockedError, match="after grading"):
        lab.give_up("registry-2")
    assert calls == [] and not (class_course.workspace.root / "solutions").exists()
    file = tmp_path / "solutions.json"
    release_solutions(load_catalog(), file, "burn-router-2027", ["registry-2"])
    class_course.import_solutions(file)
    lab.reveal("registry-2", lambda: calls.append(1))
    assert calls == [1], "released: the notebook's answer cell opens"


def test_a_new_release_of_the_course_reopens_the_passes_it_changes(
        class_course: Course, bundle: Path, tmp_path: Path, reference: Reference) -> None:
    import shutil

    from routerlab.exercises.catalog import catalog_root
    from routerlab.exercises.learner.workspace import open_workspace

    workspace = class_course.workspace
    mine = workspace.file_for(class_course.catalog.get("quant-3"))
    mine.write_text(reference(load_catalog().get("quant-3")))
    assert class_course.check("quant-3").passed
    source = tmp_path / "course"
    shutil.copytree(Path(str(catalog_root())), source)
    starter = source / "quant-3" / "starter.py"
    starter.write_text(starter.read_text() + "\n# TODO: and a second part\n")
    fixed = tmp_path / "release-2"
    release(load_catalog(str(source.resolve())), fixed, "burn-router-2027")
    other = tmp_path / "other-course"
    release(load_catalog(str(source.resolve())), other, "another-course")
    run = [sys.executable, "-m", "routerlab", "exercises", "upgrade", "--dir", str(workspace.root)]
    refused = subprocess.run([*run, "--course", str(other)], capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode != 0 and "another-course" in refused.stderr
    done = subprocess.run([*run, "--course", str(fixed)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "quant-3: your pass no longer counts: its starter changed" in said
    assert "quant_3.new.py" in said
    assert mine.read_text() == reference(load_catalog().get("quant-3")), "the file is kept"
    moved = open_workspace(workspace.root)
    assert moved.course_version != workspace.course_version
    assert (workspace.root / ".routerlab" / f"course-{workspace.course_version}").is_dir()
    status = Course(moved).status("quant-3")
    assert not status.done and status.record.passed_ever
    assert Course(moved).check("quant-3").passed, "checked again, it passes again"


def test_a_hostile_bundle_is_refused_in_one_line_and_leaves_nothing(bundle: Path,
                                                                     tmp_path: Path) -> None:
    import os
    import shutil

    def broken(name: str, change: Callable[[Path], None]) -> Path:
        copy = tmp_path / name
        shutil.copytree(bundle, copy)
        change(copy)
        return copy

    def fifo(path: Path) -> None:
        path.unlink()
        os.mkfifo(path)

    secret = tmp_path / "shadow"  # a teacher's file, as /etc/shadow would be
    secret.write_text("root:$6$secret-hash:19000:0:99999:7:::\n")

    def relink(path: Path, target: Path) -> None:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
        path.symlink_to(target)

    cases = [
        broken("fifo-index", lambda b: fifo(b / "index.toml")),
        broken("fifo-starter", lambda b: fifo(b / "quant-1" / "starter.py")),
        broken("escape", lambda b: (b / "index.toml").write_text('order = ["../../x"]\n')),
        broken("deep", lambda b: (b / "quant-1" / "visible.json").write_text("[" * 100000)),
        broken("nested-toml", lambda b: (b / "quant-1" / "exercise.toml").write_text(
            "x = " + "[" * 100000)),
        broken("no-course", lambda b: (b / "course.toml").unlink()),
        broken("bad-course-id", lambda b: (b / "course.toml").write_text(
            (b / "course.toml").read_text().replace('"burn-router-2027"', '"=cmd|x"'))),
        broken("other-checks", lambda b: (b / "quant-1" / "visible.json").write_text(
            '{"checks": [{"name": "not a check of this RouterLab", "expected": []}]}')),
        # issue 33 §3: a bundle is plain files, in the one format this RouterLab reads
        broken("format-9", lambda b: (b / "course.toml").write_text(
            (b / "course.toml").read_text().replace("format = 1", "format = 9"))),
        broken("linked-starter", lambda b: relink(b / "quant-1" / "starter.py", secret)),
        broken("linked-exercise", lambda b: relink(b / "quant-2", b / "quant-1")),
    ]
    for case in cases:
        with pytest.raises(WorkspaceError) as refused:
            init_workspace(tmp_path / f"ws-{case.name}", None, case, "s1")
        assert "\n" not in str(refused.value) and str(case) in str(refused.value)
        assert not (tmp_path / f"ws-{case.name}").exists()
    assert "format 9" in _refusal(tmp_path, tmp_path / "format-9")
    assert "link" in _refusal(tmp_path, tmp_path / "linked-starter")


def _refusal(tmp_path: Path, bundle: Path) -> str:
    with pytest.raises(WorkspaceError) as refused:
        init_workspace(tmp_path / "ws-again", None, bundle, "s1")
    return str(refused.value)


def test_the_give_up_attack_gains_nothing_at_grading(tmp_path: Path, reference: Reference
                                                     ) -> None:
    """The class workspace is graded as the teacher grades it (the jail where it can run): a
    refused give-up, a forged solutions file and a progress file that claims passes earn 0."""
    import shutil

    from routerlab.exercises.catalog import catalog_root
    from routerlab.exercises.engine.jail import unavailable
    from routerlab.exercises.teacher.classroom import GradeOptions, grade_student

    course = tmp_path / "course"
    shutil.copytree(Path(str(catalog_root())), course)
    (course / "index.toml").write_text('order = ["registry-2", "quant-3"]\n')
    release(load_catalog(str(course.resolve())), tmp_path / "release", "attack-course")
    mallory = Course(init_workspace(tmp_path / "mallory", None, tmp_path / "release", "m1")[0])
    for exercise_id in ("registry-2", "quant-3"):
        with pytest.raises(LockedError):
            mallory.give_up(exercise_id)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"format": "routerlab-solutions", "course": "attack-course",
                                  "exercises": {"quant-3": {"solution": "x = 1", "answers": {}}}}))
    mallory.import_solutions(forged)  # the student's own text: it opens nothing of the teacher's
    assert mallory.solution("quant-3").text == "x = 1"
    state = mallory.workspace.state_path
    state.write_text(json.dumps({"version": 1, "exercises": {
        i: {"status": "passed", "attempts": 1, "attempts_to_pass": 1, "unlock": "0" * 64}
        for i in ("registry-2", "quant-3")}}))
    ada = Course(init_workspace(tmp_path / "ada", None, tmp_path / "release", "a1")[0])
    ada.workspace.file_for(ada.catalog.get("quant-3")).write_text(
        reference(load_catalog().get("quant-3")))
    options = GradeOptions(isolation=unavailable() is None)
    graded = {ws.workspace.student_id: grade_student(ws.workspace.root, course, options,
                                                     ws.workspace.student_id)
              for ws in (mallory, ada)}
    assert not graded["m1"].error and not graded["a1"].error, graded
    assert graded["m1"].points == 0, graded["m1"]
    assert graded["a1"].points == 10, "an honest pass in the same class earns its points"
