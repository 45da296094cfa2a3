"""The term's `teacher` commands through the console entry point: bad input is one line, exit 2
(usage) or 1 (refused), and the gradebook's file is byte for byte as it was; and every `teacher`
command function is thin (parses, calls its room, renders: at most 40 lines)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from routerlab.exercises.authoring.secret import ensure_secret
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.teacher import gradebook_term as term
from routerlab.exercises.teacher.gradebook_db import Gradebook, db_path
from routerlab.exercises.teacher.roster import Student

COMMANDS = Path(__file__).resolve().parents[2] / "cli" / "commands"


def test_every_teacher_command_function_is_at_most_40_lines() -> None:
    long = []
    for path in sorted(COMMANDS.glob("teacher*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.end_lineno is not None:
                lines = node.end_lineno - min([node.lineno, *(d.lineno for d in
                                                               node.decorator_list)]) + 1
                if lines > 40:
                    long.append(f"{path.name}:{node.name} ({lines} lines)")
    assert long == []


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    ensure_secret("c1", False, tmp_path / "bundle")
    term.record_roster("c1", [Student("ada", "Ada L", "ada@x.org", "A", "L-1")])
    with Gradebook.of_course("c1") as book:
        book.add_run("t", "v", {"quant-1": 10}, [("ada", True, "ok", {"quant-1": (10.0, "q.py")})])
    term.set_assignment("c1", "hw1", ["quant-1"], load_catalog(), "2027-03-01")
    return db_path("c1")


def _main(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200", XDG_DATA_HOME=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "routerlab", "teacher", *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args, code, said", [
    (["override", "zed", "quant-1", "3", "--reason", "r", "--course", "c1"], 1,
     "'zed' is not a student"),
    (["override", "ada", "nope-9", "3", "--reason", "r", "--course", "c1"], 1,
     "is not an exercise"),
    (["override", "ada", "quant-1", "three", "--reason", "r", "--course", "c1"], 2, "POINTS"),
    (["extension", "ada", "hw1", "--due", "31/12/2027", "--course", "c1"], 1, "is not a date"),
    (["extension", "ada", "hw7", "--due", "2027-12-31", "--course", "c1"], 1,
     "not an assignment"),
    (["history", "ada", "--course", "other"], 1, "no course 'other'"),
    (["export", "out.csv", "--format", "xlsx", "--course", "c1"], 1, "unknown format"),
])
def test_bad_input_is_one_line_and_leaves_the_gradebook_as_it_was(
        course: Path, tmp_path: Path, args: list[str], code: int, said: str) -> None:
    before = course.read_bytes()
    done = _main(tmp_path, *args)
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and said in done.stderr
    assert len([line for line in done.stderr.splitlines() if line.strip()]) == 1, done.stderr
    assert course.read_bytes() == before
    assert not (tmp_path / "out.csv").exists()


def test_history_and_export_from_the_command_line(course: Path, tmp_path: Path) -> None:
    done = _main(tmp_path, "override", "ada", "quant-1", "7", "--reason", "late by a day",
                 "--course", "c1")
    assert done.returncode == 0 and "quant-1 10 -> 7 points; grade now 7" in done.stdout
    shown = _main(tmp_path, "history", "ada", "--course", "c1", "--json")
    kinds = [e["kind"] for e in json.loads(shown.stdout)]
    assert kinds == ["grading", "override", "grade"]
    done = _main(tmp_path, "export", "g.csv", "--format", "canvas", "--course", "c1")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.csv").read_text().splitlines()[2].endswith(",7")
