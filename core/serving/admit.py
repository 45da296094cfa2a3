"""What a served peer admits before anything is allocated: each op's declared shapes, each
client's share of the peer's memory, and the peers it may download from (`AllowList`).

A client declares every tensor an op uses and makes (`TensorIr`); the in-process client infers
the output from its inputs before it submits (`core/router/ir.py`), but a peer cannot trust a
client. Before a task is queued, `admit` checks that every declared shape is within docs/limits.md
(`MAX_DIMS`, `MAX_ELEMENTS`, and the free memory for results of 256 MiB or more, as the CLI
checks them), that the declared output is the one the op's own `infer` gives for the declared
inputs, that registered data is as long as its shape says, and that the output fits in what the
client may still hold (`Share`). When the op runs, the backend checks the result of the *actual*
operands again before it allocates (`faults.LimitedBackend`), so inputs that are not what they
were declared to be cannot allocate more either.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from ..base.data import TensorData
from ..base.dtypes import DType
from ..base.errors import LimitError, RouterLabError, ShapeError
from ..base.limits import check_elements, check_result, human_bytes
from ..remote.address import check_address
from ..remote.protocol import CodecError
from ..router.ir import (
    BinaryOp,
    CastOp,
    DequantizeOp,
    OperationIr,
    QuantizeOp,
    RegisterDataOp,
    ReshapeOp,
    SwapDimsOp,
    TensorIr,
)

CLIENT_SHARE_BYTES = 4 << 30
"""The most one client's tensors may hold on a peer, over all its devices, unless `routerlab
serve --client-memory` says otherwise (4 GiB: half of a `MAX_ELEMENTS` f32 tensor)."""
MAX_CLIENT_SHARE_BYTES = 1 << 40
"""The largest share a peer may give (1 TiB, more memory than a RouterLab machine has): a larger
`--client-memory` is a typo, refused at start rather than taken as no limit."""


class Share:
    """One client's share of a peer's memory: what its registries hold, and the most they may."""

    def __init__(self, limit: int, held: Callable[[], int]) -> None:
        self.limit, self.held = limit, held

    def charge(self, nbytes: int, what: str) -> None:
        """Refuse `nbytes` more when the client would then hold more than its share."""
        held = self.held()
        if held + nbytes > self.limit:
            raise LimitError(f"{what} needs {human_bytes(nbytes)} with {human_bytes(held)} held "
                             f"by this client; a client holds at most {human_bytes(self.limit)} "
                             "on this peer (routerlab serve --client-memory)")


def itemsize(tensor: TensorIr) -> int:
    return tensor.dtype.size if isinstance(tensor.dtype, DType) else 1


def admit(op: OperationIr, share: Share) -> None:
    """Refuse `op` before it is queued (see the module): a `RouterLabError` is the step's error;
    a value that does not even have the model's types is a `CodecError`."""
    try:
        for tensor in (*op.inputs(), *op.outputs()):
            check_elements(tensor.shape, f"tensor #{int(tensor.id)}", ShapeError)
        expected = _inferred(op)
        for out in op.outputs():
            if expected is not None and (tuple(expected[0]), expected[1]) != (out.shape,
                                                                              out.dtype):
                raise ShapeError(f"{op.name}: the declared result {list(out.shape)} {out.dtype} "
                                 f"is not what its inputs give ({list(expected[0])} "
                                 f"{expected[1]})")
            if isinstance(op, RegisterDataOp):
                _data_matches(op.data, out)
            nbytes = math.prod(out.shape) * itemsize(out)
            check_result(out.shape, itemsize(out), f"{op.name} result", LimitError)
            share.charge(nbytes, f"{op.name} result {list(out.shape)}")
    except RouterLabError:
        raise
    except (TypeError, ValueError, IndexError, ArithmeticError, AttributeError) as error:
        raise CodecError(f"{op.name}: ill-typed fields ({type(error).__name__})") from None


def _inferred(op: OperationIr) -> tuple[Any, Any] | None:
    """What the op's own shape inference gives for its declared inputs (None: no inference)."""
    if isinstance(op, BinaryOp):
        return type(op).infer(op.lhs, op.rhs)
    if isinstance(op, ReshapeOp):
        return op.infer(op.input, op.out.shape)
    if isinstance(op, SwapDimsOp):
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in (op.dim1, op.dim2)):
            raise ShapeError(f"swap_dims takes two int dims, got {op.dim1!r:.20} and "
                             f"{op.dim2!r:.20}")
        return op.infer(op.input, op.dim1, op.dim2)
    if isinstance(op, CastOp | DequantizeOp):
        return op.infer(op.input, op.out.dtype)
    if isinstance(op, QuantizeOp):
        return op.infer(op.tensor, op.scheme, op.params)
    return None


def _data_matches(data: TensorData, out: TensorIr) -> None:
    if (tuple(data.shape), data.dtype) != (out.shape, out.dtype):
        raise ShapeError(f"register_data: data of {list(data.shape)} {data.dtype} declared as "
                         f"{list(out.shape)} {out.dtype}")
    if isinstance(data.dtype, DType) and len(data.bytes) != math.prod(out.shape) * itemsize(out):
        raise ShapeError(f"register_data: {len(data.bytes)} bytes for {list(out.shape)} "
                         f"{out.dtype} ({math.prod(out.shape) * itemsize(out)} expected)")


class AllowList:
    """The peers a peer may download from: addresses compared as written, host in lower case
    (no name is resolved: resolving would itself reach out). Anything else is refused before
    a connection is made, with a line that says nothing about the address (`host.NOT_ALLOWED`)."""

    def __init__(self, addresses: Iterable[str] = ()) -> None:
        self.addresses = {_canonical(a) for a in addresses}

    def permits(self, address: str) -> bool:
        try:
            return _canonical(address) in self.addresses
        except RouterLabError:
            return False


def _canonical(address: str) -> str:
    return check_address(address).lower()

