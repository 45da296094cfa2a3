"""Checks of the GPU lessons on CubeCL's layout and arithmetic: PackedU32 words, half-to-even
rounding, and quantized moves between GPU devices and to the CPU (docs/burn.md#14-packing-and-bytes,
#15-per-backend-rules; docs/transfers.md).

The oracles run on simulated CubeCL devices (`gpu/cpu:1@cubecl`), which compute exactly like
CubeCL's kernels, so the answers are the same with or without a GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import QuantizationError, Runtime
from ...teaching.compare import compare_policies
from .base import Part, PredictSuite, choice
from .forms import ints, whole, yes_no

FIRST, SECOND = "gpu/cpu:1@cubecl", "gpu/cpu:2@cubecl"
TIES = [[0.5, 1.5, 2.5, -2.5, 0.25, -0.75, 3.0, -3.0]] * 2


# --- gpu-1: u32 words on the GPU ----------------------------------------------------------------


def _words(shape: tuple[int, int], scheme: str) -> int | str:
    """How many u32 words hold the values of a tensor of `shape` quantized on the GPU."""
    rt = Runtime()
    try:
        q = rt.quantize(rt.tensor(np.ones(shape), device=FIRST, dtype="f32"), scheme)
    except QuantizationError:
        return "refused"
    return int(rt.read_quantized(q).values.size)


def _word_answers() -> dict[str, Any]:
    return {"Q8_3x12": _words((3, 12), "q8s"), "Q4_3x16": _words((3, 16), "q4s"),
            "Q2_2x16": _words((2, 16), "q2s"), "Q4_3x12": _words((3, 12), "q4s")}


words = PredictSuite(
    "gpu-1",
    parts=[
        Part("Q8_3x12", "u32 words of a [3, 12] Q8S tensor", whole),
        Part("Q4_3x16", "u32 words of a [3, 16] Q4S tensor", whole),
        Part("Q2_2x16", "u32 words of a [2, 16] Q2S tensor", whole),
        Part("Q4_3x12", "what the GPU does with a [3, 12] Q4S tensor", choice("ok", "refused")),
    ],
    oracle=_word_answers,
)


# --- gpu-2: half to even on the GPU ---------------------------------------------------------------


def _tie_answers(offset: int = 0, sign: int = 1) -> dict[str, Any]:
    """gpu-2's rows, `sign * (TIES + offset)`, quantized with a scale of 1 on both devices."""
    rt = Runtime()
    data = (np.float32(sign) * (np.array(TIES, dtype=np.float32) + np.float32(offset)))

    def first_row(device: str) -> list[int]:
        q = rt.quantize(rt.tensor(data, device=device, dtype="f32"), "q8s", scales=[1.0])
        return [int(v) for v in rt.read_quantized(q).q()[0]]

    return {"GPU_Q": first_row(FIRST), "CPU_Q": first_row("cpu:0")}


ties = PredictSuite(
    "gpu-2",
    parts=[
        Part("GPU_Q", "q of the first row quantized on the GPU", ints(8)),
        Part("CPU_Q", "q of the first row quantized on cpu:0 (Flex)", ints(8)),
    ],
    oracle=_tie_answers,
    mistakes={
        "rounded the GPU's halves away from zero": lambda offset, sign: {
            "GPU_Q": _tie_answers(offset, sign)["CPU_Q"]},
        "rounded the CPU's halves to even": lambda offset, sign: {
            "CPU_Q": _tie_answers(offset, sign)["GPU_Q"]},
    },
)


# --- gpu-3: moving quantized tensors on the GPU ---------------------------------------------------


def _move_answers(rows: int = 64, cols: int = 64) -> dict[str, Any]:
    """gpu-3's two moves, the first of a `rows` x `cols` tensor."""
    x = np.random.default_rng(7).standard_normal((rows, cols)).astype(np.float32)
    run = compare_policies(x, "q4s", source=FIRST, target=SECOND, hops=1,
                           policies=["native", "dequantize"])
    rt = Runtime()
    rows = rt.tensor(np.array(TIES, dtype=np.float32), device=FIRST, dtype="f32")
    on_gpu = rt.quantize(rows, "q8s", scales=[1.0])
    before = rt.read_quantized(rt.clone(on_gpu)).q().tolist()
    arrived = rt.read_quantized(rt.to_device(on_gpu, "cpu:0", policy="native"))
    return {"NATIVE_BYTES": run.get("native").bytes_moved,
            "DEQUANTIZE_BYTES": run.get("dequantize").bytes_moved,
            "CPU_STORE": arrived.scheme.resolved_store().kind.value,
            "SAME_Q": arrived.q().tolist() == before}


moves = PredictSuite(
    "gpu-3",
    parts=[
        Part("NATIVE_BYTES", "bytes one native hop of the Q4S tensor moves", whole),
        Part("DEQUANTIZE_BYTES", "bytes one dequantize hop of the Q4S tensor moves", whole),
        Part("CPU_STORE", "the store of the values cpu:0 holds once the tensor arrives",
             choice("native", "packed-u32")),
        Part("SAME_Q", "whether the arrived q values equal the GPU's", yes_no),
    ],
    oracle=_move_answers,
    mistakes={
        "counted a Q4 value as a byte": lambda rows, cols: {"NATIVE_BYTES": rows * cols + 4},
        "thought dequantize moves the quantized bytes": lambda rows, cols: {
            "DEQUANTIZE_BYTES": _move_answers(rows, cols)["NATIVE_BYTES"]},
    },
)
