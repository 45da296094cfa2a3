"""The decoder of a served peer, fuzzed over the message schema (hypothesis): random kinds (known
and unknown), random field types, sizes and depths, NaN and infinity, unknown op names and value
tags. Whatever comes, reading a frame, checking a message and decoding its op either succeed or
raise one `CodecError`: nothing else escapes to kill a worker. A short run against a live peer
shows each bad frame closing only its own connection."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from routerlab.core import Runtime
from routerlab.core.base.data import TensorData
from routerlab.core.base.dtypes import DType
from routerlab.core.remote import protocol as P
from routerlab.core.remote import schema
from routerlab.core.remote.auth import bearer
from routerlab.core.remote.codec import OPS, CodecError, encode_op
from routerlab.core.router.ir import MatmulOp, RegisterDataOp, TensorId, TensorIr, TensorStatus
from routerlab.core.serving.frames import decoded

KINDS = [*schema.FIELDS, *schema.DATA_FIELDS, "Shell", "", "k" * 300]
TAGS = ["tir", "dtype", "scheme", "data", "request", "qparams", "eval", "__import__"]
FIELD_NAMES = sorted({f for table in (*schema.FIELDS.values(), *schema.DATA_FIELDS.values())
                      for f in table} | {f.name for cls in OPS.values()
                                         for f in dataclasses.fields(cls)} | {"~", "op", "v"})

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(1 << 63), (1 << 64) - 1),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
    st.binary(max_size=32), st.sampled_from(KINDS), st.sampled_from(TAGS),
    st.sampled_from(list(OPS)), st.sampled_from([d.value for d in DType]))
keys = st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8), st.integers(-5, 5))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(keys, inner, max_size=6)), max_leaves=40)


def _tir(tensor_id: int, shape: tuple[int, ...]) -> TensorIr:
    return TensorIr(TensorId(tensor_id), shape, TensorStatus.READ_ONLY, DType.F32)


REAL = [
    encode_op(MatmulOp(_tir(0, (2, 3)), _tir(1, (3, 2)), _tir(2, (2, 2)))),
    encode_op(RegisterDataOp(_tir(3, (2,)), TensorData(np.ones(2, np.float32).tobytes(), (2,),
                                                       DType.F32))),
]


@st.composite
def messages(draw: st.DrawFn) -> dict[Any, Any]:
    """A message of a known or unknown kind: its fields drawn from the schema's names with
    random values, or a real op with one part replaced at random depth."""
    message: dict[Any, Any] = {"k": draw(st.sampled_from(KINDS) | st.integers() | st.none())}
    for name in draw(st.lists(st.sampled_from(FIELD_NAMES), max_size=6, unique=True)):
        message[name] = draw(values)
    if draw(st.booleans()):
        message["op"] = draw(_mutated(REAL[draw(st.integers(0, len(REAL) - 1))]))
    return message


@st.composite
def _mutated(draw: st.DrawFn, value: Any) -> Any:
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value, key=str)))
        return {**value, key: draw(_mutated(value[key]))}
    if isinstance(value, list) and value and draw(st.booleans()):
        index = draw(st.integers(0, len(value) - 1))
        return [*value[:index], draw(_mutated(value[index])), *value[index + 1:]]
    return draw(values) if draw(st.booleans()) else value


def _only_codec_errors(frame: bytes) -> None:
    try:
        batch = P.unpack(frame)
    except CodecError:
        return
    for message in batch:
        for check in (lambda m: decoded(dict(m)), lambda m: schema.check(dict(m), "/data")):
            with contextlib.suppress(CodecError):
                check(message)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), min_size=1, max_size=3))
def test_any_message_decodes_or_is_one_codec_error(batch: list[dict[Any, Any]]) -> None:
    try:
        frame = bytes(4) + msgpack.packb(batch, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return  # not MessagePack at all: nothing a socket could carry
    _only_codec_errors(frame)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.integers(0, 3))
def test_any_bytes_are_read_or_refused_in_one_line(tail: bytes, blobs: int) -> None:
    _only_codec_errors(blobs.to_bytes(4, "little") + tail)


@pytest.mark.parametrize("depth", [63, 1000, 100_000])
def test_any_depth_is_refused_without_recursion(depth: int) -> None:
    nested = b"\x91" * depth + b"\x01"  # [[[...1...]]], written as MessagePack by hand
    frame = bytes(4) + b"\x91\x82\xa1k\xa4Sync\xa4sent" + nested
    with pytest.raises(CodecError, match="wrong type|deeper than|not MessagePack"):
        decoded(P.unpack(frame)[0])


@settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(messages())
def test_a_live_peer_answers_or_closes_and_goes_on(peers: dict[str, str],
                                                  message: dict[Any, Any]) -> None:
    address = peers["peer1"]
    try:
        frames = P.pack([message])
    except (OverflowError, TypeError, ValueError, CodecError):
        return
    with connect(f"{address}/session", open_timeout=5, additional_headers=bearer(address)) as ws:
        for frame in frames:
            ws.send(frame)
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            P.receive(lambda: ws.recv(timeout=1))
    with Runtime(peers={"peer1": address}) as rt:  # the peer goes on
        assert rt.read(rt.tensor([3], device="peer1/cpu:0", dtype="i32")).tolist() == [3]
