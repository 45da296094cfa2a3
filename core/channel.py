"""Moving a tensor to another device: the router entry point and its two channel kinds.

`to_device` is the router's `*_to_device` (`crates/burn-router/src/ops/tensor.rs:89-94`): the same
device returns the input unchanged, anything else goes to a channel's `change_client_backend`.

* `bridge_change_backend` is the trait's *default* `change_client_backend`
  (`crates/burn-router/src/channel/base.rs:42-63`): consume the tensor, take its handle from the
  source interpreter in-process, convert it with the bridge (a byte round-trip between the two
  backends), register it on the target. It dispatches on `is_float / is_int / is_bool`, so in
  legacy mode anything else hits `unimplemented!()` (base.rs:58), on the client.
* `remote_change_backend` is `RemoteChannel`'s override (`crates/burn-remote/src/client/
  channel.rs:45-62`, `client/runner.rs:406-487`), which does not look at the dtype: same peer, it
  submits an expose to the source session and a register to the target (rendezvous); different
  peers, the source reads back to bytes and the target registers from data.

In both, a unique tensor is consumed ReadWrite (it *moves*: the source entry is gone and the target
holds a new id) and a shared one ReadOnly (it is *copied*: clones keep the old id).
"""

from __future__ import annotations

from .backend import Kind, kind_of
from .client import RouterClient
from .devices import Path, automatic_path, check_forced_path
from .errors import BurnPanic, BurnUnimplemented, DeviceError
from .ir import (
    ExposeLocalOp,
    ExposeRemoteOp,
    RegisterLocalOp,
    RegisterRemoteOp,
    TensorIr,
)
from .policies import Policy
from .request import Arrival, TransferRequest
from .session import Session
from .tensor import RouterTensor

SRC_BRIDGE = "crates/burn-router/src/channel/base.rs:58"
SRC_REGISTER = "crates/burn-remote/src/client/channel.rs:42"
REMOTE_REGISTER_PANIC = "Can't register manually a tensor on a remote channel."
SRC_ROUTER_Q_INTO_DATA = "crates/burn-router/src/ops/qtensor.rs:45-46"


def to_device(tensor: RouterTensor, target: RouterClient, request: TransferRequest,
              arrival: Arrival = Arrival.SOURCE_FIRST) -> RouterTensor:
    """Move `tensor` to `target`'s device by the request's path (from the topology when None)."""
    tensor.check()
    source = tensor.device
    path = request.path
    if path is None:
        path = automatic_path(source, target.device)
    else:
        check_forced_path(path, source, target.device)
    if path is Path.SAME:
        return tensor
    tensor.client.session.check_alive()
    target.session.check_alive()
    if path is Path.DISPATCH:
        return dispatch_change_backend(tensor, target, request)
    if path is Path.BRIDGE:
        if not isinstance(tensor.client.session, Session) or not isinstance(target.session,
                                                                            Session):
            raise DeviceError("path 'bridge' hands a handle from one interpreter to another "
                              "inside one process; a served peer's handles live in its own")
        return bridge_change_backend(tensor, target, request)
    return remote_change_backend(tensor, target, path, request, arrival)


def bridge_change_backend(tensor: RouterTensor, target: RouterClient,
                          request: TransferRequest) -> RouterTensor:
    """The default `change_client_backend`, run on the client (in-process)."""
    source = tensor.client
    source_session, target_session = source.session, target.session
    assert isinstance(source_session, Session) and isinstance(target_session, Session)
    source.sync()
    desc = tensor.into_ir()
    policy = request.decided_policy
    legacy = policy is Policy.LEGACY
    kind = kind_of(desc.dtype)
    handle = source_session.take_handle(desc)
    if legacy and kind in (Kind.UINT, Kind.QUANTIZED):
        raise BurnUnimplemented(SRC_BRIDGE)
    moved = target_session.convert_from(source_session, handle, kind, policy)
    if legacy:  # `Self::register_tensor` (base.rs:61-63), which a remote channel refuses
        raise BurnPanic(REMOTE_REGISTER_PANIC, SRC_REGISTER)
    new_id = target.create_empty_handle()
    target_session.handles.register(new_id, moved)
    source.server.trace.record("bridge", str(target.device), new_id, None,
                               getattr(moved, "nbytes", 0),
                               f"#{int(desc.id)} {desc.status} on {source.device} -> "
                               f"{target.device}")
    return RouterTensor(new_id, desc.shape, desc.dtype, target)


def dispatch_change_backend(tensor: RouterTensor, target: RouterClient,
                            request: TransferRequest) -> RouterTensor:
    """Burn's Dispatch between two backends, a layer above the router
    (`crates/burn-dispatch/src/ops/tensor.rs`, `ops/qtensor.rs:36-50`): `into_data` on the
    source (a read back to the client), then `from_data` on the target. The client holds the
    bytes in between, which the router's own paths never do."""
    source = tensor.client
    legacy = request.decided_policy is Policy.LEGACY
    if legacy and kind_of(tensor.dtype) is Kind.QUANTIZED:  # Dispatch's q_into_data, on the client
        raise BurnUnimplemented(SRC_ROUTER_Q_INTO_DATA)
    data = source.read_tensor(tensor.into_ir(), request)
    moved = target.register_tensor_data(data, request)
    source.server.trace.record(
        "dispatch", str(target.device), moved.id, None, data.num_bytes,
        f"into_data on {source.device}, from_data on {target.device} (through the client)")
    return moved


def remote_change_backend(tensor: RouterTensor, target: RouterClient, path: Path,
                          request: TransferRequest, arrival: Arrival) -> RouterTensor:
    """`RemoteChannel::change_client_backend`: two tasks, one per session, then run them."""
    source = tensor.client
    desc = tensor.into_ir()
    transfer_id = source.server.new_transfer(source.device, target.device)
    new_id = target.create_empty_handle()
    out = TensorIr.uninit(new_id, desc.shape, desc.dtype)
    if path is Path.LOCAL:
        source.register_op(ExposeLocalOp(desc, transfer_id, request))
        target.register_op(RegisterLocalOp(transfer_id, out, request))
    else:
        source.register_op(ExposeRemoteOp(desc, transfer_id, request))
        target.register_op(RegisterRemoteOp(transfer_id, out, request))
    first = target.session if arrival is Arrival.TARGET_FIRST else source.session
    source.server.run(first)
    return RouterTensor(new_id, desc.shape, desc.dtype, target)

