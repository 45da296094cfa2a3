"""Checks of the quantization exercises: scales, their round-up, packing, the byte layout.

The student's function runs where the model's own function would: their scale drives the model's
static `quantize`, their round-up is patched into the model's quantizer, their packed words are
read by the model's `unpack_u32`; hidden seeded cases compare them with the model (the reference
implementation).
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from routerlab.core.errors import QuantizationError
from routerlab.core.profiles import Profile
from routerlab.core.quant import (
    Calibration,
    ScaleDtype,
    compute_q_params,
    compute_range,
    parse_scheme,
    quantize,
    quantize_dynamic,
    unpack_u32,
)
from routerlab.core.quant import pack_u32 as model_pack_u32
from routerlab.core.quant import round_up as model_round_up
from routerlab.exercises.checks.base import (
    CheckFailure,
    Part,
    PredictSuite,
    Submission,
    Suite,
    compare_cases,
    expect_equal,
    installed,
)

F32 = np.float32
VALUES = ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f")

# --- quant-1: the scale of a tensor --------------------------------------------------------------

scales = Suite("quant-1")


def model_scale(values: list[float], value: str) -> float:
    """The model's MinMax per-tensor scale (compute_range -> compute_q_params)."""
    scheme = parse_scheme(value)
    low, high = compute_range(np.array(values, dtype=F32), scheme, Calibration.MINMAX)
    return float(compute_q_params(scheme, low, high).scales.reshape(-1)[0])


def _close(got: Any, want: float) -> bool:
    try:
        return math.isclose(float(got), want, rel_tol=1e-6, abs_tol=1e-30)
    except (TypeError, ValueError):
        return False


def _expect_scale(sub: Submission, values: list[float], value: str, why: str) -> float:
    got = sub.function("compute_scale")(list(values), value)
    want = model_scale(values, value)
    if not _close(got, want):
        raise CheckFailure(f"compute_scale({values}, {value!r}): {why}", expected=f"{want:.9g}",
                           got=repr(got), hint=2)
    return float(got)


@scales.visible("Burn's test: [-1.8, -1.0, 0, 0.5] in Q8S has scale 1.8 / 127", hint=2)
def _(sub: Submission) -> None:
    _expect_scale(sub, [-1.8, -1.0, 0.0, 0.5], "q8s", "alpha = max(|min|, |max|) = 1.8")


@scales.visible("the larger magnitude wins, whatever its sign: [5, 0, 4, -12.7] in Q8S", hint=1)
def _(sub: Submission) -> None:
    _expect_scale(sub, [5.0, 0.0, 4.0, -12.7], "q8s", "alpha is 12.7 here, from the minimum")


@scales.visible("an F value uses its full, asymmetric range: Q8F is 2*alpha/255, Q2F 2*alpha/3",
                hint=2)
def _(sub: Submission) -> None:
    _expect_scale(sub, [-0.9, 0.5, 0.2], "q2f", "Q2F's range is [-2, 1], so b - a = 3")
    _expect_scale(sub, [-1.0, 3.0], "q8f", "Q8F's range is [-128, 127], so b - a = 255")


@scales.visible("your scale drives the model's static quantize to Burn's q values", hint=2)
def _(sub: Submission) -> None:
    x = [-1.8, -1.0, 0.0, 0.5]
    scale = _expect_scale(sub, x, "q8s", "the scale of Burn's test vector")
    q = quantize(np.array(x, dtype=F32), "q8s", [scale], profile=Profile.NDARRAY).q()
    expect_equal("q values of quantize(x, q8s, [your scale]) on the ndarray profile",
                 [-127, -71, 0, 35], q.tolist())
    arange = np.arange(128, dtype=F32)
    scale = _expect_scale(sub, arange.tolist(), "q4s", "Q4S of arange(0..128) is 254/14")
    # Burn's test reference is NdArray built with export_tests, the only build with a Q4 arm.
    q = quantize(arange, "q4s", [scale], profile=Profile.NDARRAY_TESTS).q()
    want = [int(math.floor(7 * i / 127 + 0.5)) for i in range(128)]
    expect_equal("Q4S q values of arange(0..128) with your scale: round(7i/127)", want, q.tolist())


@scales.hidden("300 seeded random tensors and value types, against the model")
def _(sub: Submission) -> None:
    rng = random.Random(1144)
    cases = []
    for _ in range(300):
        spread = 10 ** rng.uniform(-4, 4)
        values = [float(F32(rng.gauss(rng.uniform(-1, 1), 1) * spread))
                  for _ in range(rng.randint(1, 50))]
        cases.append((values, rng.choice(VALUES)))
    compare_cases(lambda v, k: sub.function("compute_scale")(list(v), k), model_scale, cases,
                  same=lambda got, want: _close(got, want),
                  describe=lambda c: f"{c[1]} of {len(c[0])} values, e.g. {c[0][:3]}")


@scales.hidden("a tensor of zeros, a single value, a constant tensor", hint=1)
def _(sub: Submission) -> None:
    cases = [([0.0, 0.0, 0.0], "q8s"), ([-3.5], "q4f"), ([2.0] * 7, "q2s"), ([-2.0] * 3, "q8f")]
    compare_cases(lambda v, k: sub.function("compute_scale")(list(v), k), model_scale, cases,
                  same=lambda got, want: _close(got, want), describe=lambda c: f"{c[1]} of {c[0]}",
                  hint=1)


# --- quant-2: storing a scale, rounded up ---------------------------------------------------

rounding = Suite("quant-2")
_DTYPES = ("f32", "f16", "bf16", "ue4m3")


def model_round(scale: float, dtype: str) -> float:
    return float(model_round_up(np.array([scale], dtype=F32), ScaleDtype(dtype))[0])


def _same_f32(got: Any, want: float) -> bool:
    try:
        return F32(got) == F32(want)
    except (TypeError, ValueError):
        return False


def _expect_round(sub: Submission, scale: float, dtype: str, why: str) -> None:
    got = sub.function("round_up")(scale, dtype)
    want = model_round(scale, dtype)
    if not _same_f32(got, want):
        raise CheckFailure(f"round_up({scale!r}, {dtype!r}): {why}", expected=repr(want),
                           got=repr(got), hint=2)


@contextlib.contextmanager
def student_round_up(sub: Submission) -> Iterator[None]:
    """The model's quantizer stores (and divides by) scales rounded with the student's function."""
    student = sub.function("round_up")

    def vectorised(scales: Any, dtype: ScaleDtype) -> np.ndarray:
        if dtype is ScaleDtype.UE8M0:
            return model_round_up(scales, dtype)  # refused by the model; not this exercise
        flat = np.asarray(scales, dtype=F32).reshape(-1)
        out = np.array([F32(student(float(s), dtype.value)) for s in flat], dtype=F32)
        return out.reshape(np.shape(scales))

    with installed(model_round_up, vectorised):
        yield


@rounding.visible("f32 stores a scale as it is", hint=1)
def _(sub: Submission) -> None:
    _expect_round(sub, float(F32(0.014173228)), "f32", "f32 is the identity")


@rounding.visible("the reference's worked example: UE4M3 of 9/254 is 0.0390625", hint=2)
def _(sub: Submission) -> None:
    _expect_round(sub, float(F32(9 / 254)), "ue4m3", "round up to the next UE4M3 value")


@rounding.visible("up, never to nearest: f16 of 0.1 is 0.10003662109375, not 0.0999755859375",
                  hint=2)
def _(sub: Submission) -> None:
    _expect_round(sub, float(F32(0.1)), "f16", "the nearest f16 is below 0.1; Burn takes the one "
                  "above, so the stored scale never clips the block maximum")


@rounding.visible("at or above the maximum saturates: f16 65504, UE4M3 448", hint=2)
def _(sub: Submission) -> None:
    _expect_round(sub, 1e6, "f16", "saturate to f16's max")
    _expect_round(sub, 1000.0, "ue4m3", "saturate to UE4M3's max")


@rounding.visible("in the model's quantizer: a UE4M3 block scheme stores your scales", hint=3)
def _(sub: Submission) -> None:
    x = np.linspace(-3.0, 5.0, 32, dtype=F32).reshape(4, 8)
    want = quantize_dynamic(x, "q8s:block=4:scale=ue4m3:global=f32", profile=Profile.NDARRAY)
    with student_round_up(sub):
        got = quantize_dynamic(x, "q8s:block=4:scale=ue4m3:global=f32", profile=Profile.NDARRAY)
    expect_equal("block scales stored (decoded to f32) with your round_up",
                 want.scales_f32().tolist(), got.scales_f32().tolist())
    expect_equal("q values computed against your stored scales", want.q().tolist(),
                 got.q().tolist())


@rounding.hidden("400 seeded random scales from 1e-12 to 1e6 in every dtype, against the model")
def _(sub: Submission) -> None:
    rng = random.Random(5678)
    cases = [(float(F32(10 ** rng.uniform(-12, 6))), rng.choice(_DTYPES)) for _ in range(400)]
    compare_cases(lambda s, d: sub.function("round_up")(s, d), model_round, cases,
                  same=_same_f32, describe=lambda c: f"round_up({c[0]!r}, {c[1]!r})")


@rounding.hidden("the subnormal ladders, values already on the grid, and the maxima", hint=3)
def _(sub: Submission) -> None:
    cases = [(float(F32(v)), d) for d, v in (
        ("f16", 3e-6), ("f16", 2.0**-24), ("f16", 6.1e-5), ("ue4m3", 0.004), ("ue4m3", 2.0**-9),
        ("ue4m3", 0.015625), ("bf16", 1.0), ("bf16", 1.00001), ("f16", 65504.0),
        ("ue4m3", 448.0), ("ue4m3", 447.0), ("f16", 0.5), ("bf16", 3.0e38))]
    compare_cases(lambda s, d: sub.function("round_up")(s, d), model_round, cases,
                  same=_same_f32, describe=lambda c: f"round_up({c[0]!r}, {c[1]!r})", hint=3)


# --- quant-3: PackedU32 packing ------------------------------------------------------------------

packing = Suite("quant-3")


def _model_pack(values: list[int], bits: int) -> list[int]:
    return [int(w) for w in model_pack_u32(np.array(values, dtype=np.int8), bits)]


def _words(got: object) -> list[int]:
    if not isinstance(got, list | tuple) or not all(isinstance(w, int | np.integer) for w in got):
        raise CheckFailure("pack_u32 must return a list of ints (one per u32 word)",
                           got=repr(got), hint=1)
    return [int(w) for w in got]


def _expect_words(sub: Submission, values: list[int], bits: int, why: str) -> None:
    got = _words(sub.function("pack_u32")(list(values), bits))
    want = _model_pack(values, bits)
    if got != want:
        raise CheckFailure(f"pack_u32({values}, bits={bits}): {why}",
                           expected=f"{want}  (hex {[hex(w) for w in want]})",
                           got=f"{got}  (hex {[hex(w) for w in got]})", hint=2)


@packing.visible("Burn's unit test: Q8 [-128, 2, -3, 127] is one word, 2147287680", hint=2)
def _(sub: Submission) -> None:
    _expect_words(sub, [-128, 2, -3, 127], 8, "value k goes to byte k, low byte first")


@packing.visible("a negative Q4 value keeps only its 4 low bits", hint=2)
def _(sub: Submission) -> None:
    _expect_words(sub, [-1, 1], 4, "-1 in 4 bits is 0b1111; the second value sits in bits 4..8")


@packing.visible("a row that does not fill its last word is zero-padded", hint=1)
def _(sub: Submission) -> None:
    _expect_words(sub, [1, -2, 3, -4, 5, -6, 7, -8, 1], 4, "9 Q4 values need 2 words")


@packing.visible("the model's unpack_u32 reads your Q2 words back", hint=2)
def _(sub: Submission) -> None:
    rows = np.array([[1, -2, 0, -1, 1, 1, -2], [0, 0, -1, 1, -2, -2, 1]], dtype=np.int8)
    pack = sub.function("pack_u32")
    words = np.array([_words(pack(row.tolist(), 2)) for row in rows], dtype=np.uint32)
    back = unpack_u32(words, 2, rows.shape[1])
    if not np.array_equal(back, rows):
        raise CheckFailure("the model unpacked your words to other values",
                           expected=str(rows.tolist()), got=str(back.tolist()), hint=2)


@packing.visible("the model's cubecl quantizer packs with your function: same words, same values",
                 hint=2)
def _(sub: Submission) -> None:
    student = sub.function("pack_u32")

    def rows(q: Any, bits: int, axis: int = -1) -> np.ndarray:
        moved = np.moveaxis(np.asarray(q, dtype=np.int8), axis, -1)
        words = [_words(student(row.tolist(), bits)) for row in moved.reshape(-1, moved.shape[-1])]
        packed = np.array(words, dtype=np.uint32).reshape(moved.shape[:-1] + (-1,))
        return np.moveaxis(packed, -1, axis)

    x = np.linspace(-2.0, 3.0, 64, dtype=F32).reshape(4, 16)
    for scheme in ("q4s:store=packed-u32", "q2f:block=16:store=packed-u32"):
        want = quantize_dynamic(x, scheme, profile=Profile.CUBECL)
        with installed(model_pack_u32, rows):
            got = quantize_dynamic(x, scheme, profile=Profile.CUBECL)
        expect_equal(f"u32 words the cubecl profile stores for {scheme}",
                     np.asarray(want.values).tolist(), np.asarray(got.values).tolist())
        expect_equal(f"values dequantized from your words ({scheme})",
                     want.dequantize(Profile.CUBECL).tolist(),
                     got.dequantize(Profile.CUBECL).tolist())


@packing.hidden("300 seeded random rows of 2-, 4- and 8-bit values, against the model")
def _(sub: Submission) -> None:
    rng = random.Random(20260903)
    cases = []
    for _ in range(300):
        bits = rng.choice((2, 4, 8))
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        cases.append(([rng.randint(low, high) for _ in range(rng.randint(1, 40))], bits))
    compare_cases(lambda v, b: _words(sub.function("pack_u32")(list(v), b)), _model_pack, cases,
                  same=lambda a, b: a == b, describe=lambda c: f"bits={c[1]}, values={c[0]}")


@packing.hidden("the ends of each range, alone in a word", hint=1)
def _(sub: Submission) -> None:
    cases = [([v], bits) for bits in (2, 4, 8) for v in (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)]
    compare_cases(lambda v, b: _words(sub.function("pack_u32")(list(v), b)), _model_pack, cases,
                  same=lambda a, b: a == b, describe=lambda c: f"bits={c[1]}, values={c[0]}",
                  hint=1)


# --- quant-4: the canonical byte layout ---------------------------------------------------------


def _regions(value: Any) -> list[int]:
    if not isinstance(value, list | tuple) or len(value) != 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise CheckFailure("write [value bytes, scale bytes, global bytes], three whole numbers",
                           got=repr(value), hint=1)
    return list(value)


def _choice(*allowed: str) -> Callable[[Any], str]:
    def form(value: Any) -> str:
        if value not in allowed:
            raise CheckFailure(f"answer one of {', '.join(repr(a) for a in allowed)}",
                               got=repr(value), hint=1)
        return str(value)

    return form


def _layout_answers() -> dict[str, Any]:
    """Quantize quant-4's tensors on the model and measure their canonical bytes."""
    x = np.linspace(-1.0, 1.0, 32, dtype=F32).reshape(2, 16)

    def regions(tensor: Any) -> list[int]:
        sizes = [int(tensor.values.nbytes), int(tensor.scales.nbytes),
                 0 if tensor.global_scale is None else 4]
        assert len(tensor.to_bytes()) == sum(sizes), "regions must tile the canonical bytes"
        return sizes

    packed = quantize_dynamic(x, "q4s:block=8:scale=f16:store=packed-u32", profile=Profile.CUBECL)
    flex = quantize_dynamic(x, "q4s:block=8:scale=f16", profile=Profile.FLEX)
    two_level = quantize_dynamic(x.reshape(-1)[:8], "q8s:block=4:scale=ue4m3:global=f32",
                                 profile=Profile.FLEX)
    try:
        quantize_dynamic(x, "q4s:block=4:scale=f16:store=packed-u32", profile=Profile.CUBECL)
        block4 = "ok"
    except QuantizationError:
        block4 = "refused"
    return {"PACKED": regions(packed), "FLEX": regions(flex),
            "FLEX_STORE": flex.scheme.resolved_store().kind.value,
            "TWO_LEVEL": regions(two_level), "BLOCK4": block4}


layout = PredictSuite(
    "quant-4",
    parts=[
        Part("PACKED", "the regions of the cubecl PackedU32 tensor", _regions),
        Part("FLEX", "the regions of the flex tensor", _regions),
        Part("FLEX_STORE", "the store the flex tensor carries", _choice("native", "packed-u32")),
        Part("TWO_LEVEL", "the regions of the two-level tensor", _regions),
        Part("BLOCK4", "what cubecl does with block=4 in PackedU32", _choice("ok", "refused")),
    ],
    oracle=_layout_answers,
)
