"""A custom op on a served peer: the codec carries it as data, the peer's runtime has the example
handlers its builder registered (`crates/burn-remote/src/server/builder.rs:110-126`), the result
equals the in-process one bit for bit, and an id the peer has no handler for replays Burn's panic
across the wire (`crates/burn-router/src/interpreter.rs:2107-2114`)."""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.errors import BurnPanic
from routerlab.core.remote import CodecError
from routerlab.core.remote.codec import MAX_CUSTOM_TENSORS, decode_op
from routerlab.core.router.custom_examples import example_registry

A, B, C = ([0.1, -2.5, 1e-3], [0.2, 7.25, 3.0e-4], [3.0, 1.0 / 3.0, -17.5])
PANIC = ("No custom-op handler registered for `fused_matmul_add_relu`. Register one on the "
         "server via `CustomOpRegistry`/the server builder before starting it.")


def _fused(rt: Runtime, device: str) -> np.ndarray:
    a, b, c = (rt.tensor(v, device, "f32") for v in (A, B, C))
    (y,) = rt.custom("fused_add_mul", a, b, c, outputs=[((3,), "f32")])
    return rt.read(y)


def test_the_served_result_equals_the_in_process_one_bit_for_bit(
        peers: dict[str, str]) -> None:
    with Runtime(["cpu:0@flex"], custom_ops=example_registry(["fused_add_mul"])) as local:
        expected = _fused(local, "cpu:0@flex")
    with Runtime(peers=peers) as rt:
        served = _fused(rt, "peer1/cpu:0")
        assert rt.handle_ids("peer1/cpu:0") == [3]  # a, b, c consumed on the peer
    assert served.dtype == expected.dtype == np.float32
    assert served.tobytes() == expected.tobytes()
    a, b, c = (np.asarray(v, np.float32) for v in (A, B, C))
    assert served.tobytes() == ((a + b) * c).tobytes()


def test_a_missing_handler_on_the_peer_replays_burns_panic(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as rt:
        x = rt.tensor([1.0], "peer2/cpu:0", "f32")
        with pytest.raises(BurnPanic) as info:
            (z,) = rt.custom("fused_matmul_add_relu", x, outputs=[((1,), "f32")])
            rt.read(z)  # the panic is seen at the next call that waits, if not at once
        assert info.value.message == PANIC
        assert info.value.source == "crates/burn-router/src/interpreter.rs:2107-2114"
        assert info.value.session == "peer2/cpu:0"


@pytest.mark.parametrize(("field", "value", "says"), [
    ("id", "", "a custom op id is a string of 1 to 128"),
    ("id", "x" * 129, "a custom op id is a string of 1 to 128"),
    ("id", 7, "a custom op id is a string"),
    ("ins", [{"~": "dtype", "v": "f32"}], "every input and output must be a tensor use"),
    ("ins", [None] * (MAX_CUSTOM_TENSORS + 1), f"a list of at most {MAX_CUSTOM_TENSORS}"),
    ("scalars", [True], "scalars: expected numbers"),
    ("scalars", "1.0", "expected a list"),
])
def test_a_hostile_custom_op_is_one_codec_error(field: str, value: object, says: str) -> None:
    raw = {"op": "CustomOp", "id": "fused_add_mul", "ins": [], "outs": [], "scalars": []}
    with pytest.raises(CodecError, match=says):
        decode_op({**raw, field: value})
