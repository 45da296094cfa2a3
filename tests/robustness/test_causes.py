"""One regression test per cause of a traceback that issue 9 found (44 of 555 hostile inputs,
12 causes), each through the real entry point, `main()`. The exercise-only causes are in
`test_exercise_causes.py`; quantized reshape/swap_dims is fixed (and tested) with the router's
quantized ops, not here."""

from __future__ import annotations

import pytest

from routerlab.core.base.errors import DeviceError, InputError, QuantizationError
from routerlab.core.base.safe_io import parse_json, parse_toml
from routerlab.core.quant import ops as quant_ops

BIG = "1" * 5000  # past int()'s 4300-digit limit
HEAD = 'devices = ["cpu:0"]\n'
X = '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0, 2.0]\ndevice = "cpu:0"\n'


def test_cause_int_digit_limit(invoke, write) -> None:
    """Python's 4300-digit int() limit: device indices, scheme parts, JSON, TOML."""
    cases = {
        "device index": ["transfer", "--values", "[1,2]", "--from", "cpu:" + BIG],
        "store dimension": ["quantize", "--values", "[1,2]", "--scheme",
                            "q4s:store=packed-u32@" + BIG],
        "block extent": ["quantize", "--values", "[1,2]", "--scheme", "q8s:block=" + BIG],
        "JSON": ["quantize", "--values", f"[{BIG}]"],
        "TOML": ["validate", write("big.toml", HEAD + f"x = {BIG}\nsteps = []\n")],
        "TOML device": ["simulate", write("dev.toml", f'devices = ["cpu:{BIG}"]\nsteps = []\n')],
    }
    for name, argv in cases.items():
        outcome = invoke(*argv)
        outcome.assert_refused()
        assert len(outcome.err) < 400, name  # the 5000 digits are not echoed back
    with pytest.raises(DeviceError, match=r"device index: 65,536 is out of range 0\.\.65,535"):
        from routerlab.core.base.devices import parse_device
        parse_device("cpu:65536")


def test_cause_float_overflow_on_huge_json_integers(invoke) -> None:
    """`float(10**400)` raised OverflowError: integers past 64 bits are refused instead."""
    for option in ("--values", "--scales"):
        argv = ["quantize", "--values", "[1, 2]", option, "[" + "9" * 400 + "]"]
        outcome = invoke(*argv)
        outcome.assert_refused()
        assert "integers must fit in 64 bits" in outcome.err
    assert parse_json("[18446744073709551615, -9223372036854775808]", "x") == \
        [2**64 - 1, -(2**63)]
    with pytest.raises(InputError, match="65 bits"):
        parse_json("[18446744073709551616]", "x")


def test_cause_recursion_on_deep_json_and_toml(invoke, write) -> None:
    """`RecursionError` from json and tomllib: nesting past MAX_NESTING is one line."""
    deep_toml = HEAD + "x = " + "[" * 5000 + "]" * 5000 + "\n"
    for argv in (["quantize", "--values", "[" * 100000 + "]" * 100000],
                 ["quantize", "--values", "[1,2]", "--scales", "[" * 100000],
                 ["simulate", write("deep.toml", deep_toml)],
                 ["validate", write("deep2.toml", deep_toml)]):
        outcome = invoke(*argv)
        outcome.assert_refused()
        assert "nested deeper than 64 levels" in outcome.err
    assert parse_json("[" * 64 + "]" * 64, "x") is not None  # the limit itself is taken
    with pytest.raises(InputError, match="nested deeper"):
        parse_json("[" * 65 + "]" * 65, "x")
    with pytest.raises(InputError, match="nested deeper"):
        parse_toml("x = " + "[" * 65 + "]" * 65, "x")


def test_cause_non_utf8_scenario_files(invoke, write) -> None:
    for command in ("simulate", "validate"):
        outcome = invoke(command, write("latin1.toml", 'title = "caf\xe9"\n'.encode("latin-1")))
        outcome.assert_refused()
        assert "not UTF-8 text (byte 0xe9 at offset 12)" in outcome.err


def test_cause_numpy_dimension_limit(invoke, write) -> None:
    """numpy stops at 64 dims (32 before numpy 2) with a raw ValueError; RouterLab at 32."""
    dims = ",".join(["1"] * 65)
    reshape = (HEAD + '[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1.0]\ndevice = "cpu:0"\n'
               f'[[steps]]\nop = "reshape"\ntensor = "x"\nname = "y"\nshape = [{dims}]\n')
    nested = (HEAD + '[[steps]]\nop = "tensor"\nname = "x"\nvalues = ' + "[" * 40 + "1.0" +
              "]" * 40 + '\ndevice = "cpu:0"\n')
    for argv in (["quantize", "--random", dims], ["quantize", "--values", "[1]", "--shape", dims],
                 ["transfer", "--random", dims], ["compare", "--random", dims],
                 ["simulate", write("reshape.toml", reshape)],
                 ["simulate", write("nested.toml", nested)]):
        outcome = invoke(*argv)
        outcome.assert_refused()
        assert "takes at most 32" in outcome.err


def test_cause_unbounded_reads_of_dev_zero_and_fifos(invoke, fifo) -> None:
    """`read_text` read /dev/zero until memory ran out, and blocked forever on a FIFO."""
    for path in ("/dev/zero", fifo):
        for command in ("simulate", "validate"):
            outcome = invoke(command, path)
            outcome.assert_refused()
            assert "not a regular file" in outcome.err


def test_cause_rich_markup_in_scenario_titles(invoke, write) -> None:
    """A title with an unbalanced closing tag raised rich's MarkupError; any markup is text."""
    for title in ("[/nope]", "[bold red]loud[/]", "[link=file:///etc/passwd]x[/link]"):
        path = write("markup.toml", f'title = "{title}"\n' + HEAD + X)
        outcome = invoke("simulate", path)
        assert outcome.code == 0 and outcome.err == "", outcome.err
        assert outcome.out.splitlines()[0] == title  # shown as written, not interpreted


def test_cause_memory_error(invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `MemoryError` the limits did not foresee is one line, not a traceback."""
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(quant_ops, "quantize_dynamic", exhausted)
    monkeypatch.setattr("routerlab.core.quant.quantize_dynamic", exhausted)  # the public name
    monkeypatch.setattr("routerlab.core.quant.report.quantize_dynamic", exhausted)  # the CLI's
    outcome = invoke("quantize", "--values", "[1, 2]")
    outcome.assert_refused()
    assert "out of memory" in outcome.err


def test_scheme_parts_never_reach_int(invoke) -> None:
    """Digits int() does not take (superscripts pass str.isdigit) are refused by name."""
    for scheme in ("q4s:store=packed-u32@\u00b2", "q8s:block=\u0661\u0662"):
        outcome = invoke("quantize", "--values", "[1,2]", "--scheme", scheme)
        outcome.assert_refused()
    with pytest.raises(QuantizationError, match="store dimension"):
        from routerlab.core.quant import parse_scheme
        parse_scheme("q4s:store=packed-u32@\u00b2")


@pytest.mark.parametrize("layout_op", ['op = "reshape"\ntensor = "q"\nshape = [4, 4]\nname = "r"\n',
                                       'op = "swap_dims"\ntensor = "q"\ndim1 = 0\ndim2 = 0\n'
                                       'name = "r"\n'])
def test_cause_quantized_reshape_and_swap_dims(invoke, write, layout_op: str) -> None:
    """A layout op on a quantized tensor was an `AttributeError`; it is now the router's own
    `unimplemented!()` (crates/burn-router/src/ops/qtensor.rs:41-54), raised on the client, and
    validate predicts it."""
    path = write("layout.toml", 'devices = ["cpu:0"]\n[[steps]]\nop = "tensor"\nname = "x"\n'
                 f'values = {[float(i) for i in range(16)]}\ndevice = "cpu:0"\ndtype = "f32"\n'
                 '[[steps]]\nop = "quantize"\ntensor = "x"\nscheme = "q8s"\nname = "q"\n'
                 f'[[steps]]\n{layout_op}')
    simulated = invoke("simulate", str(path))
    simulated.assert_refused()
    assert "step 3 (" in simulated.err and "BurnUnimplemented: not implemented" in simulated.err
    validated = invoke("validate", str(path), "--plain")  # a report, not an error line
    assert validated.code == 1 and "Traceback" not in validated.err + validated.out
    assert "step 3 (" in validated.out and "would fail: BurnUnimplemented" in validated.out
