"""`routerlab simulate` through the real app (CliRunner) and through main() for errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app, main

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def test_prints_every_registry_after_every_step() -> None:
    result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "move-unique.toml"), "--plain"])
    assert result.exit_code == 0, result.output
    assert result.output.count("Registry cpu:0") == 6 and result.output.count("Registry cpu:1") == 6
    assert "Step 2: to_device w (#0 on cpu:0): w1 = #1 [2, 3] i32 on cpu:1" in result.output
    assert "\x1b[" not in result.output


def test_json_is_one_document() -> None:
    result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "cross-peer-bytes.toml"),
                                      "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert list(doc) == ["scenario", "title", "description", "devices", "steps"]
    assert [s["step"] for s in doc["steps"]] == [1, 2, 3, 4]
    assert doc["steps"][2]["registries"]["peer2/cpu:0"]["rows"][0][0] == 2


def test_trace_flag_prints_events() -> None:
    result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "shared-add.toml"), "--plain",
                                      "--trace"])
    assert result.exit_code == 0 and "Events of step 3" in result.output
    assert "ReadWrite" in result.output


def test_no_color_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "shared-add.toml")],
                                color=True)
    assert result.exit_code == 0 and "\x1b[3" not in result.output


@pytest.mark.parametrize(("content", "expected"), [
    ("devices = [", "not valid TOML"),
    ('devices = ["cpu:0"]\n[[steps]]\nop = "add"\nlhs = "a"\nrhs = "b"\nname = "c"\n',
     "step 1 (add): field 'lhs': unknown tensor label 'a'"),
])
def test_errors_are_one_line_and_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str],
                                        content: str, expected: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(content)
    monkeypatch.setattr(sys, "argv", ["routerlab", "simulate", str(path)])
    with pytest.raises(SystemExit) as done:
        main()
    err = capsys.readouterr().err
    assert done.value.code == 1
    assert err.count("\n") == 1 and err.startswith("error: ") and expected in err


def test_policy_flag_overrides_every_transfer_and_agrees_with_validate(capsys, monkeypatch) -> None:
    """`simulate --policy X` runs what `validate --policy X` predicted: under `reject` the
    native scenario's first quantized move is refused, one line, exit 1; under `dequantize` it
    runs (the file's own `expect_q` still holds: requantizing with the carried scale is exact)."""
    local = str(SCENARIOS / "quantized-local.toml")
    runner = CliRunner()
    assert runner.invoke(app, ["validate", local, "--policy", "reject"]).exit_code == 1
    monkeypatch.setattr(sys, "argv", ["routerlab", "simulate", local, "--policy", "reject"])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "step 3 (to_device)" in err[0] and "TransferRejected" in err[0]
    ok = runner.invoke(app, ["simulate", local, "--policy", "dequantize", "--plain"])
    assert ok.exit_code == 0, ok.output
    assert "[policy dequantize]" in ok.output and "[policy native]" not in ok.output


def test_unknown_policy_is_refused() -> None:
    result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "quantized-local.toml"),
                                      "--policy", "teleport"])
    assert result.exit_code != 0
    assert "teleport" in str(result.exception) + result.output


def test_json_of_a_failing_run_is_the_steps_that_ran_and_the_failure(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """stdout: one document (steps 1-2 ran, step 3 stopped the run); stderr: the one line;
    exit 1."""
    local = str(SCENARIOS / "quantized-local.toml")
    monkeypatch.setattr(sys, "argv", ["routerlab", "simulate", local, "--json", "--policy",
                                      "reject"])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 1
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert list(doc) == ["scenario", "title", "description", "devices", "steps", "failure"]
    assert [s["step"] for s in doc["steps"]] == [1, 2]
    failure = doc["failure"]
    assert (failure["step"], failure["op"], failure["error"]) == (3, "to_device",
                                                                  "TransferRejected")
    assert failure["message"].startswith("transfer of a quantized tensor refused")
    assert err.count("\n") == 1
    assert err == (f"error: {local}: step 3 (to_device) failed: TransferRejected: "
                   f"{failure['message']}\n")


def test_float_overflow_is_inf_without_numpy_warnings(tmp_path: Path) -> None:
    """f16 60000 + 60000 is inf, as Rust's float add gives, and so is 1e30 dequantized to f16;
    numpy's RuntimeWarnings about them (and about a saturating float-to-int cast) must not reach
    the learner's output."""
    path = tmp_path / "overflow.toml"
    path.write_text('devices = ["cpu:0"]\n'
                    '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [60000.0, nan]\n'
                    'dtype = "f16"\ndevice = "cpu:0"\n'
                    '[[steps]]\nop = "clone"\ntensor = "x"\nname = "x2"\n'
                    '[[steps]]\nop = "add"\nlhs = "x2"\nrhs = "x"\nname = "y"\n'
                    '[[steps]]\nop = "cast"\ntensor = "y"\ndtype = "i16"\nname = "z"\n'
                    '[[steps]]\nop = "read"\ntensor = "z"\nexpect = [32767, 0]\n'
                    '[[steps]]\nop = "tensor"\nname = "w"\nvalues = [1e30, 3.0]\n'
                    'dtype = "f32"\ndevice = "cpu:0"\n'
                    '[[steps]]\nop = "quantize"\ntensor = "w"\nscheme = "q8s"\nname = "q"\n'
                    '[[steps]]\nop = "dequantize"\ntensor = "q"\ndtype = "f16"\nname = "v"\n'
                    '[[steps]]\nop = "read"\ntensor = "v"\nexpect = [inf, 0.0]\n')
    done = subprocess.run([sys.executable, "-m", "routerlab", "simulate", str(path), "--plain"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stdout + done.stderr and "backend.py" not in done.stderr


def test_trace_shows_each_batch_that_left_a_client_and_why() -> None:
    """`--trace` replays both of the client's queues: CubeCL's closure queue holds the upload and
    the ops until the read pads it (a `drain` event), and only then does the outgoing batch send
    the upload alone and the rest with the read (docs/burn.md section 19)."""
    result = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "shared-add.toml"), "--plain",
                                      "--trace"])
    assert result.exit_code == 0, result.output
    plain = " ".join(result.output.split())
    # a narrow terminal shows the events table sideways: an event per column
    assert re.search(r"event (│ )?drain", plain) and re.search(r"event (│ )?batch", plain)
    assert "cpu:0's runner ran 4 closure(s)" in plain and "left: an upload" in plain
    assert "answer" in plain
    quiet = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "shared-add.toml"), "--plain"])
    assert " batch " not in quiet.output and " drain " not in quiet.output
    doc = json.loads(CliRunner().invoke(app, ["simulate", str(SCENARIOS / "shared-add.toml"),
                                              "--json", "--trace"]).stdout)
    wire = [(s["step"], e["kind"], e["status"]) for s in doc["steps"] for e in s["events"]
            if e["kind"] in ("drain", "batch")]
    read = len(doc["steps"]) - 1  # nothing leaves the client before the read (step 4)
    assert wire == [(read, "drain", "wait"), (read, "batch", "upload"), (read, "batch", "answer")]


def test_a_server_panic_names_the_step_where_burns_user_sees_it() -> None:
    """The step that failed, and the later read where a Burn user would see the panic."""
    path = str(SCENARIOS / "quantized-local.toml")
    args = ["simulate", path, "--policy", "legacy", "--fusion"]
    result = CliRunner().invoke(app, [*args, "--json"])
    failure = json.loads(result.stdout)["failure"]
    assert (failure["step"], failure["seen"]["step"]) == (2, 4)
    text = CliRunner().invoke(app, [*args, "--plain"])
    assert text.exit_code == 1
    bare = CliRunner().invoke(app, ["simulate", path, "--policy", "legacy", "--json"])
    assert "seen" not in json.loads(bare.stdout)["failure"]  # a client-side wall: seen there


def test_a_shipped_scenario_runs_by_its_name_from_any_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`routerlab simulate shared-add` needs no checkout: the scenario ships with the package
    (`routerlab.shipped`); the docs' `scenarios/shared-add.toml` works from any folder too."""
    monkeypatch.chdir(tmp_path)
    by_path = CliRunner().invoke(app, ["simulate", str(SCENARIOS / "shared-add.toml"), "--json"])
    for name in ("shared-add", "shared-add.toml", "scenarios/shared-add.toml"):
        by_name = CliRunner().invoke(app, ["simulate", name, "--json"])
        assert by_name.exit_code == 0, by_name.output
        assert json.loads(by_name.output)["steps"] == json.loads(by_path.output)["steps"]


def test_a_file_in_the_current_folder_wins_over_a_shipped_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shared-add").write_text((SCENARIOS / "move-unique.toml").read_text())
    result = CliRunner().invoke(app, ["simulate", "shared-add", "--plain"])
    assert result.exit_code == 0 and "A unique tensor moves" in result.output


def test_list_names_every_shipped_scenario_with_its_title() -> None:
    result = CliRunner().invoke(app, ["simulate", "--list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    listed = dict(line.split(None, 1) for line in result.output.splitlines())
    shipped = {p.relative_to(SCENARIOS).with_suffix("").as_posix()
               for p in SCENARIOS.rglob("*.toml")}
    assert set(listed) == shipped and "peers/kill-mid-transfer" in listed
    assert listed["shared-add"] == "A float add with a shared input"


def _long_scenario(folder: Path, pairs: int) -> tuple[Path, int, list[int]]:
    """q (a quantized x), then `pairs` clones of it each dropped again, and every 100 a move
    under `reject` that is refused as it expects: the file, its step count, the refused steps."""
    lines = ['title = "A long flow"', 'devices = ["cpu:0", "cpu:1"]', "",
             "[[steps]]", 'op = "tensor"', 'name = "x"', "values = [1.0, 2.0]",
             'device = "cpu:0"', "", "[[steps]]", 'op = "quantize"', 'tensor = "x"',
             'scheme = "q8s"', 'name = "q"']
    steps, refused = 2, []
    for i in range(pairs):
        lines += ["", "[[steps]]", 'op = "clone"', 'tensor = "q"', f'name = "c{i}"',
                  "", "[[steps]]", 'op = "drop"', f'tensor = "c{i}"']
        steps += 2
        if i % 100 == 50:
            lines += ["", "[[steps]]", 'op = "to_device"', 'tensor = "q"', 'device = "cpu:1"',
                      f'name = "m{i}"', 'policy = "reject"', 'expect_error = "TransferRejected"']
            steps += 1
            refused.append(steps)
    path = folder / "long.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, steps, refused


def test_a_long_run_draws_its_ends_and_says_what_it_left_out(tmp_path: Path) -> None:
    """`simulate` of 1,001 steps draws 25 of them and one line naming the 976 between, with the
    refused moves among them (`present/window.py`); `--all` draws all; `--json` holds all."""
    long, total, refused = _long_scenario(tmp_path, 497)
    assert total == 1_001 and len(refused) == 5
    plain = CliRunner().invoke(app, ["simulate", str(long), "--plain"])
    assert plain.exit_code == 0, plain.output
    assert plain.output.count("Registry cpu:0") == 25
    assert "Step 20: " in plain.output and "Step 21: " not in plain.output
    assert "Step 996: " not in plain.output and "Step 997: " in plain.output
    said = " ".join(plain.output.split())
    assert (f"… 976 steps not drawn (steps 21-996); 5 of them raised the error they expected "
            f"(steps {', '.join(map(str, refused))}). --all draws every step; --json holds them "
            "all.") in said
    every = CliRunner().invoke(app, ["simulate", str(long), "--plain", "--all"])
    assert every.exit_code == 0 and every.output.count("Registry cpu:0") == 1_001
    assert "not drawn" not in every.output
    doc = json.loads(CliRunner().invoke(app, ["simulate", str(long), "--json"]).output)
    assert len(doc["steps"]) == 1_001 and [s["step"] for s in doc["steps"] if s["error"]] == refused
