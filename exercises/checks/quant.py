"""Checks of the quantization exercises: scales, their round-up, packing, the byte layout
(crates/burn-std/src/tensor/quantization.rs; docs/schemes.md).

The student's function runs where the model's own would: their scale drives the model's static
`quantize`, their rounded scales are stored by it, their packed words are read by the model's
`unpack_u32`. Every probe also runs on the model (`quant-1`: `model_scale`, ...); hidden seeded
cases compare the two.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from ...core import Profile, QuantizationError
from ...core.quant import (
    Calibration,
    ScaleDtype,
    compute_q_params,
    compute_range,
    parse_scheme,
    quantize,
    quantize_dynamic,
    unpack_u32,
)
from ...core.quant import pack_u32 as model_pack_u32
from ...core.quant import round_up as model_round_up
from .base import (
    CheckFailure,
    Observation,
    Part,
    PredictSuite,
    Subject,
    Suite,
    choice,
)
from .forms import ints, number, whole

F32 = np.float32
VALUES = ("q8s", "q8f", "q4s", "q4f", "q2s", "q2f")

# --- quant-1: the scale of a tensor --------------------------------------------------------------

scales = Suite("quant-1")


def model_scale(values: list[float], value: str) -> float:
    """The model's MinMax per-tensor scale (compute_range -> compute_q_params)."""
    scheme = parse_scheme(value)
    low, high = compute_range(np.array(values, dtype=F32), scheme, Calibration.MINMAX)
    return float(compute_q_params(scheme, low, high).scales.reshape(-1)[0])


scales.model(compute_scale=model_scale)


def _number(got: Any, call: str) -> float:
    if isinstance(got, bool) or not isinstance(got, int | float | np.floating | np.integer):
        raise CheckFailure(f"{call} must return a number", got=repr(got), hint=1)
    return float(got)


def _scale(sub: Subject, values: list[float], value: str) -> float:
    call = f"compute_scale({values}, {value!r})"
    return _number(sub.function("compute_scale")(list(values), value), call)


@scales.visible("Burn's test: [-1.8, -1.0, 0, 0.5] in Q8S has scale 1.8 / 127", hint=2)
def _(sub: Subject) -> Observation:
    return [("compute_scale([-1.8, -1.0, 0, 0.5], 'q8s'): alpha = max(|min|, |max|) = 1.8",
             _scale(sub, [-1.8, -1.0, 0.0, 0.5], "q8s"))]


@scales.visible("the larger magnitude wins, whatever its sign: a negative minimum in Q8S", hint=1)
def _(sub: Subject) -> Observation:
    low = -float(sub.param("low"))
    return [(f"compute_scale([5, 0, 4, {low}], 'q8s'): alpha is {-low} here, from the minimum",
             _scale(sub, [5.0, 0.0, 4.0, low], "q8s"))]


@scales.visible("an F value uses its full, asymmetric range: Q8F is 2*alpha/255, Q2F 2*alpha/3",
                hint=2)
def _(sub: Subject) -> Observation:
    return [("compute_scale([-0.9, 0.5, 0.2], 'q2f'): Q2F's range is [-2, 1], so b - a = 3",
             _scale(sub, [-0.9, 0.5, 0.2], "q2f")),
            ("compute_scale([-1, 3], 'q8f'): Q8F's range is [-128, 127], so b - a = 255",
             _scale(sub, [-1.0, 3.0], "q8f"))]


@scales.visible("the scale drives the model's static quantize to Burn's q values", hint=2)
def _(sub: Subject) -> Observation:
    x = [-1.8, -1.0, 0.0, 0.5]
    scale = _scale(sub, x, "q8s")
    q = quantize(np.array(x, dtype=F32), "q8s", [scale], profile=Profile.NDARRAY).q()
    arange = np.arange(128, dtype=F32)
    scale4 = _scale(sub, arange.tolist(), "q4s")
    # Burn's test reference is NdArray built with export_tests, the only build with a Q4 arm.
    q4 = quantize(arange, "q4s", [scale4], profile=Profile.NDARRAY_TESTS).q()
    return [("q values of quantize(x, q8s, [the scale]) on the ndarray profile", q.tolist()),
            ("Q4S q values of arange(0..128) with the scale: round(7i/127)", q4.tolist())]


@scales.hidden("300 seeded random tensors and value types")
def _(sub: Subject) -> Observation:
    rng = random.Random(1144)
    seen: Observation = []
    for _ in range(300):
        spread = 10 ** rng.uniform(-4, 4)
        values = [float(F32(rng.gauss(rng.uniform(-1, 1), 1) * spread))
                  for _ in range(rng.randint(1, 50))]
        value = rng.choice(VALUES)
        seen.append((f"{value} of {len(values)} values, e.g. {values[:3]}",
                     _scale(sub, values, value)))
    return seen


@scales.hidden("a tensor of zeros, a single value, a constant tensor", hint=2)
def _(sub: Subject) -> Observation:
    cases = [([0.0, 0.0, 0.0], "q8s"), ([-3.5], "q4f"), ([2.0] * 7, "q2s"), ([-2.0] * 3, "q8f")]
    return [(f"{value} of {values}", _scale(sub, values, value)) for values, value in cases]


# --- quant-2: storing a scale, rounded up ---------------------------------------------------

rounding = Suite("quant-2")
_DTYPES = ("f32", "f16", "bf16", "ue4m3")


def model_round(scale: float, dtype: str) -> float:
    return float(model_round_up(np.array([scale], dtype=F32), ScaleDtype(dtype))[0])


rounding.model(round_up=model_round)


def _rounded(sub: Subject, scale: float, dtype: str) -> float:
    """The student's rounded scale, as the f32 it is stored as."""
    got = _number(sub.function("round_up")(scale, dtype), f"round_up({scale!r}, {dtype!r})")
    return float(F32(got))


@contextmanager
def _storing_through(sub: Subject) -> Iterator[None]:
    """The model's quantizer stores its scales through `sub`'s `round_up`: the student's, where
    their code is graded (the model's own is absent there), the model's in the teacher's."""
    with storing_through(None if sub.is_model else sub.function("round_up")):
        yield


@contextmanager
def storing_through(round_up: Callable[[float, str], Any] | None) -> Iterator[None]:
    """The model's quantizer stores its scales through a learner's `round_up(scale, dtype)`
    (None: the model's own)."""
    if round_up is None:
        yield
        return

    def store(scales: Any, dtype: ScaleDtype) -> np.ndarray:
        flat = np.asarray(scales, dtype=F32).reshape(-1)
        out = [float(F32(_number(round_up(float(s), dtype.value),
                                 f"round_up({float(s)!r}, {dtype.value!r})"))) for s in flat]
        return np.array(out, dtype=F32).reshape(np.shape(scales))

    with _rebound("round_up", model_round_up, store):
        yield


@contextmanager
def packing_through(pack_row: Callable[[list[int], int], Any] | None) -> Iterator[None]:
    """The model's quantizer packs its q values into u32 words with a learner's
    `pack_u32(row, bits)`, one row of the packed axis at a time (None: the model's own)."""
    if pack_row is None:
        yield
        return

    def pack(q: Any, bits: int, axis: int = -1) -> np.ndarray:
        rows = np.moveaxis(np.asarray(q), axis, -1)
        words = [_row_words(pack_row(row.tolist(), bits), f"pack_u32(row, bits={bits})")
                 for row in rows.reshape(-1, rows.shape[-1])]
        return np.moveaxis(np.array(words, dtype=np.uint32).reshape(*rows.shape[:-1], -1),
                           -1, axis)

    with _rebound("pack_u32", model_pack_u32, pack):
        yield


def _row_words(got: Any, call: str) -> list[int]:
    if not isinstance(got, list | tuple) or not all(isinstance(w, int | np.integer) for w in got):
        raise CheckFailure(f"{call} must return a list of ints (one per u32 word)",
                           got=repr(got)[:200], hint=1)
    if any(not 0 <= int(w) <= 0xFFFFFFFF for w in got):
        raise CheckFailure(f"{call} returned a word outside 0..2**32-1", got=repr(got)[:200],
                           hint=2)
    return [int(w) for w in got]


@contextmanager
def _rebound(name: str, model: Any, learner: Any) -> Iterator[None]:
    """Every core module that calls the model's `name` calls the learner's meanwhile."""
    users = [m for key, m in list(sys.modules.items()) if key.startswith("routerlab.core.")
             and getattr(m, name, None) is model]
    for module in users:
        setattr(module, name, learner)
    try:
        yield
    finally:
        for module in users:
            setattr(module, name, model)


@rounding.visible("f32 stores a scale as it is", hint=2)
def _(sub: Subject) -> Observation:
    scale = float(F32(0.014173228))
    return [(f"round_up({scale!r}, 'f32'): f32 is the identity", _rounded(sub, scale, "f32"))]


@rounding.visible("the reference's worked example: UE4M3 of 9/254 is 0.0390625", hint=2)
def _(sub: Subject) -> Observation:
    scale = float(F32(9 / 254))
    return [(f"round_up({scale!r}, 'ue4m3'): round up to the next UE4M3 value",
             _rounded(sub, scale, "ue4m3"))]


@rounding.visible("up, never to nearest: f16 of 0.1 is 0.10003662109375, not 0.0999755859375",
                  hint=2)
def _(sub: Subject) -> Observation:
    scale = float(F32(0.1))
    return [(f"round_up({scale!r}, 'f16'): the nearest f16 is below 0.1; Burn takes the one "
             "above, so the stored scale never clips the block maximum",
             _rounded(sub, scale, "f16"))]


@rounding.visible("at or above the maximum saturates: f16 65504, UE4M3 448", hint=2)
def _(sub: Subject) -> Observation:
    return [("round_up(1e6, 'f16'): saturate to f16's max", _rounded(sub, 1e6, "f16")),
            ("round_up(1000.0, 'ue4m3'): saturate to UE4M3's max",
             _rounded(sub, 1000.0, "ue4m3"))]


@rounding.visible("in the model's quantizer: a UE4M3 block scheme stores the rounded scales",
                  hint=2)
def _(sub: Subject) -> Observation:
    x = np.linspace(-float(sub.param("low")), float(sub.param("high")), 32,
                    dtype=F32).reshape(4, 8)
    with _storing_through(sub):
        raw = quantize_dynamic(x, "q8s:block=4", profile=Profile.NDARRAY).scales_f32()
        rounded = [_rounded(sub, float(s), "ue4m3") for s in raw.reshape(-1)]
        stored = quantize(x, "q8s:block=4:scale=ue4m3", rounded, profile=Profile.NDARRAY)
    return [("block scales the model stores (decoded to f32) from the rounded ones",
             stored.scales_f32().reshape(-1).tolist()),
            ("q values computed against those stored scales", stored.q().tolist())]


@rounding.hidden("400 seeded random scales from 1e-12 to 1e6 in every dtype")
def _(sub: Subject) -> Observation:
    rng = random.Random(5678)
    cases = [(float(F32(10 ** rng.uniform(-12, 6))), rng.choice(_DTYPES)) for _ in range(400)]
    return [(f"round_up({s!r}, {d!r})", _rounded(sub, s, d)) for s, d in cases]


@rounding.hidden("the subnormal ladders, values already on the grid, and the maxima", hint=2)
def _(sub: Subject) -> Observation:
    cases = [(float(F32(v)), d) for d, v in (
        ("f16", 3e-6), ("f16", 2.0**-24), ("f16", 6.1e-5), ("ue4m3", 0.004), ("ue4m3", 2.0**-9),
        ("ue4m3", 0.015625), ("bf16", 1.0), ("bf16", 1.00001), ("f16", 65504.0),
        ("ue4m3", 448.0), ("ue4m3", 447.0), ("f16", 0.5), ("bf16", 3.0e38))]
    return [(f"round_up({s!r}, {d!r})", _rounded(sub, s, d)) for s, d in cases]


@rounding.hidden("one f32 step above a value of the grid, and UE4M3's top subnormals", hint=2)
def _(sub: Subject) -> Observation:
    # Random scales almost never drop exactly one bit, which is where rounding up by `step - 1`
    # and by `step - 2` part; just under UE4M3's min normal (2**-7 to 2**-6) the grid is the
    # subnormals' (2**-9), not a finer one.
    above = [(float(np.nextafter(F32(v), F32(np.inf))), d) for d, v in (
        ("f16", 0.5), ("f16", 3.0), ("bf16", 1.0), ("bf16", 0.046875), ("ue4m3", 0.25),
        ("ue4m3", 0.0390625))]
    low = [(float(F32(v)), "ue4m3") for v in (0.01, 0.0081, 0.0155)]
    return [(f"round_up({s!r}, {d!r})", _rounded(sub, s, d)) for s, d in above + low]


# --- quant-3: PackedU32 packing ------------------------------------------------------------------

packing = Suite("quant-3")


def _model_pack(values: list[int], bits: int) -> list[int]:
    return [int(w) for w in model_pack_u32(np.array(values, dtype=np.int8), bits)]


packing.model(pack_u32=_model_pack)


def _words(sub: Subject, values: list[int], bits: int) -> list[int]:
    got = sub.function("pack_u32")(list(values), bits)
    if not isinstance(got, list | tuple) or not all(
            isinstance(w, int | np.integer) and not isinstance(w, bool) for w in got):
        raise CheckFailure("pack_u32 must return a list of ints (one per u32 word)",
                           got=repr(got), hint=1)
    return [int(w) for w in got]


@packing.visible("Burn's unit test: Q8 [-128, 2, -3, 127] is one word, 2147287680", hint=2)
def _(sub: Subject) -> Observation:
    return [("pack_u32([-128, 2, -3, 127], bits=8): value k goes to byte k, low byte first",
             _words(sub, [-128, 2, -3, 127], 8))]


@packing.visible("a negative Q4 value keeps only its 4 low bits", hint=2)
def _(sub: Subject) -> Observation:
    return [("pack_u32([-1, 1], bits=4): -1 in 4 bits is 0b1111; the second value sits in bits "
             "4..8", _words(sub, [-1, 1], 4))]


@packing.visible("a row that does not fill its last word is zero-padded", hint=2)
def _(sub: Subject) -> Observation:
    return [("pack_u32([1, -2, 3, -4, 5, -6, 7, -8, 1], bits=4): 9 Q4 values need 2 words",
             _words(sub, [1, -2, 3, -4, 5, -6, 7, -8, 1], 4))]


@packing.visible("the model's unpack_u32 reads the Q2 words back", hint=2)
def _(sub: Subject) -> Observation:
    rows = np.array([[1, -2, 0, -1, 1, 1, -2], [0, 0, -1, 1, -2, -2, 1]], dtype=np.int8)
    words = np.array([_words(sub, row.tolist(), 2) for row in rows], dtype=np.uint32)
    return [("values the model unpacks from the words", unpack_u32(words, 2, 7).tolist())]


@packing.visible("the words the cubecl profile stores, packed from the model's q values", hint=2)
def _(sub: Subject) -> Observation:
    x = np.linspace(-float(sub.param("low")), float(sub.param("high")), 64,
                    dtype=F32).reshape(4, 16)
    seen: Observation = []
    for scheme, bits in (("q4s", 4), ("q2f:block=16", 2)):
        q = quantize_dynamic(x, scheme, profile=Profile.FLEX).q()
        words = [_words(sub, row.tolist(), bits) for row in q.reshape(-1, q.shape[-1])]
        seen.append((f"u32 words of each row of {scheme}'s q values", words))
    return seen


@packing.hidden("300 seeded random rows of 2-, 4- and 8-bit values")
def _(sub: Subject) -> Observation:
    rng = random.Random(20260903)
    seen: Observation = []
    for _ in range(300):
        bits = rng.choice((2, 4, 8))
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        values = [rng.randint(low, high) for _ in range(rng.randint(1, 40))]
        seen.append((f"bits={bits}, values={values}", _words(sub, values, bits)))
    return seen


@packing.hidden("the ends of each range, alone in a word", hint=2)
def _(sub: Subject) -> Observation:
    cases = [([v], bits) for bits in (2, 4, 8) for v in (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)]
    return [(f"bits={bits}, values={values}", _words(sub, values, bits))
            for values, bits in cases]


# --- quant-4: the canonical byte layout ---------------------------------------------------------


def _regions(value: Any) -> list[int]:
    if not isinstance(value, list | tuple) or len(value) != 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise CheckFailure("write [value bytes, scale bytes, global bytes], three whole numbers",
                           got=repr(value), hint=1)
    return list(value)


def _layout_answers(rows: int = 2, block: int = 8, two: int = 8) -> dict[str, Any]:
    """Quantize quant-4's tensors (`rows` rows of 16, blocks of `block`, a two-level tensor of
    `two` values) on the model and measure their canonical bytes."""
    x = np.linspace(-1.0, 1.0, rows * 16, dtype=F32).reshape(rows, 16)

    def regions(tensor: Any) -> list[int]:
        sizes = [int(tensor.values.nbytes), int(tensor.scales.nbytes),
                 0 if tensor.global_scale is None else 4]
        assert len(tensor.to_bytes()) == sum(sizes), "regions must tile the canonical bytes"
        return sizes

    packed = quantize_dynamic(x, f"q4s:block={block}:scale=f16:store=packed-u32",
                              profile=Profile.CUBECL)
    flex = quantize_dynamic(x, f"q4s:block={block}:scale=f16", profile=Profile.FLEX)
    two_level = quantize_dynamic(x.reshape(-1)[:two], "q8s:block=4:scale=ue4m3:global=f32",
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
        Part("FLEX_STORE", "the store the flex tensor carries", choice("native", "packed-u32")),
        Part("TWO_LEVEL", "the regions of the two-level tensor", _regions),
        Part("BLOCK4", "what cubecl does with block=4 in PackedU32", choice("ok", "refused")),
    ],
    oracle=_layout_answers,
    mistakes={
        "counted a scale as f32": lambda rows, block, two: {
            "FLEX": [rows * 8, rows * 16 // block * 4, 0]},
        "forgot the two-level tensor's global scale": lambda rows, block, two: {
            "TWO_LEVEL": [*_layout_answers(rows, block, two)["TWO_LEVEL"][:2], 0]},
    },
)


# --- quant-5: three backends, three roundings ------------------------------------------------

NEAR = [0.02, -0.02, 0.01, 0.03]
TIES = [0.5, 1.5, 2.5, -2.5]


def _rounding_answers(offset: int = 0, sign: int = 1) -> dict[str, Any]:
    """Quantize quant-5's inputs with fixed scales on each profile and read the q values (the
    near values times the variant's `sign`, the ties moved by its whole `offset`)."""
    near_scale = F32(0.04) / F32(127)
    near = [sign * v for v in NEAR]
    ties = [t + offset for t in TIES]

    def q(values: list[float], scale: Any, profile: Profile) -> list[int]:
        return [int(v) for v in quantize(np.array(values, dtype=F32), "q8s", [scale],
                                         profile=profile).q()]

    return {"NDARRAY_NEAR": q(near, near_scale, Profile.NDARRAY),
            "FLEX_NEAR": q(near, near_scale, Profile.FLEX),
            "CUBECL_NEAR": q(near, near_scale, Profile.CUBECL),
            "FLEX_TIES": q(ties, 1.0, Profile.FLEX),
            "CUBECL_TIES": q(ties, 1.0, Profile.CUBECL)}


roundings = PredictSuite(
    "quant-5",
    parts=[
        Part("NDARRAY_NEAR", "q of the near-tie values on NdArray", ints(4)),
        Part("FLEX_NEAR", "q of the near-tie values on Flex", ints(4)),
        Part("CUBECL_NEAR", "q of the near-tie values on CubeCL", ints(4)),
        Part("FLEX_TIES", "q of the exact ties on Flex", ints(4)),
        Part("CUBECL_TIES", "q of the exact ties on CubeCL", ints(4)),
    ],
    oracle=_rounding_answers,
    mistakes={
        "rounded CubeCL's halves away from zero": lambda offset, sign: {
            "CUBECL_TIES": _rounding_answers(offset, sign)["FLEX_TIES"]},
        "rounded Flex's halves to even": lambda offset, sign: {
            "FLEX_TIES": _rounding_answers(offset, sign)["CUBECL_TIES"]},
    },
)


# --- quant-6: bits and blocks against error and bytes (an experiment) ----------------------------

BLOCKS = (16, 32, 64, 128)
EXPERIMENT_SCHEMES = tuple(v + level for v in ("q8s", "q4s", "q2s")
                           for level in ("", *(f":block={b}" for b in BLOCKS)))


def block_experiment_data(outlier: float = 40.0) -> np.ndarray:
    """The experiment's tensor: 64 x 256 N(0, 1) values and one outlier (40 in notebook 04)."""
    data = np.random.default_rng(0).standard_normal((64, 256)).astype(F32)
    data[3, 5] = outlier
    return data


def block_experiment(data: np.ndarray, scheme: str) -> tuple[float, float]:
    """(bytes per value, mean |x - x̂|) of `scheme` packed the CubeCL way (PackedU32)."""
    tensor = quantize_dynamic(data, scheme, profile=Profile.CUBECL)
    error = np.abs(tensor.dequantize(Profile.CUBECL) - data).mean()
    return tensor.nbytes / data.size, float(error)


@cache
def _measured(outlier: float) -> dict[str, tuple[float, float]]:
    """Every scheme's (bytes per value, mean error) on the tensor with this outlier (the slow
    part of quant-6's oracle, shared by the variants that differ only in their budget)."""
    data = block_experiment_data(outlier)
    return {s: block_experiment(data, s) for s in EXPERIMENT_SCHEMES}


def _block_answers(outlier: int = 40, budget: float = 0.6) -> dict[str, Any]:
    """quant-6's experiment with the variant's outlier, and its byte budget per value."""
    seen = _measured(float(outlier))
    q8_error = seen["q8s"][1]
    beating = [b for b in BLOCKS if seen[f"q4s:block={b}"][1] < q8_error]
    cheap = [s for s in EXPERIMENT_SCHEMES if seen[s][0] <= budget]
    return {"Q4_BLOCK32_BYTES": seen["q4s:block=32"][0],
            "Q4_LARGEST_BLOCK_BEATING_Q8": max(beating) if beating else 0,
            "BEST_UNDER_0_6": min(cheap, key=lambda s: seen[s][1])}


blocks = PredictSuite(
    "quant-6",
    parts=[
        Part("Q4_BLOCK32_BYTES", "bytes per value of q4s:block=32, values and scales", number,
             places=4, numeric=True),
        Part("Q4_LARGEST_BLOCK_BEATING_Q8", "the largest Q4S block with less mean error than "
             "Q8S per tensor (0 if none)", whole),
        Part("BEST_UNDER_0_6", "the scheme with the least mean error within the byte budget",
             choice(*EXPERIMENT_SCHEMES)),
    ],
    oracle=_block_answers,
    mistakes={
        "counted only the values' bytes, not the scales'": lambda outlier, budget: {
            "Q4_BLOCK32_BYTES": 0.5},
        "thought a smaller block never beats more bits": lambda outlier, budget: {
            "Q4_LARGEST_BLOCK_BEATING_Q8": -1},
    },
)
