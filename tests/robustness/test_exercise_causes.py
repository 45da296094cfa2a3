"""The traceback causes of issue 9 that live in `routerlab.exercises`, one test each.

The exercises package is being rewritten (issue 11); its readers are to use the shared
`routerlab.core.safe_io` (`load_json`, `load_toml`, `read_text`: size cap, regular files only,
UTF-8, nesting and integer limits). A test that still fails here is marked `xfail` until that
merge, and says so; each turns into a plain pass once the cause is fixed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PENDING = pytest.mark.xfail(strict=False, reason="issue 11 merge: exercises/ reads through "
                                                 "routerlab.core.safe_io")
DEEP = "[" * 100000 + "]" * 100000


@pytest.fixture
def workspace(invoke, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    assert invoke("exercises", "init", str(root), "--student", "Ada").code == 0
    return root


@PENDING
def test_cause_recursion_in_state_json(invoke, workspace: Path) -> None:
    (workspace / ".routerlab" / "state.json").parent.mkdir(exist_ok=True)
    (workspace / ".routerlab" / "state.json").write_text(DEEP)
    outcome = invoke("exercises", "list", "--dir", str(workspace))
    assert "Traceback" not in outcome.err and outcome.code in (0, 1)
    assert outcome.code == 0 or len(outcome.err.strip().splitlines()) == 1


@PENDING
def test_cause_recursion_in_a_grade_file(invoke, tmp_path: Path) -> None:
    folder = tmp_path / "handed-in"
    folder.mkdir()
    (folder / "ada.json").write_text(DEEP)
    invoke("teacher", "grades", str(folder)).assert_refused()


@PENDING
def test_cause_os_error_in_exercises_init(invoke) -> None:
    invoke("exercises", "init", "/dev/null/workspace").assert_refused()


@PENDING
def test_cause_os_error_in_exercises_export(invoke, workspace: Path, tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "results.json"
    invoke("exercises", "export", "--dir", str(workspace), "--out", str(target)).assert_refused()


@PENDING
def test_cause_syntax_error_in_teacher_seal(invoke, write) -> None:
    invoke("teacher", "seal", "registry-2", write("answer.py", "answer = (\n")).assert_refused()


@PENDING
def test_cause_non_utf8_workspace_file(invoke, workspace: Path) -> None:
    (workspace / "routerlab-exercises.toml").write_bytes(b'student = "caf\xe9"\n')
    invoke("exercises", "list", "--dir", str(workspace)).assert_refused()


@PENDING
def test_cause_malformed_harness_output(invoke, workspace: Path) -> None:
    """Student code that writes garbage into the harness's results file: a failed check,
    explained, not a JSONDecodeError."""
    sabotage = ("import json, sys\n"
                "request = json.load(open(sys.argv[1]))\n"
                "open(request['results'], 'a').write('{not json\\n')\n")
    for path in (workspace / "exercises").glob("*_registry_1.py"):
        path.write_text(sabotage)
    outcome = invoke("exercises", "check", "registry-1", "--dir", str(workspace))
    assert "Traceback" not in outcome.err and outcome.code == 1, outcome.err[-2000:]


def test_the_shared_readers_the_exercises_will_use(tmp_path: Path) -> None:
    """What issue 11's readers get from `routerlab.core.safe_io` for the same inputs."""
    from routerlab.core.errors import InputError
    from routerlab.core.safe_io import load_json, load_toml

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
