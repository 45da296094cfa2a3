"""build-4: the bytes path across peers (crates/burn-router/src/interpreter.rs:162-178,
2139-2176; the canonical layout of crates/burn-std/src/tensor/quantization.rs:198-360)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ...core import (
    READ_ONLY,
    READ_WRITE,
    DType,
    TensorId,
    TensorIr,
)
from ...core.base.data import TensorData
from ...core.fix.qtensor import QPrimitive
from .base import CheckFailure, Observation, Subject, Suite
from .build_common import traced
from .build_handles import ModelHandles
from .build_interpreter import (
    CONTAINER,
    SAME_PEER_MOVES,
    Bench,
    ModelInterpreter,
    arrived,
    bench,
    container_sequences,
    copied,
    plain,
    put,
    quantized,
    registry,
    same_peer_moves,
    shares,
)

# crates/burn-router/src/interpreter.rs:162-178 (register_tensor_data_id), 2139-2176
# (read_tensor_async, todo!() for QFloat); the canonical layout: crates/burn-std/src/tensor/
# quantization.rs:198-360 (QuantizedBytes), docs/burn.md section 14.

bytes_path = Suite("build-4")
bytes_path.model(TensorInterpreter=ModelInterpreter, HandleContainer=ModelHandles)

PEERS = ("cpu:0", "peer2/cpu:0")
"""A device on this peer and one on another: only bytes cross between them."""


def _bytes_bench(sub: Subject) -> Bench:
    b = bench(sub, *PEERS)
    for name, interp in b.interps.items():
        for method in ("read_tensor", "register_tensor_data"):
            if not callable(getattr(interp, method, None)):
                raise CheckFailure(f"your TensorInterpreter on {name} has no `{method}`; keep "
                                   "the names the starter gives", hint=1)
    return b


def data_of(data: Any) -> Any:
    """Bytes in transit as the checks compare them: every byte, the shape and the dtype."""
    if not isinstance(data, TensorData):
        return {"object": f"{type(data).__name__}: {repr(data)[:80]}"}
    return [list(bytes(data.bytes)), [int(d) for d in data.shape], str(data.dtype)]


def across(b: Bench, handle: Any, dtype: Any, first: int) -> Observation:
    """A shared and then the last use of `handle` (registered on this peer's cpu:0 under
    `first`) read back to bytes and registered on the other peer."""
    source, target = PEERS
    put(b, source, first, handle)
    shape = tuple(handle.shape)
    seen: Observation = []
    for status, new_id in ((READ_ONLY, first + 1), (READ_WRITE, first + 2)):
        data = b.interps[source].read_tensor(TensorIr(TensorId(first), shape, status, dtype))
        seen.append((f"{status} use read back: the bytes, shape and dtype", data_of(data)))
        b.interps[target].register_tensor_data(TensorId(new_id), data)
        seen.append((f"registered on the other peer as {new_id}: ids on (this peer, the other), "
                     "(copies, bytes) on each, what arrived",
                     [registry(b, source), registry(b, target), copied(b, source),
                      copied(b, target), arrived(b, target, new_id)]))
    return seen


@bytes_path.visible("a plain tensor crosses as bytes: f32, i32 and bool", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = _bytes_bench(sub)
    x = [float(v) for v in sub.param("x")]
    seen: Observation = []
    for n, (values, dtype) in enumerate(((x, DType.F32), ([int(v * 10) for v in x], DType.I32),
                                         ([v > 0 for v in x], DType.BOOL))):
        seen += [(f"{dtype}: {label}", value) for label, value in
                 across(b, plain(values, dtype, PEERS[0]), dtype, 10 * n + sub.param("tid"))]
    return seen


@bytes_path.visible("a quantized tensor crosses in the canonical layout: values, scales in "
                    "their own dtype, the global scale", hint=2)
@traced
def _(sub: Subject) -> Observation:
    b = _bytes_bench(sub)
    q = quantized(sub.param("x"), sub.param("scheme"), PEERS[0])
    seen = across(b, q, q.dtype, sub.param("tid"))
    copy = b.interps[PEERS[1]].handles.get_handle_ref(TensorId(sub.param("tid") + 2))
    seen.append(("what arrived is bit-identical to what left, and owns its memory",
                 isinstance(copy, QPrimitive) and copy.tensor.bit_equal(q.tensor)
                 and not shares(copy, q)))
    return seen


@bytes_path.hidden("seeded random tensors and schemes across peers, and back")
@traced
def _(sub: Subject) -> Observation:
    rng = random.Random(2176)
    seen: Observation = []
    for case in range(16):
        b = _bytes_bench(sub)
        shape = rng.choice(((16,), (2, 8), (4, 4), (2, 2, 4)))
        x = np.random.default_rng(case).normal(size=shape).astype(np.float32)
        if case % 4:
            scheme = rng.choice(("q8s", "q8f", "q4s", "q4f", "q2s")) + rng.choice((
                "", ":block=4", ":block=8:scale=f16", ":block=4:scale=bf16",
                ":block=4:scale=ue4m3:global=f32", ":block=8:scale=ue8m0"))
            handle: Any = quantized(x, scheme, PEERS[0])
        else:
            handle = plain((x * 50).astype(np.int64), DType.I64, PEERS[0])
        seen += [(f"case {case} ({handle.dtype}): {label}", value)
                 for label, value in across(b, handle, handle.dtype, 1)]
        back = b.interps[PEERS[1]].read_tensor(TensorIr(TensorId(3), tuple(handle.shape),
                                                        READ_WRITE, handle.dtype))
        b.interps[PEERS[0]].register_tensor_data(TensorId(9), back)
        seen.append((f"case {case}: back on this peer as 9: ids, copies, what arrived",
                     [registry(b, PEERS[0]), registry(b, PEERS[1]), copied(b, PEERS[0]),
                      copied(b, PEERS[1]), arrived(b, PEERS[0], 9)]))
    return seen


# The same-peer halves and the container, carried over from build-3, graded again (hidden).
bytes_path.hidden(SAME_PEER_MOVES)(same_peer_moves)
bytes_path.hidden(CONTAINER)(container_sequences)
