"""The wire codec: every op and value round-trips as data; anything else is one `CodecError`."""

from __future__ import annotations

import dataclasses

import msgpack
import numpy as np
import pytest

from routerlab.core import TensorData
from routerlab.core.base.dtypes import DType, QFloat
from routerlab.core.base.errors import BurnTodo, DeadlockError, MissingHandleError, ShapeError
from routerlab.core.base.request import TransferRequest
from routerlab.core.fix.qtensor import QuantizeParams
from routerlab.core.quant import parse_scheme
from routerlab.core.remote import CodecError
from routerlab.core.remote import protocol as P
from routerlab.core.remote.codec import (
    OPS,
    decode_error,
    decode_op,
    encode_error,
    encode_op,
    task_kind,
)
from routerlab.core.router.custom_op import CustomOp
from routerlab.core.router.ir import (
    AddOp,
    CastOp,
    DequantizeOp,
    DropOp,
    ExposeLocalOp,
    ExposeRemoteOp,
    InitOp,
    MatmulOp,
    MulOp,
    QuantizeOp,
    ReadOp,
    RegisterDataOp,
    RegisterLocalOp,
    RegisterRemoteOp,
    ReshapeOp,
    SwapDimsOp,
    TensorId,
    TensorIr,
    TensorStatus,
)

F32 = DType.F32
Q = QFloat(parse_scheme("q4s:block=32:scale=f16").per_tensor(
    parse_scheme("q4s:block=32:scale=f16").scale_dtype()))


def _ir(i: int, dtype: object = F32, status: TensorStatus = TensorStatus.READ_WRITE) -> TensorIr:
    return TensorIr(TensorId(i), (2, 64), status, dtype)  # type: ignore[arg-type]


REQUEST = TransferRequest.of("peer2/cpu:1", policy="dequantize", path="bytes",
                             transport="websocket", arrival="target-first")
DATA = TensorData(np.arange(6, dtype=np.float32).tobytes(), (2, 3), F32)
EVERY_OP = [
    InitOp(_ir(1, status=TensorStatus.NOT_INIT)), DropOp(_ir(1)),
    RegisterDataOp(_ir(2), DATA, REQUEST), RegisterDataOp(_ir(2), DATA),
    ReadOp(_ir(3, Q), REQUEST), AddOp(_ir(1), _ir(2, status=TensorStatus.READ_ONLY), _ir(3)),
    MulOp(_ir(1), _ir(2), _ir(3)), MatmulOp(_ir(1), _ir(2), _ir(3)),
    ReshapeOp(_ir(1), _ir(2)), SwapDimsOp(_ir(1), 0, 1, _ir(2)), CastOp(_ir(1), _ir(2, DType.BF16)),
    QuantizeOp(_ir(1), Q.scheme, _ir(2, Q), QuantizeParams((0.5, 0.25), 2.0)),
    QuantizeOp(_ir(1), parse_scheme("q8s"), _ir(2, QFloat(parse_scheme("q8s"))), None),
    DequantizeOp(_ir(1, Q), _ir(2)), ExposeLocalOp(_ir(1, Q), 7, REQUEST),
    RegisterLocalOp(7, _ir(2, Q, TensorStatus.NOT_INIT), REQUEST),
    ExposeRemoteOp(_ir(1), 8), RegisterRemoteOp(8, _ir(2), REQUEST),
    CustomOp("fused_add_mul", (_ir(1), _ir(2, status=TensorStatus.READ_ONLY), _ir(3)),
             (_ir(4, status=TensorStatus.NOT_INIT),), (0.5, 2.0)),
]


def test_every_op_class_is_covered() -> None:
    assert {type(op).__name__ for op in EVERY_OP} == set(OPS)


@pytest.mark.parametrize("op", EVERY_OP, ids=lambda op: type(op).__name__)
def test_every_op_round_trips_through_msgpack(op: object) -> None:
    (message,) = _wire([{"k": task_kind(op), "op": encode_op(op)}])  # type: ignore[arg-type]
    back = decode_op(message["op"])
    assert back == op and type(back) is type(op)
    for field in dataclasses.fields(back):  # the same values, and ids that are still TensorIds
        value = getattr(back, field.name)
        if isinstance(value, TensorIr):
            assert type(value.id) is TensorId and isinstance(value.shape, tuple)


def test_data_bytes_travel_as_one_bin() -> None:
    (message,) = _wire([{"k": "x", "op": encode_op(RegisterDataOp(_ir(2), DATA))}])
    assert decode_op(message["op"]).data.to_numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    big = TensorData(np.arange(1 << 16, dtype=np.float32).tobytes(), (1 << 16,), F32)
    frames = P.pack([{"k": "x", "op": encode_op(RegisterDataOp(_ir(2), big))}])
    assert len(frames) == 2 and frames[1] is big.bytes  # the bytes travel as they are: no copy
    (message,) = P.unpack(frames[0], [bytes(frames[1])])
    assert decode_op(message["op"]).data == big


def _wire(messages: list[dict[str, object]]) -> list[dict[str, object]]:
    """`messages` after a trip through the frames that carry them."""
    header, *blobs = P.pack(messages)  # type: ignore[arg-type]
    return P.unpack(header, [bytes(b) for b in blobs])  # type: ignore[return-value]


@pytest.mark.parametrize(("raw", "says"), [
    ({"op": "Eval"}, "unknown op 'Eval'"),
    ({"op": "DropOp"}, "takes fields ['tensor']"),
    ({"op": "DropOp", "tensor": 3}, "must be a tensor use"),
    ({"op": "DropOp", "tensor": {"~": "pickle"}}, "unknown value tag 'pickle'"),
    ({"op": "DropOp", "tensor": {"~": "tir", "id": -1, "shape": [], "status": "ReadWrite",
                                 "dtype": "f32"}}, "non-negative int"),
    ({"op": "DropOp", "tensor": {"~": "tir", "id": 1, "shape": [2], "status": "Gone",
                                 "dtype": "f32"}}, "malformed tir"),
    ({"op": "DropOp", "tensor": {"~": "tir", "id": 1, "shape": [2], "status": "ReadWrite",
                                 "dtype": "f33"}}, "malformed tir"),
    ({"op": "DropOp", "tensor": {"~": "tir", "id": 1, "shape": [-2], "status": "ReadWrite",
                                 "dtype": "f32"}}, "shape"),
    ({"op": "DropOp", "tensor": {"~": "tir", "id": 1}}, "missing field"),
    ("DropOp", "expected an op"),
])
def test_a_malformed_op_is_one_codec_error(raw: object, says: str) -> None:
    with pytest.raises(CodecError, match=None) as error:
        decode_op(raw)
    assert says in str(error.value) and "\n" not in str(error.value)


NO_BLOBS = bytes(4)


@pytest.mark.parametrize("frame", [b"\xc1", NO_BLOBS + b"\xc1", NO_BLOBS + msgpack.packb([1, 2]),
                                   NO_BLOBS + msgpack.packb([{"x": 1}]), b"\xff\xff\0\0", "text",
                                   b"\1\0\0\0" + msgpack.packb([{"k": "x"}])])
def test_a_frame_that_is_not_messages_is_refused(frame: object) -> None:
    with pytest.raises(CodecError):
        P.unpack(frame)


def test_a_blob_the_header_does_not_announce_is_refused() -> None:
    header = NO_BLOBS + msgpack.packb([{"k": "x", "b": msgpack.ExtType(P.BLOB, bytes(4))}])
    with pytest.raises(CodecError, match="blob 0"):
        P.unpack(header)


def test_panics_keep_their_parts_across_the_wire() -> None:
    panic = BurnTodo("crates/burn-router/src/interpreter.rs:2161")
    panic.session, panic.effects = "peer1/cpu:0", ("target waits",)
    back = decode_error(_wire([{"k": "e", **encode_error(panic)}])[0])
    assert type(back) is BurnTodo and str(back) == str(panic) and back.source == panic.source
    missing = decode_error(encode_error(MissingHandleError(4)))
    assert type(missing) is MissingHandleError and missing.tensor_id == 4  # type: ignore[attr-defined]
    assert type(decode_error(encode_error(DeadlockError("x")))) is DeadlockError
    assert type(decode_error(encode_error(ShapeError("bad")))) is ShapeError
    internal = decode_error(encode_error(KeyError("boom")))
    assert "internal error on the peer: KeyError" in str(internal)
