"""Bounded resources, said up front (issue 9, item 5): every limit of `routerlab.core.base.limits`
refuses before it allocates, names the size and the limit, and is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from routerlab.core import Runtime
from routerlab.core.base import limits
from routerlab.core.base.errors import InputError, LimitError, ScenarioError, ShapeError
from routerlab.core.base.safe_io import read_bytes, read_text
from routerlab.core.scenario import load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parents[2]
HEAD = 'devices = ["cpu:0"]\n'


def test_huge_hops_are_refused_before_the_first_move(invoke,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_runtime(*_args: object, **_kw: object) -> None:
        raise AssertionError("a runtime was made for the refused hops")

    monkeypatch.setattr(Runtime, "__init__", no_runtime)  # no device, so no move, before it
    for command in ("transfer", "compare"):
        outcome = invoke(command, "--values", "[1, 2]", "--hops", "9223372036854775808")
        outcome.assert_refused()
        assert f"between 1 and {limits.MAX_HOPS}" in outcome.err


def test_work_that_would_not_fit_in_memory_is_refused_naming_size_and_limit(
        invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "available_memory", lambda: 100 << 20)  # 100 MiB free
    outcome = invoke("transfer", "--random", "4096,4096")  # 64 MiB of f32, ~10x at the peak
    outcome.assert_refused()
    assert re.search(r"transfer of shape \[4096, 4096\] .* needs about 640\.0 MiB of memory; "
                     r"this machine has 100\.0 MiB available", outcome.err), outcome.err
    rt = Runtime(["cpu:0"])
    x = rt.tensor([[1.0]] * 20000, "cpu:0", "f32")
    y = rt.tensor([[1.0] * 20000], "cpu:0", "f32")
    with pytest.raises(LimitError, match=r"the result \[20000, 20000\] needs about 1\.5 GiB"):
        rt.matmul(x, y)  # refused on the client, before a session runs
    assert x.check() is None and rt.registries()["cpu:0"].rows  # nothing consumed


def test_a_result_past_the_element_limit_is_a_shape_error_in_a_scenario(tmp_path: Path) -> None:
    n = 50000  # (n, 1) @ (1, n): 2.5e9 elements from 100 000 typed ones
    column = "[" + ", ".join(["[1.0]"] * n) + "]"
    row = "[[" + ", ".join(["1.0"] * n) + "]]"
    text = (HEAD + f'[[steps]]\nop = "tensor"\nname = "a"\nvalues = {column}\ndevice = "cpu:0"\n'
            f'[[steps]]\nop = "tensor"\nname = "b"\nvalues = {row}\ndevice = "cpu:0"\n'
            '[[steps]]\nop = "matmul"\nlhs = "a"\nrhs = "b"\nname = "c"\n')
    from routerlab.core.scenario import run_scenario
    with pytest.raises(ScenarioError, match=r"2,500,000,000 elements; RouterLab takes at most "
                                            r"2,147,483,648"):
        list(run_scenario(parse_scenario(text)))
    with pytest.raises(ShapeError, match="at most 32"):
        rt = Runtime(["cpu:0"])
        rt.reshape(rt.tensor([1.0], "cpu:0", "f32"), (1,) * 33)


def test_json_output_above_the_limit_is_refused_with_a_hint(
        invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    """`quantize --random 8000,8000 --json` was killed at 18.7 GB; now refused at once."""
    with monkeypatch.context() as patched:  # refused before anything is quantized
        patched.setattr("routerlab.core.quant.report.quantize_dynamic",
                        lambda *_a, **_k: pytest.fail("quantized before the refusal"))
        outcome = invoke("quantize", "--random", "8000,8000", "--json")
    outcome.assert_refused()
    assert "--json output would be about" in outcome.err and "add --summary" in outcome.err
    assert outcome.out == ""
    summary = invoke("quantize", "--random", "1000,1000", "--json", "--summary")
    document = json.loads(summary.out)
    assert summary.code == 0 and document["shape"] == [1000, 1000] and "q" not in document
    full = json.loads(invoke("quantize", "--values", "[1, -1]", "--json").out)
    assert set(full) - set(document) == {"input", "q", "scales", "dequant", "bytes"}


def test_print_json_is_capped_while_it_encodes(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from routerlab.cli.render import print_json

    monkeypatch.setattr(limits, "JSON_OUTPUT_MAX_BYTES", 1000)
    print_json({"small": [1, 2]})
    assert json.loads(capsys.readouterr().out) == {"small": [1, 2]}
    with pytest.raises(LimitError, match=r"passes 1000 B, the limit: try less"):
        print_json({"big": list(range(1000))}, hint="try less")
    assert capsys.readouterr().out == ""  # nothing half-written


def test_files_that_are_not_regular_are_refused(fifo: str, tmp_path: Path) -> None:
    for path in (fifo, "/dev/zero", str(tmp_path)):
        with pytest.raises(InputError, match="not a regular file"):
            read_bytes(path)
    with pytest.raises(InputError, match="cannot read file: No such file"):
        read_text(tmp_path / "absent.toml")


def test_scenario_files_have_a_size_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(HEAD + "#" * limits.MAX_SCENARIO_BYTES)
    with pytest.raises(ScenarioError, match=r"scenario larger than 1\.0 MiB"):
        load_scenario(path)
    path.write_text(HEAD + 'steps = []\n# ' + "x" * (limits.MAX_SCENARIO_BYTES - 40))
    assert load_scenario(path).devices == ("cpu:0",)  # just under the cap: read


def test_scenario_text_cannot_clear_or_spoof_the_terminal(invoke, write) -> None:
    title = "\\u001b[2J\\u001b[Hfake prompt$ \\r\\u202eevil"
    note = "\\u001b]0;pwned\\u0007[red]x[/red]"
    path = write("spoof.toml", f'title = "{title}"\ndescription = "{note}"\n' + HEAD +
                 '[[steps]]\nop = "tensor"\nname = "x\\u001b[31m"\nvalues = [1.0]\n'
                 f'device = "cpu:0"\nnote = "{note}"\n')
    for command in ("simulate", "validate"):
        outcome = invoke(command, path)
        assert outcome.code == 0, outcome.err
        assert "\x1b" not in outcome.out and "\r" not in outcome.out and "\u202e" not in outcome.out
    shown = invoke("simulate", path).out
    assert "\\x1b[2J\\x1b[Hfake prompt$ \\r\\u202eevil" in shown and "[red]x[/red]" in shown


def test_error_lines_are_one_escaped_line(invoke) -> None:
    outcome = invoke("transfer", "--values", "[1]", "--from", "cpu:0\x1b[2J\nspoof")
    outcome.assert_refused()
    assert "\x1b" not in outcome.err and "\\x1b[2J" in outcome.err


def test_plan_transfer_creates_no_device() -> None:
    rt = Runtime()
    x = rt.quantize(rt.tensor([1.0, -1.0], "cpu:0", "f32"), "q8s")
    for device in ("cpu:1", "peer2/cpu:0", "peer3/cpu:2@ndarray"):
        assert rt.plan_transfer(x, device).target == rt.plan_transfer(x, device).target
    assert [str(d) for d in rt.devices] == ["cpu:0"]


def test_a_progress_bar_moves_within_one_long_hop(monkeypatch: pytest.MonkeyPatch) -> None:
    from routerlab.teaching.measure import measure_transfer

    seen: list[tuple[int, int, str]] = []
    measure_transfer([1.0, -1.0], "q8s", hops=1, progress=lambda *a: seen.append(a))
    assert [done for done, _, _ in seen] == [0, 0, 1, 2]  # before, at the move, measuring, done


def test_every_limit_is_documented_with_its_value() -> None:
    doc = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    for name in ("MAX_ELEMENTS", "MAX_DIMS", "MAX_NESTING", "MAX_INT_BITS", "MAX_DEVICE_INDEX",
                 "MAX_HOPS", "MAX_SCENARIO_BYTES", "MAX_USER_FILE_BYTES",
                 "JSON_OUTPUT_MAX_BYTES"):
        value = getattr(limits, name)
        assert f"`{name}`" in doc and f"{value:,}" in doc, name


def test_the_cli_help_states_the_limits(invoke) -> None:
    assert "1 to 1000" in invoke("transfer", "--help").out
    assert str(limits.MAX_HOPS) in invoke("compare", "--help").out
    assert "64 MiB" in invoke("quantize", "--help").out and "--summary" in \
        invoke("quantize", "--help").out


def test_the_headline_commands_in_a_real_process(process, fifo: str) -> None:
    """As a user types them: each answered in one line, at once, in a child process."""
    for argv in (["transfer", "--values", "[1, 2]", "--hops", "9223372036854775808"],
                 ["quantize", "--random", "8000,8000", "--json"],
                 ["simulate", fifo], ["validate", "/dev/zero"],
                 ["transfer", "--hops", "-1", "--values", "[1]"]):
        outcome = process(argv)
        outcome.assert_refused()
        assert outcome.out == ""
