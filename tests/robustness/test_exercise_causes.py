"""The traceback causes of issue 9 that live in `routerlab.exercises`, one test each.

The exercises read every user file (progress file, workspace marker, grade files, students'
files, files to seal) through `routerlab.core.base.safe_io` (size cap, regular files only, UTF-8,
nesting and integer limits) and turn an `OSError` into one line naming the path
(`routerlab.exercises.files`). Each test also shows that a refused command leaves the
workspace (or the catalog) as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog

DEEP = "[" * 100000 + "]" * 100000


@pytest.fixture
def workspace(invoke, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    assert invoke("exercises", "init", str(root), "--student", "Ada").code == 0
    return root


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every path under `root` with its bytes (a folder or special file by its kind); the empty
    lock file any command may create is not state."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        if path.name == "state.lock":
            continue
        if path.is_symlink() or not path.is_file():
            seen[str(path.relative_to(root))] = "dir" if path.is_dir() else "special"
        else:
            seen[str(path.relative_to(root))] = path.read_bytes()
    return seen


def sealed_files() -> dict[str, bytes]:
    return {e.id: (Path(str(e.folder)) / "sealed.json").read_bytes() for e in load_catalog()}


def test_cause_recursion_in_state_json(invoke, workspace: Path) -> None:
    """A progress file nested past the limit is corrupt: backed up, repaired, reported once."""
    state = workspace / ".routerlab" / "state.json"
    state.write_text(DEEP)
    outcome = invoke("exercises", "list", "--dir", str(workspace))
    assert outcome.code == 0 and "Traceback" not in outcome.err, outcome.err[-2000:]
    assert "nested deeper than 64 levels" in outcome.out
    backups = list(state.parent.glob("state.json.corrupt-*"))
    assert [b.read_text() for b in backups] == [DEEP]
    assert json.loads(state.read_text())["exercises"] == {}


def test_a_progress_file_that_is_not_a_file_is_refused_and_left_alone(invoke,
                                                                      workspace: Path) -> None:
    state = workspace / ".routerlab" / "state.json"
    state.unlink(missing_ok=True)
    state.mkdir()
    before = snapshot(workspace)
    for argv in (["list"], ["progress"], ["hint", "registry-1"], ["reset", "registry-1", "-y"],
                 ["check", "registry-1"], ["export"], ["watch", "--poll"]):
        outcome = invoke("exercises", *argv, "--dir", str(workspace))
        outcome.assert_refused()
        assert "state.json: not a regular file" in outcome.err
        assert snapshot(workspace) == before, argv


def test_cause_recursion_in_a_grade_file(invoke, tmp_path: Path) -> None:
    folder = tmp_path / "handed-in"
    folder.mkdir()
    (folder / "ada.json").write_text(DEEP)
    outcome = invoke("teacher", "grades", str(folder))
    outcome.assert_refused()
    assert "ada.json: nested deeper than 64 levels" in outcome.err
    assert not (folder / "grades.csv").exists()


def test_cause_os_error_in_exercises_init(invoke) -> None:
    outcome = invoke("exercises", "init", "/dev/null/workspace")
    outcome.assert_refused()
    assert "/dev/null/workspace: cannot create the workspace: Not a directory" in outcome.err


def test_an_init_that_fails_part_way_leaves_the_folder_as_it_was(invoke, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "exercises").write_text("a file of mine, where init wants a folder")
    before = snapshot(folder)
    outcome = invoke("exercises", "init", str(folder))
    outcome.assert_refused()
    assert "exercises: cannot write the starter file" in outcome.err
    assert snapshot(folder) == before


def test_cause_os_error_in_exercises_export(invoke, workspace: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused before any file is graded, and nothing in the workspace changes."""
    graded: list[str] = []
    monkeypatch.setattr("routerlab.exercises.learner.export.run_checks",
                        lambda exercise, *_args, **_kw: graded.append(exercise.id))
    before = snapshot(workspace)
    for target in (tmp_path / "no-such-folder" / "results.json", Path("/dev/null/x.json"),
                   tmp_path):
        outcome = invoke("exercises", "export", "--dir", str(workspace), "--out", str(target))
        outcome.assert_refused()
        assert f"{target}: cannot write the results file" in outcome.err
        assert graded == [], "the path is checked before the re-check runs"
    assert snapshot(workspace) == before


@pytest.mark.parametrize("exercise", ["registry-2", "registry-1"])  # predict, implement
def test_cause_syntax_error_in_teacher_seal(invoke, write, exercise: str) -> None:
    before = sealed_files()
    outcome = invoke("teacher", "seal", exercise, write("answer.py", "x = 1\nanswer = (\n"))
    outcome.assert_refused()
    assert "answer.py:2: not valid Python: '(' was never closed" in outcome.err
    assert sealed_files() == before


def test_a_file_to_seal_that_is_not_a_file_or_not_text_is_refused(invoke, write,
                                                                  fifo: str) -> None:
    before = sealed_files()
    for path in (fifo, "/dev/zero", write("latin.py", b"x = '\xe9'\n"),
                 write("nul.py", "x = 1\x00\n"), write("deep.py", "x = " + "-" * 100000 + "1")):
        invoke("teacher", "seal", "registry-2", path).assert_refused()
    good = write("ok.py", "x = 1\n")  # refused too: it is not the solution
    invoke("teacher", "seal", "registry-2", good, "--wrong", fifo).assert_refused()
    assert sealed_files() == before


def test_cause_non_utf8_workspace_file(invoke, workspace: Path) -> None:
    (workspace / "routerlab-exercises.toml").write_bytes(b'student = "caf\xe9"\n')
    outcome = invoke("exercises", "list", "--dir", str(workspace))
    outcome.assert_refused()
    assert "not UTF-8 text (byte 0xe9 at offset 14)" in outcome.err


def test_a_non_utf8_exercise_file_is_a_failed_check_not_a_traceback(invoke,
                                                                    workspace: Path) -> None:
    (workspace / "exercises" / "registry_1.py").write_bytes(b"x = '\xe9'\n")
    outcome = invoke("exercises", "check", "registry-1", "--dir", str(workspace))
    assert outcome.code == 1 and "Traceback" not in outcome.err, outcome.err[-2000:]
    assert "utf-8" in outcome.out.lower()


def test_an_exercise_file_that_is_a_fifo_is_refused_in_time(invoke, workspace: Path) -> None:
    path = workspace / "exercises" / "registry_1.py"
    path.unlink()
    os.mkfifo(path)
    before = snapshot(workspace)
    outcome = invoke("exercises", "check", "registry-1", "--dir", str(workspace))
    outcome.assert_refused()
    assert "registry_1.py: not a regular file" in outcome.err
    assert snapshot(workspace) == before


def test_cause_malformed_harness_output(invoke, workspace: Path) -> None:
    """Student code that writes garbage into the harness's results file: a failed check,
    explained, not a JSONDecodeError."""
    sabotage = ("import json, sys\n"
                "request = json.load(open(sys.argv[1]))\n"
                "open(request['results'], 'a').write('{not json\\n')\n")
    for path in (workspace / "exercises").glob("*registry_1.py"):
        path.write_text(sabotage)
    outcome = invoke("exercises", "check", "registry-1", "--dir", str(workspace))
    assert "Traceback" not in outcome.err and outcome.code == 1, outcome.err[-2000:]


def test_the_shared_readers_the_exercises_use(tmp_path: Path) -> None:
    """What the exercises' readers get from `routerlab.core.base.safe_io` for the same inputs."""
    from routerlab.core.base.errors import InputError
    from routerlab.core.base.safe_io import load_json, load_toml

    state = tmp_path / "state.json"
    state.write_text(DEEP)
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        load_json(state, what="progress file")
    state.write_text(json.dumps({"exercises": {}}))
    assert load_json(state, what="progress file") == {"exercises": {}}
    marker = tmp_path / "routerlab-exercises.toml"
    marker.write_bytes(b'student = "caf\xe9"\n')
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xe9 at offset 14\)"):
        load_toml(marker, what="workspace file")
