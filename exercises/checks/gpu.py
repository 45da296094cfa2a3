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


def _word_answers(r8: int = 3, c8: int = 12, r4: int = 3, c4: int = 16, r2: int = 2,
                  c2: int = 16, ro: int = 3, co: int = 12) -> dict[str, Any]:
    """gpu-1's four tensors: [r8, c8] in Q8S, [r4, c4] in Q4S, [r2, c2] in Q2S, [ro, co] in
    Q4S."""
    return {"Q8_WORDS": _words((r8, c8), "q8s"), "Q4_WORDS": _words((r4, c4), "q4s"),
            "Q2_WORDS": _words((r2, c2), "q2s"),
            "Q4_ODD": "refused" if _words((ro, co), "q4s") == "refused" else "ok"}


def _whole_tensor(r8: int, c8: int, r4: int, c4: int, r2: int, c2: int, ro: int,
                  co: int) -> dict[str, Any]:
    """The mistake of one value per word: a word count equal to the number of values."""
    return {"Q8_WORDS": r8 * c8, "Q4_WORDS": r4 * c4, "Q2_WORDS": r2 * c2}


words = PredictSuite(
    "gpu-1",
    parts=[
        Part("Q8_WORDS", "u32 words of the Q8S tensor", whole),
        Part("Q4_WORDS", "u32 words of the first Q4S tensor", whole),
        Part("Q2_WORDS", "u32 words of the Q2S tensor", whole),
        Part("Q4_ODD", "what the GPU does with the second Q4S tensor", choice("ok", "refused")),
    ],
    oracle=_word_answers,
    mistakes={
        "counted one value per word": _whole_tensor,
        "packed 32 / 4 Q8 values per word": lambda r8, c8, **_: {"Q8_WORDS": r8 * c8 // 8},
    },
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
    ties = rt.tensor(np.array(TIES, dtype=np.float32), device=FIRST, dtype="f32")
    on_gpu = rt.quantize(ties, "q8s", scales=[1.0])
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
