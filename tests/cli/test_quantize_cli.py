"""`routerlab quantize`: the contract of its options and its `--json` object, and one-line errors.

The numbers are Burn's (burn-backend-tests/tests/tensor/float/quantization/ops/quantize.rs
should_support_quantize_symmetric_int8 and should_support_quantize_dynamic_int8; the UE4M3 byte
layout from burn-std/src/tensor/quantization.rs should_pack_unpack_ue4m3_block_scales).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from routerlab.cli import app as app_module
from routerlab.cli.app import app

ROUTERLAB = Path(sys.executable).with_name("routerlab")
REQUIRED = {"q", "scales", "global", "dequant", "scheme", "bytes", "max_abs_error"}


def _json(*args: str) -> dict:
    result = CliRunner().invoke(app, ["quantize", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_static_scale_json_contract() -> None:
    out = _json(
        "--values",
        "[-1.8,-1.0,0,0.5]",
        "--shape",
        "4",
        "--scheme",
        "q8s",
        "--scales",
        "[0.014173228]",
        "--backend",
        "ndarray",
    )
    assert REQUIRED <= out.keys()
    assert out["q"] == [-127, -71, 0, 35]
    assert out["scales"] == [float(np.float32(0.014173228))]
    assert out["global"] is None and out["scheme"] == "q8s:store=native"
    assert (
        out["bytes"]
        == bytes([0x81, 0xB9, 0x00, 0x23]).hex() + np.float32(0.014173228).tobytes().hex()
    )
    np.testing.assert_allclose(out["dequant"], [-1.8, -1.0062993, 0.0, 0.496063], rtol=1e-6)
    assert out["max_abs_error"] == pytest.approx(0.0062993, rel=1e-4)


@pytest.mark.parametrize("backend", ["ndarray", "flex", "cubecl"])
def test_dynamic_calibration_on_every_backend(backend: str) -> None:
    out = _json("--values", "[5,0,4,-12.7]", "--scheme", "q8s", "--backend", backend)
    assert out["q"] == [50, 0, 40, -127]
    assert out["scales"] == [float(np.float32(12.7) / np.float32(127))]
    expected_store = "packed-u32" if backend == "cubecl" else "native"
    assert out["scheme"] == f"q8s:store={expected_store}"


def test_blocks_two_level_and_absmean() -> None:
    out = _json(
        "--random", "2,32", "--seed", "4", "--scheme", "q8s:block=2x16:scale=ue4m3:global=f32"
    )
    assert out["scheme"] == "q8s:block=2x16:scale=ue4m3:global=f32:store=native"
    assert len(out["scales"]) == 2 and max(out["scales"]) == 448 and out["global"] > 0
    assert len(bytes.fromhex(out["bytes"])) == 64 + 2 + 4
    assert len(out["q"]) == len(out["dequant"]) == 64
    ternary = _json("--values", "[-0.9,-0.3,0,0.6]", "--scheme", "q2s", "--calibration", "absmean")
    assert ternary["q"] == [-1, -1, 0, 1] and ternary["scales"] == [float(np.float32(0.45000002))]


def test_packed_bytes_and_logical_q() -> None:
    """cubecl packs Q4 into u32 words; `q` stays the logical values in row-major order."""
    out = _json(
        "--values",
        json.dumps(list(range(16))),
        "--shape",
        "2,8",
        "--scheme",
        "q4s",
        "--backend",
        "cubecl",
    )
    assert out["scheme"] == "q4s:store=packed-u32"
    assert len(bytes.fromhex(out["bytes"])) == 2 * 4 + 4
    assert out["q"] == [round(v * 7 / 15 + 1e-9) for v in range(16)]


def test_two_level_static_scales_with_global() -> None:
    out = _json(
        "--values",
        "[0.5,1,2,4]",
        "--scheme",
        "q8s:block=2:scale=ue4m3:global=f32",
        "--scales",
        "[112,448]",
        "--global",
        str(4 / 127 / 448),
        "--backend",
        "ndarray",
    )
    assert out["scales"] == [112.0, 448.0] and out["global"] == float(np.float32(4 / 127 / 448))


def test_table_shows_the_same_numbers() -> None:
    result = CliRunner().invoke(
        app,
        [
            "quantize",
            "--values",
            "[-1.8,-1.0,0,0.5]",
            "--scheme",
            "q8s",
            "--scales",
            "[0.014173228]",
            "--plain",
        ],
    )
    assert result.exit_code == 0, result.output
    for text in (
        "q8s:store=native",
        "-127",
        "-71",
        "0.496063",
        "static scales",
        "0.0141732",
        "0.00629926",
        "81b90023",
    ):
        assert text in result.output



@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--values", "[1,2,"], "--values is not JSON"),
        (["--values", '["a"]'], "flat JSON list of numbers"),
        (["--values", "[1,2,3]", "--shape", "2,2"], "3 values do not fill shape [2, 2]"),
        (
            ["--values", "[1,2,3,4]", "--scheme", "q8s:colour=red"],
            "unknown scheme part 'colour=red'",
        ),
        # the generic compute_range refuses a partial block (Flex's own quantize takes one)
        (["--values", "[1,2,3]", "--scheme", "q8s:block=2", "--backend", "ndarray"],
         "not a whole number of [2] blocks"),
        (
            ["--values", "[1,2,3,4,5,6]", "--scheme", "q4s", "--backend", "cubecl"],
            "Can't store in u32",
        ),
        (["--values", "[1,NaN,3]"], "NaN or infinite"),
        (["--values", "[1,NaN,3]", "--scales", "[0.1]"], "NaN or infinite"),
        (["--values", "[1,Infinity]"], "NaN or infinite"),
        (["--values", "[1,2]", "--scales", "[0.1,0.2]"], "takes 1 scale"),
        (["--values", "[1,2]", "--backend", "tpu"], "unknown backend profile 'tpu'"),
        (["--values", "[1,2]", "--calibration", "median"], "unknown calibration 'median'"),
        (["--values", "[1,2]", "--random", "2"], "either --values or --random"),
        ([], "give the tensor with --values"),
        (["--random", "4", "--seed", "-1"], "--seed must be >= 0"),
        (["--random", "100000,100000"], "RouterLab takes at most 2,147,483,648"),
        (["--values", "[1]", "--shape", "65536,65536"], "RouterLab takes at most"),
        (["--values", "[1e39]"], "beyond f32's range"),
        (["--values", "[1,2]", "--scales", "[1e39]"], "scales must be finite in f32"),
        (
            ["--values", "[1,2]", "--scheme", "q8s:block=2:scale=ue4m3:global=f32",
             "--scales", "[1]", "--global", "1e39"],
            "global scale must be finite in f32",
        ),
        (["--values", "[1,2]", "--scheme", "e5m2"], "E5M2 values are part of Burn's scheme"),
        (["--values", "[1,2]", "--scheme", "q4s:store=packed-native", "--backend", "ndarray"],
         "not implemented: Quantization not supported for scheme QuantScheme { value: Q4S, "
         "store: PackedNative(0)"),
        (["--values", "[1,2,3,4]", "--scheme", "q4s", "--backend", "ndarray"],
         "not implemented: Quantization not supported for scheme QuantScheme { value: Q4S, "
         "store: Native, mode: Symmetric, tensor: None, block: None }"),
        (["--values", "[1,2]", "--scheme", "q4s:store=packed-native", "--backend", "cubecl"],
         "Q4S doesn't support native packing"),
    ],
)
def test_bad_input_is_one_line_with_its_exit_code(
    args: list[str],
    message: str,
    expected_exit: Callable[[str], int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "argv", ["routerlab", "quantize", *args])
    with pytest.raises(SystemExit) as done:
        app_module.main()
    assert done.value.code == expected_exit(message)
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_console_script_reports_errors_in_one_line() -> None:
    result = subprocess.run(
        [str(ROUTERLAB), "quantize", "--values", "[1,2,3]", "--scheme", "q8s:block=2",
         "--backend", "ndarray"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: tensor shape [3] is not a whole number of [2] blocks")
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--values", "[1e39]"], "--values holds NaN or infinite values"),
        (["--values", "[1,2]", "--scales", "[1e39]"], "scales must be finite in f32"),
        (["--values", "[1,2]", "--scheme", "q8s:block=2:scale=ue4m3:global=f32",
          "--scales", "[1]", "--global", "1e39"], "the global scale must be finite in f32"),
    ],
)
def test_values_beyond_f32_are_refused_without_a_warning(
    args: list[str], message: str, expected_exit: Callable[[str], int]
) -> None:
    """The f64 -> f32 cast overflows to inf; numpy's RuntimeWarning must not print before the
    error (in-process, pytest would catch the warning, so this runs the console script)."""
    result = subprocess.run(
        [str(ROUTERLAB), "quantize", *args], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == expected_exit(message) and result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr, result.stderr


def test_packed_native_store_on_flex_is_stored_native() -> None:
    """Burn's Flex rewrites any store to Native when quantizing (burn-flex ops/qtensor.rs:141,
    200): a `packed-native` request comes back `store=native`, not refused."""
    out = _json("--values", "[1,2]", "--scheme", "q4s:store=packed-native", "--backend", "flex")
    assert out["scheme"] == "q4s:store=native" and len(bytes.fromhex(out["bytes"])) == 2 + 4


def test_command_module_imports_no_numpy() -> None:
    code = "import sys; import routerlab.cli.commands.quantize; print('numpy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False", result.stderr
