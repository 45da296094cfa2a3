"""Scenario files: validated fully before running, played step by step as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from routerlab.core import ScenarioError
from routerlab.core.scenario import (
    BUILTIN,
    Field,
    ScenarioRunError,
    StepKind,
    load_scenario,
    parse_scenario,
    run_scenario,
    validate_flow,
)

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
HEAD = 'devices = ["cpu:0", "cpu:1", "peer2/cpu:0"]\n'
MAKE_X = '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0, 2.0]\ndevice = "cpu:0"\n'


def ids(result, device: str) -> list[int]:  # type: ignore[no-untyped-def]
    return [row[0] for row in result.registries[device].rows]


def test_shared_add_frees_x_without_a_drop() -> None:
    results = list(run_scenario(load_scenario(SCENARIOS / "shared-add.toml")))
    assert [ids(r, "cpu:0") for r in results] == [[0], [0], [1], [1], []]
    add = results[2]
    assert [(e.kind, e.status) for e in add.events if e.kind == "get"] == [
        ("get", "ReadOnly"), ("get", "ReadWrite")]
    assert [e.kind for r in results[:4] for e in r.events].count("drop") == 0


def test_move_unique_moves_then_shared_copies() -> None:
    results = list(run_scenario(load_scenario(SCENARIOS / "move-unique.toml")))
    assert (ids(results[1], "cpu:0"), ids(results[1], "cpu:1")) == ([], [1])
    assert (ids(results[4], "cpu:0"), ids(results[4], "cpu:1")) == ([2], [1])


def test_cross_peer_goes_through_bytes() -> None:
    results = list(run_scenario(load_scenario(SCENARIOS / "cross-peer-bytes.toml")))
    move = results[2]
    kinds = {e.kind: e.nbytes for e in move.events}
    assert kinds["publish"] == 16 and kinds["download"] == 16 and "expose" not in kinds
    assert ids(move, "cpu:0") == [] and ids(move, "peer2/cpu:0") == [2]


@pytest.mark.parametrize(("text", "message"), [
    ("devices = [", r"not valid TOML"),
    ("steps = []\n", r"field 'devices': missing"),
    (HEAD + '[[steps]]\nop = "explode"\n', r"step 1: field 'op': unknown step kind 'explode'"),
    (HEAD + '[[steps]]\nop = "tensor"\nname = "x"\ndevice = "cpu:0"\n',
     r"step 1 \(tensor\): field 'values': missing"),
    (HEAD + '[[steps]]\nop = "tensor"\nname = "x"\nvalues = "one"\ndevice = "cpu:0"\n',
     r"step 1 \(tensor\): field 'values': expected list or int or float or bool, got str"),
    (HEAD + '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [[1], [2, 3]]\ndevice = "cpu:0"\n',
     r"field 'values': expected a number or a non-empty, rectangular"),
    (HEAD + MAKE_X + '[[steps]]\nop = "add"\nlhs = "x"\nrhs = "z"\nname = "y"\n',
     r"step 2 \(add\): field 'rhs': unknown tensor label 'z'"),
    (HEAD + MAKE_X + '[[steps]]\nop = "reshape"\ntensor = "x"\nshape = [2, -1]\nname = "y"\n',
     r"step 2 \(reshape\): field 'shape': expected a list of non-negative integers"),
    (HEAD + MAKE_X + '[[steps]]\nop = "to_device"\ntensor = "x"\ndevice = "gpu0"\nname = "y"\n',
     r"step 2 \(to_device\): field 'device': malformed device 'gpu0'"),
    (HEAD + MAKE_X + '[[steps]]\nop = "cast"\ntensor = "x"\ndtype = "f8"\nname = "y"\n',
     r"step 2 \(cast\): field 'dtype': unknown dtype 'f8'"),
    (HEAD + MAKE_X + '[[steps]]\nop = "drop"\ntensor = "x"\ncolour = "red"\n',
     r"step 2 \(drop\): field 'colour': unknown field"),
    (HEAD + MAKE_X + '[[steps]]\nop = "read"\ntensor = "x"\nconsume = 1\n',
     r"step 2 \(read\): field 'consume': expected bool, got int"),
    (HEAD + '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0]\ndevice = "cpu:7"\n',
     r"step 1 \(tensor\): field 'device': device 'cpu:7' is not in the file's 'devices' "
     r"\(cpu:0, cpu:1, peer2/cpu:0\)"),
    (HEAD + MAKE_X + '[[steps]]\nop = "to_device"\ntensor = "x"\ndevice = "peer3/cpu:0"\n'
     'name = "y"\n', r"step 2 \(to_device\): field 'device': device 'peer3/cpu:0' is not in"),
    ('devices = ["cpu:0", "gpu0"]\nsteps = []\n',
     r"^bad.toml: field 'devices': malformed device 'gpu0'"),
    ('devices = ["cpu:0@tpu"]\nsteps = []\n', r"^bad.toml: field 'devices': 'cpu:0@tpu': "),
    ('arrival = "sideways"\n' + HEAD + 'steps = []\n',
     r"^bad.toml: field 'arrival': unknown arrival order 'sideways'"),
])
def test_bad_files_are_refused_with_file_step_and_field(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as info:
        parse_scenario(text, "bad.toml")
    assert str(info.value).startswith("bad.toml")


def test_a_failing_step_names_the_step() -> None:
    scenario = parse_scenario(HEAD + MAKE_X + '[[steps]]\nop = "read"\ntensor = "x"\n'
                              'expect = [9.0, 9.0]\n', "s.toml")
    with pytest.raises(ScenarioError, match=r"^s.toml: step 2 \(read\) failed: .*expected"):
        list(run_scenario(scenario))


def test_expect_error_lets_the_run_continue() -> None:
    text = ('legacy = true\n' + HEAD + '[[steps]]\nop = "tensor"\nname = "u"\nvalues = [1, 2]\n'
            'dtype = "u8"\ndevice = "cpu:0"\n'
            '[[steps]]\nop = "read"\ntensor = "u"\nexpect_error = "BurnUnimplemented"\n'
            '[[steps]]\nop = "tensor"\nname = "f"\nvalues = [1.0]\ndevice = "cpu:1"\n')
    results = list(run_scenario(parse_scenario(text)))
    assert results[1].error is not None and results[1].error.startswith("BurnUnimplemented")
    assert ids(results[2], "cpu:1") == [1]
    unexpected = parse_scenario(HEAD + MAKE_X + '[[steps]]\nop = "read"\ntensor = "x"\n'
                                'expect_error = "boom"\n')
    with pytest.raises(ScenarioError, match="expected an error matching 'boom'"):
        list(run_scenario(unexpected))


def test_a_label_whose_step_failed_as_expected_is_one_clear_error() -> None:
    """Validation accepts the label (the step defines it); running finds it was never made."""
    text = HEAD + MAKE_X + ('[[steps]]\nop = "reshape"\ntensor = "x"\nshape = [3]\nname = "y"\n'
                            'expect_error = "ShapeError"\n'
                            '[[steps]]\nop = "drop"\ntensor = "y"\n')
    with pytest.raises(ScenarioError, match=r"step 3 \(drop\) failed: UnknownTensorError: "
                                            r"tensor 'y' does not exist"):
        list(run_scenario(parse_scenario(text)))


def test_new_step_kinds_plug_in() -> None:
    def run_double(ctx, step):  # type: ignore[no-untyped-def]
        x = ctx.tensor(step["tensor"])
        ctx.tensors[step["name"]] = ctx.runtime.add(x, ctx.runtime.clone(x))
        return "doubled"

    kinds = BUILTIN.with_kinds(StepKind("double", {"tensor": Field((str,)),
                                                   "name": Field((str,))},
                                        run_double, reads=("tensor",), defines="name"))
    text = HEAD + MAKE_X + ('[[steps]]\nop = "double"\ntensor = "x"\nname = "d"\n'
                            '[[steps]]\nop = "read"\ntensor = "d"\nexpect = [2.0, 4.0]\n')
    assert [r.description for r in run_scenario(parse_scenario(text, kinds=kinds))][1] == \
        "doubled"
    with pytest.raises(ScenarioError, match="unknown step kind 'double'"):  # nothing global
        parse_scenario(text)
    assert validate_flow(parse_scenario(text, kinds=kinds)).ok  # rehearsed like the built-ins


def test_results_are_json_ready() -> None:
    import json
    result = next(iter(run_scenario(load_scenario(SCENARIOS / "shared-add.toml"))))
    assert json.loads(json.dumps(result.to_dict()))["registries"]["cpu:0"]["rows"][0][0] == 0


def test_a_device_outside_devices_is_refused_before_any_step_runs() -> None:
    """Refused by loading (step 3 names it; steps 1 and 2 never run), not by step 3 at run
    time: the same device written with its default profile is the same device."""
    text = (HEAD + MAKE_X + '[[steps]]\nop = "to_device"\ntensor = "x"\ndevice = "cpu:1@flex"\n'
            'name = "y"\n[[steps]]\nop = "to_device"\ntensor = "y"\ndevice = "cuda:0"\n'
            'name = "z"\n')
    with pytest.raises(ScenarioError, match=r"^s.toml: step 3 \(to_device\): field 'device': "
                                            r"device 'cuda:0' is not in the file's 'devices'"):
        parse_scenario(text, "s.toml")


def test_top_level_and_step_arrival_are_read_alike() -> None:
    """Both go through `Arrival.parse`: any case, spaces ignored, stored canonically."""
    text = ('arrival = " Target-First"\n' + HEAD + MAKE_X +
            '[[steps]]\nop = "to_device"\ntensor = "x"\ndevice = "cpu:1"\nname = "y"\n'
            'arrival = "SOURCE-first"\n')
    scenario = parse_scenario(text)
    assert scenario.arrival == "target-first"
    assert [r.step for r in run_scenario(scenario)] == [1, 2]


def test_a_plugin_device_field_is_checked_against_devices() -> None:
    kinds = BUILTIN.with_kinds(StepKind("touch", {"device": Field((str,), device=True)},
                                        lambda ctx, step: "touched"))
    assert parse_scenario(HEAD + '[[steps]]\nop = "touch"\ndevice = "cpu:1"\n', kinds=kinds)
    with pytest.raises(ScenarioError, match=r"step 1 \(touch\): field 'device': malformed"):
        parse_scenario(HEAD + '[[steps]]\nop = "touch"\ndevice = "gpu"\n', kinds=kinds)
    with pytest.raises(ScenarioError, match=r"step 1 \(touch\): field 'device': device "
                                            r"'cpu:5' is not in"):
        parse_scenario(HEAD + '[[steps]]\nop = "touch"\ndevice = "cpu:5"\n', kinds=kinds)


def test_a_failed_run_carries_its_step_op_and_error() -> None:
    scenario = parse_scenario(HEAD + MAKE_X + '[[steps]]\nop = "read"\ntensor = "x"\n'
                              'expect = [9.0, 9.0]\n', "s.toml")
    with pytest.raises(ScenarioRunError) as info:
        list(run_scenario(scenario))
    assert info.value.to_dict() == {"step": 2, "op": "read", "error": "ScenarioError",
                                    "message": "read x: got [1.0, 2.0], expected [9.0, 9.0]"}
