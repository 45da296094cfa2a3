"""`teacher report`: the numbers of a regraded class (analytics) and the one offline page that
shows them, opened in the Chromium the suite already uses."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.exercises.errors import GradesError
from routerlab.exercises.teacher.analytics import analyse, load_results
from routerlab.exercises.teacher.classroom import CheckResult, ExerciseResult, StudentResult

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--no-first-run"]


def _predict(points: float, answer: str) -> ExerciseResult:
    ok = points == 10
    return ExerciseResult("flow-1", "Flow", "predict", points, 10, ok,
                          "passed" if ok else "failed",
                          checks=[CheckResult("device", False, "passed" if ok else "failed",
                                              got=answer)])


def _implement(points: float, hidden_ok: bool) -> ExerciseResult:
    ok = points == 20
    return ExerciseResult("quant-3", "Scale", "implement", points, 20, ok,
                          "passed" if ok else "failed",
                          checks=[CheckResult("visible", False, "passed"),
                                  CheckResult("edge", True, "passed" if hidden_ok else "failed")])


def _class(tmp_path: Path) -> Path:
    """Four students' results as `teacher recheck` journals them, and one progress file."""
    rows = [("ada", _predict(10, "'cpu:0'"), _implement(20, True)),
            ("bob", _predict(0, "'cpu:1'"), _implement(10, False)),
            ("cy", _predict(0, "'cpu:1'"), _implement(0, False)),
            ("dee", _predict(0, "'gpu:0'"), _implement(20, True))]
    grades = tmp_path / "grades"
    grades.mkdir()
    lines = []
    for name, predict, implement in rows:
        submission = tmp_path / "submitted" / name
        submission.mkdir(parents=True)
        lines.append(json.dumps(StudentResult(name, str(submission),
                                              [predict, implement]).to_json()))
    lines.append(json.dumps(StudentResult("eve", "", error="TimeoutError: jail").to_json()))
    lines.append('{"format": "routerlab-student-result", "student_id": "cut sh')  # interrupted
    (grades / "grades.jsonl").write_text("\n".join(lines) + "\n")
    state = tmp_path / "submitted" / "bob" / ".routerlab" / "state.json"
    state.parent.mkdir()
    state.write_text(json.dumps({"version": 1, "exercises": {
        "flow-1": {"status": "failed", "attempts": 4, "hint_level": 2},
        "quant-3": {"status": "failed", "attempts": 7, "hint_level": 3}}}))
    return grades


def test_the_numbers_of_a_class(tmp_path: Path) -> None:
    data = analyse(load_results(_class(tmp_path)))
    assert data.students == ["ada", "bob", "cy", "dee"] and data.errors.keys() == {"eve"}
    flow, quant = data.exercises
    assert (flow.passed, flow.pass_rate) == (1, 0.25)
    assert quant.points == [20, 10, 0, 20] and quant.mean_points == 12.5
    assert data.wrong[("flow-1", "device")] == [("'cpu:1'", 2), ("'gpu:0'", 1)]
    hardest = data.hardest()
    assert [(c.exercise_id, c.name, c.failed, c.ran) for c in hardest] == [
        ("flow-1", "device", 3, 4), ("quant-3", "edge", 2, 4)]
    assert (flow.attempts, flow.hint_levels, data.self_reported) == ([4], [2], 1)
    assert data.totals == [30, 10, 0, 20]


def test_a_folder_without_results_reads_as_one_line(tmp_path: Path) -> None:
    with pytest.raises(GradesError, match="no resume file"):
        load_results(tmp_path)
    result = CliRunner().invoke(app, ["teacher", "report", str(tmp_path), "--html",
                                      str(tmp_path / "r.html")])
    assert result.exit_code == 1 and "no resume file" in str(result.exception)


def test_the_report_page_in_chromium(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report draws with matplotlib (notebooks extra)")
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["teacher", "report", str(_class(tmp_path)), "--html",
                                      str(out), "--plain"])
    assert result.exit_code == 0, result.output
    assert "hardest check: flow-1 / device" in result.output
    page = out.read_text()
    assert not re.search(r"<script|<link|(src|href)=['\"]?(https?:)?//", page), "offline"
    chromium = next((c for c in (os.environ.get("ROUTERLAB_CHROMIUM"), shutil.which("chromium"),
                                 "/usr/bin/chromium") if c and Path(c).is_file()), None)
    if chromium is None:
        pytest.skip("Chromium not found (looked at $ROUTERLAB_CHROMIUM, PATH, /usr/bin/chromium)"
                    "; install it with: apt-get install -y --no-install-recommends chromium")
    playwright_api = pytest.importorskip("playwright.sync_api",
                                         reason="playwright is missing: pip install "
                                                "'routerlab[test]'")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page_view = browser.new_page()
            page_view.goto(out.as_uri())
            shown = page_view.evaluate("""() => ({
                figures: [...document.querySelectorAll('figure.routerlab-figure svg')]
                    .filter(s => s.getBoundingClientRect().width > 100).length,
                bars: document.querySelectorAll('figure svg path, figure svg rect').length,
                tables: [...document.querySelectorAll('table')]
                    .filter(t => t.querySelector('td')).length,
                headings: [...document.querySelectorAll('h2')].map(h => h.innerText),
                text: document.body.innerText})""")
            page_view.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert shown["figures"] == 4, shown["headings"]
    assert shown["bars"] > 10
    assert shown["tables"] == 4  # exercises, hardest checks, wrong answers, not graded
    assert shown["headings"][:2] == ["Summary", "Exercises"]
    assert "self-reported" in shown["text"] and "'gpu:0'" in shown["text"]
    assert "4 students regraded; 1 could not be graded" in shown["text"]


def test_the_report_counts_the_whole_class_alike_from_any_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: graded with relative paths, the report reads the same from any working folder;
    a roster student who handed in nothing is counted; a check of an exercise nobody tried
    (a starter handed back, or no file) is never a "hardest check"."""
    pytest.importorskip("matplotlib", reason="the report draws with matplotlib (notebooks extra)")
    from routerlab.exercises.catalog import catalog_root, load_catalog

    course = tmp_path / "course"
    shutil.copytree(Path(str(catalog_root())), course)
    (course / "index.toml").write_text('order = ["registry-1", "registry-2"]\n')
    catalog = load_catalog(str(course.resolve()))
    ada, bob = tmp_path / "submitted" / "ada", tmp_path / "submitted" / "bob"
    for folder in (ada, bob):
        folder.mkdir(parents=True)
    (ada / "registry_2.py").write_text("ADD_STATUSES = ['ReadOnly', 'ReadOnly']\n")
    (ada / ".routerlab").mkdir()
    (ada / ".routerlab" / "state.json").write_text(json.dumps({"version": 1, "exercises": {
        "registry-2": {"status": "failed", "attempts": 3, "hint_level": 1}}}))
    (bob / "registry_1.py").write_text(catalog.get("registry-1").starter())  # untouched
    (tmp_path / "roster.csv").write_text("id,name,email\nada,A,a@x\nbob,B,b@x\ncy,C,c@x\n")
    (tmp_path / "grades").mkdir()
    monkeypatch.chdir(tmp_path)
    graded = CliRunner().invoke(app, [
        "teacher", "recheck", "submitted", "--roster", "roster.csv", "--out", "grades/g.csv",
        "--catalog", "course", "--no-isolation", "--plain"])
    assert graded.exit_code == 0, graded.output
    shown = []
    for where in (tmp_path, tmp_path / "submitted", Path("/")):
        monkeypatch.chdir(where)
        done = CliRunner().invoke(app, ["teacher", "report", str(tmp_path / "grades"), "--html",
                                        str(tmp_path / "r.html"), "--plain"])
        assert done.exit_code == 0, done.output
        shown.append((done.output.split("report written")[0], (tmp_path / "r.html").read_text()
                      .count("progress files (1 of 2 found)")))
    assert shown[0] == shown[1] == shown[2] and shown[0][1] == 1, shown
    said = " ".join(shown[0][0].split())
    assert "3 students, 2 exercises; hardest check: registry-2 /" in said
    assert "2 regraded, 0 not graded, 1 handed in nothing" in said
    data = analyse(load_results(tmp_path / "grades"))
    assert {c.exercise_id for c in data.checks} == {"registry-2"}  # nobody tried registry-1
    assert [(e.id, e.tried) for e in data.exercises] == [("registry-1", 0), ("registry-2", 1)]
    assert data.self_reported == 1
