"""`Runtime`: the friendly facade that the CLI, notebooks and exercises use.

A `Runtime` is the model's *process*: one id counter for every client, one server side with a
session per device, one trace. Each public method is one *step*: it opens a journal, does its
work through the client, channel and sessions, runs the sessions to completion, and either commits
or, on any error, rolls every registry, rendezvous map and client clone count back to exactly
where they were before raising. A device first named by a step is created inside it, so a failed
step also forgets the device it created (`rt.devices` and `rt.registries()` are as they were).
The methods are thin; the behaviour lives in the modules below.

    rt = Runtime()
    x = rt.tensor([[1, 2], [3, 4]], device="cpu:0", dtype="f32")
    y = rt.add(x, x.clone())                 # x is consumed, as an op input is in Rust
    z = rt.to_device(y, "cpu:1")             # unique: moves (path local, automatic)
    rt.read(z)                               # numpy array; z stays usable
    rt.registry("cpu:1"); rt.explain(z.id); rt.trace.view()
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, Unpack

import numpy as np

from .base.data import TensorData
from .base.devices import Device, DeviceLike, Path, check_topology, parse_device
from .base.dtypes import AnyDType, DType, QFloat, is_quantized
from .base.errors import DeviceError, DTypeError, RouterLabError, UnknownTensorError
from .base.policies import DEFAULT_POLICY, Policy, spelled_policy
from .base.profiles import Profile
from .base.request import Arrival, TransferRequest, Transport
from .base.trace import Detail, Trace, TraceEvent
from .base.view import TableView
from .fastpath import binary_step, fast_ops, move_step, opens_fast_path
from .fix.advertised import Advertisement, advertise
from .fix.fusion import held_in_stream, legacy_quantize_wall
from .fix.guard import TransferPlan
from .moves import check_quantize, move, plan, q_to_device, upload
from .quant import QuantizedTensor, QuantScheme, from_bytes
from .router.client import RouterClient, build_op, common_client
from .router.custom_op import build_custom
from .router.handles import Journal
from .router.ir import (
    AddOp,
    CastOp,
    DequantizeOp,
    MatmulOp,
    MulOp,
    OperationIr,
    QuantizeOp,
    ReadOp,
    ReshapeOp,
    SwapDimsOp,
    TensorId,
)
from .router.port import Reply, SessionPort
from .router.server import Server
from .router.session import Session
from .router.tensor import RouterTensor
from .runtime_options import OptionNames, RuntimeOptions
from .snapshot import Deployment, describe
from .step import Step
from .wire.closures import describe_drain
from .wire.queue import Batch, Drained, WireQueue

T = TypeVar("T")


class Runtime:
    """One simulated deployment: devices (sessions), clients, the trace."""

    def __init__(self, devices: Iterable[DeviceLike] | None = None,
                 options: RuntimeOptions | None = None, **given: Unpack[OptionNames]) -> None:
        """`devices=None` creates any `cpu:N` / `cuda:N` on first use; a list closes the set.
        Every other option is a field of `RuntimeOptions`, given by name
        (`Runtime(["cpu:0"], policy="legacy")`) or as one value (`options=...`, then the names
        given change it). The runtime owns its extensions and hands them to every interpreter
        it builds."""
        self.options = chosen = (options or RuntimeOptions()).but(**given)
        self.trace = Trace()
        self.journal = Journal()
        self.policy = spelled_policy(chosen.policy, chosen.legacy) or DEFAULT_POLICY
        self._served: frozenset[str] = frozenset(chosen.peers or ())
        if chosen.peers:
            # Here, not at the top: the client of served peers loads websockets and msgpack,
            # which a runtime without peers never needs (start-up cost only; the contracts of
            # tests/packaging/test_contracts.py read these imports too and find no loop).
            from .remote.address import check_peers
            from .remote.deployment import Deployment

            deployment = Deployment(self.trace, self.journal)
            deployment.connect(check_peers(chosen.peers), self.policy, chosen.cubecl_legacy)
            self.server: Server = deployment
        else:
            self.server = chosen.server(self.trace, self.journal)
        self.arrival = Arrival.parse(chosen.arrival)
        quantized = chosen.quantized
        if quantized is None:
            # Here: the fix's arms load the quantization kernels (start-up cost only; no loop).
            from .fix.arms import QuantizedTransfers

            quantized = QuantizedTransfers()
        self._quantized = quantized or None
        self._arms = dict(chosen.arms or {})
        self._custom_ops = chosen.custom_ops
        self._interpreter = chosen.interpreter
        self._backends = chosen.backends
        self.fusion = chosen.fusion
        self.wire = chosen.wire
        self.cubecl_legacy = chosen.cubecl_legacy
        self.transport = Transport.parse(chosen.transport)
        self.fast_ops = fast_ops(chosen, self.server)
        """The binary ops whose steps take the fast path (`core/fastpath.py`); empty if none."""
        self.fast_moves = opens_fast_path(chosen, self.server)
        """Whether a same-peer move may take the fast path (`core/fastpath.py`)."""
        self._minted = 0
        self._clients: dict[Device, RouterClient] = {}
        self._declared: list[Device] | None = None
        if devices is not None:
            try:
                self._declared = [parse_device(d) for d in devices]
                check_topology(self._declared)
                for device in self._declared:
                    self.client(device)
            except BaseException:
                self.close()
                raise

    @property
    def legacy(self) -> bool:
        """Whether this runtime replays Burn 2c06be3 (its policy is `legacy`)."""
        return self.policy is Policy.LEGACY

    # --- devices -----------------------------------------------------------------------------

    def _new_id(self) -> TensorId:
        """The next client id; ids are 0, 1, 2, … so `_minted` is also the next one."""
        self._minted += 1
        return TensorId(self._minted - 1)

    def existing_client(self, device: Device) -> RouterClient | None:
        """The client of a device already in use, or None: unlike `client`, never creates a
        session (the fast path takes only devices that exist)."""
        return self._clients.get(device)

    def client(self, device: DeviceLike) -> RouterClient:
        """The client of `device`, creating its session on first use (Burn's `get_client`).
        Inside a step the creation is journaled: if the step fails, the device is forgotten."""
        parsed = parse_device(device)
        client = self._clients.get(parsed)
        if client is not None:
            return client
        self._check_declared(parsed)
        if parsed.peer in self._served:
            remote = self.server.open(parsed)  # type: ignore[attr-defined]  # a Deployment
            return self._attach(parsed, remote)
        backend = self._backends(parsed)
        backend.scales_left_behind = self.cubecl_legacy and parsed.profile is Profile.CUBECL
        custom = {} if self._custom_ops is None else {"custom_ops": self._custom_ops}
        interpreter = self._interpreter(backend, self.trace, policy=self.policy,
                                        quantized=self._quantized, arms=self._arms, **custom)
        return self._attach(parsed, Session(interpreter, self.server))

    def _attach(self, device: Device, session: Session) -> RouterClient:
        """Add `session` to the server and give it a client (forgotten if the step fails)."""
        self.server.add(session)
        wire = WireQueue(str(device), self._record_batch, lambda: self.trace.step,
                         on_drain=functools.partial(self._record_drain, str(device))) \
            if self.wire else None
        client = self._clients[device] = RouterClient(session, self.server, self._new_id,
                                                      self.fusion, wire)
        if self.journal.active:
            self.journal.on_rollback(self._forget, device)
        return client

    def _record_batch(self, batch: Batch) -> None:
        """A batch left a client (`wire`): one trace event, its reason as the status."""
        self.trace.record("batch", batch.device, None, batch.reason, batch.nbytes,
                          batch.describe())

    def _record_drain(self, device: str, drained: Drained) -> None:
        """The device runner ran the client's queued closures (`wire`): one trace event, why
        as the status (core/wire/closures.py)."""
        reason, tasks, _ = drained
        self.trace.record("drain", device, None, reason, 0, describe_drain(device, reason, tasks))

    def close(self) -> None:
        """End this runtime's sessions on its served peers (`Close`); in-process, nothing."""
        close = getattr(self.server, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _device(self, device: DeviceLike) -> Device:
        """Parse `device` and check that this runtime may have it, creating nothing: a step
        checks its device before it begins and creates the device's session inside it."""
        parsed = parse_device(device)
        if parsed not in self._clients:
            self._check_declared(parsed)
        return parsed

    def _check_declared(self, device: Device) -> None:
        """A closed runtime refuses a device it was not given; any refuses a topology Burn cannot
        have (`check_topology`)."""
        if self._declared is not None and device not in self._declared:
            known = ", ".join(str(d) for d in self._declared)
            raise DeviceError(f"unknown device {device}; this runtime has: {known}")
        check_topology([*self._clients, device])

    def _forget(self, device: Device) -> None:
        """Undo `client`'s creation of `device` (a failed step's rollback)."""
        self.server.remove(self._clients.pop(device).session)

    @property
    def devices(self) -> list[Device]:
        return list(self._clients)

    def session(self, device: DeviceLike) -> SessionPort:
        """`device`'s session as its client sees it (`SessionPort`: in-process or served)."""
        return self.client(device).session

    # --- one step, all or nothing ------------------------------------------------------------

    def step(self, what: str | Detail) -> Step:
        """`with rt.step(what):` one numbered step, all or nothing (`core/step.py`): what a
        public method does, and what a caller may do to make several calls one step."""
        return Step(self, what)

    def atomic(self, what: str | Detail, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` as one step (`step`); a call made inside another step joins it."""
        with self.step(what):
            return work(*args)

    # --- tensors and ops ---------------------------------------------------------------------

    def tensor(self, values: Any, device: DeviceLike = "cpu:0",
               dtype: DType | str | None = None) -> RouterTensor:
        """A new tensor from values (`*_from_data`: register the data, then `Init`). Values
        the dtype cannot hold exactly are refused (`TensorData.from_array`)."""
        target = self._device(device)
        parsed = DType.parse(dtype) if isinstance(dtype, str) else dtype
        data = TensorData.from_array(values, parsed)
        return self.from_data(data, target)

    def from_data(self, data: TensorData, device: DeviceLike = "cpu:0") -> RouterTensor:
        """Register host data on `device`; quantized data arrives in the layout the device's
        profile holds (docs/transfers.md, "Arrival check")."""
        target = self._device(device)
        return self.atomic("create", lambda: upload(self.client(target), data))

    def op(self, op_type: Any, *inputs: RouterTensor, params: Sequence[Any] = ()) -> RouterTensor:
        """Any op class of `ir.py` (or an extension's) applied to `inputs`; the inputs are
        consumed. `rt.op(QuantizeOp, x, params=(scheme, qparams))`."""
        if len(inputs) == 2 and not params:
            return self._binary(op_type, *inputs)
        return self.atomic(op_type.name, build_op, op_type, list(inputs), *params)

    def add(self, lhs: RouterTensor, rhs: RouterTensor) -> RouterTensor:
        return self._float_op(AddOp, lhs, rhs)

    def mul(self, lhs: RouterTensor, rhs: RouterTensor) -> RouterTensor:
        return self._float_op(MulOp, lhs, rhs)

    def matmul(self, lhs: RouterTensor, rhs: RouterTensor) -> RouterTensor:
        return self._float_op(MatmulOp, lhs, rhs)

    def _float_op(self, op_type: Any, lhs: RouterTensor, rhs: RouterTensor) -> RouterTensor:
        """A float op; with a quantized operand, the trait's default Burn's router takes
        (`q_add`, `q_mul`, `q_matmul`; core/fix/qops.py): dequantize, then the float op, the
        result a float (propagation `Inhibit`, Burn's default). Under `legacy` the default's
        first `dequantize` is the router's `unimplemented!()`. One step: all or nothing."""
        if not (is_quantized(lhs.dtype) or is_quantized(rhs.dtype)):
            return self._binary(op_type, lhs, rhs)
        return self.atomic(op_type.name, self._dequantized_op, op_type, lhs, rhs)

    def _binary(self, op_type: Any, lhs: RouterTensor, rhs: RouterTensor) -> RouterTensor:
        """An op of two inputs and no parameters: a fast step when the fast path takes it
        (`core/fastpath.py`), else the readable one."""
        if op_type in self.fast_ops:
            out = binary_step(self, op_type, lhs, rhs)
            if out is not None:
                return out
        return self.atomic(op_type.name, build_op, op_type, [lhs, rhs])

    def _dequantized_op(self, op_type: Any, lhs: RouterTensor,
                        rhs: RouterTensor) -> RouterTensor:
        floats = [t.dtype for t in (lhs, rhs) if isinstance(t.dtype, DType)]
        dtype = floats[0] if floats else DType.F32  # q_matmul's target dtype (qtensor.rs:506-513)
        lhs, rhs = (self.dequantize(t, dtype) if is_quantized(t.dtype) else t for t in (lhs, rhs))
        return build_op(op_type, [lhs, rhs])

    def custom(self, op_id: str, *inputs: RouterTensor,
               outputs: Sequence[tuple[Sequence[int], AnyDType | str]],
               scalars: Sequence[float] = ()) -> list[RouterTensor]:
        """A backend extension's custom op (core/router/custom_op.py): the inputs consumed, one
        tensor per declared `(shape, dtype)` output. The server's handler for `op_id` runs it
        (`Runtime(custom_ops=...)`; a served peer's are the example handlers,
        core/router/custom_examples.py); with none, the session panics with Burn's text."""
        if not inputs:
            raise RouterLabError(f"custom op {op_id!r}: give it at least one input tensor")
        declared = [(tuple(shape), DType.parse(d) if isinstance(d, str) else d)
                    for shape, d in outputs]
        return self.atomic(Detail("custom {}", op_id), lambda: build_custom(
            common_client(list(inputs)), op_id, inputs, declared, scalars))

    def reshape(self, tensor: RouterTensor, shape: Sequence[int]) -> RouterTensor:
        return self.op(ReshapeOp, tensor, params=(tuple(shape),))

    def swap_dims(self, tensor: RouterTensor, dim1: int, dim2: int) -> RouterTensor:
        return self.op(SwapDimsOp, tensor, params=(dim1, dim2))

    def cast(self, tensor: RouterTensor, dtype: AnyDType | str) -> RouterTensor:
        return self.op(CastOp, tensor, params=(DType.parse(dtype) if isinstance(dtype, str)
                                               else dtype,))

    def clone(self, tensor: RouterTensor) -> RouterTensor:
        """A second reference (count + 1); nothing reaches the server, only the trace: a step
        of its own, or a line of the step it is made in."""
        clone = tensor.clone()
        if not self.journal.active:
            self.trace.open_step()
        self.trace.record("clone", tensor.client.session.label, tensor.id, None, 0,
                          f"client count now {clone.count}")
        return clone

    def drop(self, tensor: RouterTensor) -> None:
        """End one reference; the last one sends `Drop(ReadWrite)`."""
        self.atomic("drop", tensor.drop)

    def read_data(self, tensor: RouterTensor, consume: bool = False) -> TensorData:
        """Read back as `TensorData`. By default a clone is read (Burn's `to_data`), so the
        tensor stays registered; `consume=True` is `into_data` (a ReadWrite last use frees it)."""
        def read() -> TensorData:
            reader = tensor if consume else tensor.clone()
            return reader.client.read_tensor(reader.into_ir())

        return self.atomic("read", read)

    def read(self, tensor: RouterTensor, consume: bool = False) -> np.ndarray:
        """Read back as a numpy array (see `read_data`). A quantized tensor is refused before
        anything is read, so `consume=True` does not free it on the way to the error."""
        tensor.check()
        if is_quantized(tensor.dtype):
            raise DTypeError("quantized TensorData has no plain array view; use read_quantized "
                             "or dequantize")
        return self.read_data(tensor, consume).to_numpy()

    def to_device(self, tensor: RouterTensor, device: DeviceLike, path: Path | str | None = None,
                  *, policy: Policy | str | None = None, legacy: bool | None = None,
                  arrival: Arrival | str | None = None,
                  transport: Transport | str | None = None) -> RouterTensor:
        """Move to `device` (see `TransferRequest` for every option; `legacy=True` is the older
        spelling of `policy="legacy"`)."""
        return self.transfer(tensor, TransferRequest.of(
            device, policy=policy, path=path, transport=transport, arrival=arrival, legacy=legacy))

    def transfer(self, tensor: RouterTensor, request: TransferRequest) -> RouterTensor:
        """Move `tensor` as `request` says: one step per hop (to the device, back to the source,
        …), each all or nothing. Returns the tensor after the last hop."""
        if self.fast_moves:
            moved = move_step(self, tensor, request)
            if moved is not None:
                return moved
        return self._hops("to_device", move, tensor, request)

    def q_to_device(self, tensor: RouterTensor, device: DeviceLike,
                    path: Path | str | None = None, *, policy: Policy | str | None = None,
                    legacy: bool | None = None, arrival: Arrival | str | None = None,
                    transport: Transport | str | None = None) -> RouterTensor:
        """The router's own `q_to_device` in front of `to_device`: with policy `legacy` it is
        Burn's `unimplemented!()` (ops/qtensor.rs:34-39), the first wall a real call meets."""
        request = TransferRequest.of(device, policy=policy, path=path, transport=transport,
                                     arrival=arrival, legacy=legacy)
        return self._hops("q_to_device", q_to_device, tensor, request)

    def _hops(self, what: str, work: Callable[..., RouterTensor], tensor: RouterTensor,
              request: TransferRequest) -> RouterTensor:
        """Run `work` once per hop, each as one step (which creates its target device if this
        is its first use)."""
        ends = (request.device, tensor.device)
        order = self.arrival if request.arrival is None else request.arrival
        request = self.decide(request)
        for hop in range(request.hops):
            there = ends[hop % 2]
            self._device(there)
            tensor = self.atomic(Detail("{} {}", what, there), self._hop, work, tensor, there,
                                 request, order)
        return tensor

    def _hop(self, work: Callable[..., RouterTensor], tensor: RouterTensor, there: Device,
             request: TransferRequest, order: Arrival) -> RouterTensor:
        """One hop inside its step: the target's client is made here, so that a failed hop
        forgets a device it created, as the step's journal does for everything else."""
        return work(tensor, self.client(there), request.to(there), order)

    def plan_transfer(self, tensor: RouterTensor, device: DeviceLike,
                      path: Path | str | None = None, *, policy: Policy | str | None = None,
                      legacy: bool | None = None,
                      transport: Transport | str | None = None) -> TransferPlan:
        """What `to_device` would do, without doing it (the guard): nothing is submitted and no
        device is created. `transport` defaults to the runtime's, as a move's does."""
        request = self.decide(TransferRequest.of(device, policy=policy, path=path,
                                                  legacy=legacy, transport=transport))
        return plan(tensor, self._device(request.device), request)

    def decide(self, request: TransferRequest) -> TransferRequest:
        """Fill in what the request leaves to the runtime, once, on the client: the policy
        (the sessions and the guard read it from the request) and the transport."""
        if request.policy is None or request.transport is None:
            request = request.but(policy=request.policy or self.policy,
                                  transport=request.transport or self.transport)
        return request

    # --- quantized tensors -------------------------------------------------------------------

    def quantize(self, tensor: RouterTensor, scheme: QuantScheme | str, *,
                 scales: Sequence[float] | None = None, global_scale: float | None = None,
                 calibration: str = "minmax") -> RouterTensor:
        """Quantize on the tensor's device through the interpreter's `Quantize` arm:
        calibrated (`quantize_dynamic`) unless `scales` are given. The input is consumed; the
        result's dtype is the scheme asked for, as in Burn's IR; `held` is what the device
        stores (a backend may store another layout). Under `legacy` it is Burn's
        wall: the client's `unimplemented!()`, or with `fusion` the server's `todo!()` once the
        fused graph holds more than the lone op; a lone one waits in the stream, and the wall
        fires at the next read, by what joined it (core/fix/fusion.py)."""
        tensor.check()
        held = self.legacy and held_in_stream(fusion=self.fusion, calibrated=scales is None,
                                              unsynced=tensor.client.unsynced)
        if not held:
            self._legacy_wall(tensor, calibrated=scales is None)
        asked, stored, params = check_quantize(tensor.dtype, tensor.shape,
                                               tensor.device.profile, scheme, scales,
                                               global_scale, calibration)
        if held:  # Burn registers it in the stream; the next read decides (RouterClient.drain)
            wall = legacy_quantize_wall(fusion=True, unsynced=0, calibrated=False)
            assert wall is not None
            wall.effects += ("it fired when the read drained the stream: the lone Quantize had "
                             "waited there since the quantize call",)
            tensor.client.hold_next(wall)
        out = self.op(QuantizeOp, tensor, params=(asked, params))
        out.held = QFloat(stored)
        return out

    def dequantize(self, tensor: RouterTensor, dtype: DType | str = DType.F32) -> RouterTensor:
        """`x̂ = s * q` on the tensor's device (the interpreter's `Dequantize` arm)."""
        tensor.check()
        self._legacy_wall(tensor, calibrated=False, dequantize=True)
        return self.op(DequantizeOp, tensor, params=(DType.parse(dtype),))

    def _legacy_wall(self, tensor: RouterTensor, *, calibrated: bool,
                     dequantize: bool = False) -> None:
        """Replaying Burn, a quantize or dequantize stops at the client's `unimplemented!()`
        (nothing submitted, no session dies) unless, with `fusion`, it joins a graph of more
        than one op, which the server's `todo!()` ends (core/fix/fusion.py)."""
        if not self.legacy:
            return
        wall = legacy_quantize_wall(fusion=self.fusion, unsynced=tensor.client.unsynced,
                                    calibrated=calibrated, dequantize=dequantize)
        if wall is not None:
            raise wall

    def read_quantized(self, tensor: RouterTensor, consume: bool = False) -> QuantizedTensor:
        """Read a quantized tensor back: its canonical bytes (docs/burn.md) as a QuantizedTensor. A
        plain tensor is refused before anything is read (so `consume=True` keeps it)."""
        tensor.check()
        if not is_quantized(tensor.dtype):
            raise DTypeError(f"read_quantized reads quantized tensors, not {tensor.dtype}; "
                             "use read")
        data = self.read_data(tensor, consume)
        assert isinstance(data.dtype, QFloat)  # the read carries the tensor's own dtype
        return from_bytes(data.bytes, data.shape, data.dtype.scheme)

    def submit(self, device: DeviceLike, op: OperationIr) -> TensorData | None:
        """Send a hand-built op to a device's session and run it (for teaching Burn's panics).
        Ids must have been minted by this runtime; a `ReadOp` returns its data."""
        target = self._device(device)
        for tensor in (*op.inputs(), *op.outputs()):
            self._check_known(tensor.id)
        reply = Reply() if isinstance(op, ReadOp) else None
        self.atomic(f"submit {op.describe()}",
                    lambda: self.client(target).session.submit(op, reply))
        return None if reply is None else reply.value

    # --- looking -----------------------------------------------------------------------------

    def _check_known(self, tensor_id: int) -> None:
        if not 0 <= int(tensor_id) < self._minted:
            raise UnknownTensorError(f"no tensor with id {int(tensor_id)} was ever created in "
                                     f"this runtime (ids so far: 0..{self._minted - 1})")

    def registry(self, device: DeviceLike) -> TableView:
        """One device's handle registry as a table."""
        return self.client(device).session.view()

    def deployment(self) -> Deployment:
        """Every server and session of this runtime and the ids each registry holds, as data
        (what the notebooks draw)."""
        return describe(c.session for c in self._clients.values())

    def registries(self) -> dict[str, TableView]:
        return {str(d): c.session.view() for d, c in self._clients.items()}

    def handle_ids(self, device: DeviceLike) -> list[int]:
        """The ids `device`'s registry holds, sorted (a served device's are asked of its
        peer)."""
        return self.client(device).session.handle_ids()

    def handle(self, device: DeviceLike, tensor_id: int) -> Any:
        """The primitive `device`'s registry holds under `tensor_id` (None if none), looked at
        without touching the registry (`get_handle_ref`, `crates/burn-ir/src/handle.rs:76`):
        what a check or a measurement inspects. A served device's primitives live in its peer's
        process and are refused with the reason."""
        return self.client(device).session.handle(tensor_id)

    def explain(self, tensor_id: int) -> list[TraceEvent]:
        """Every recorded event that touched `tensor_id`, in order."""
        self._check_known(tensor_id)
        return self.trace.explain(tensor_id)

    def dtype_usage(self, device: DeviceLike, dtype: AnyDType | str) -> Advertisement:
        """What `device` answers to Burn's `dtype_usage` / `supports_dtype`: its server's answer,
        forwarded (`crates/burn-router/src/backend.rs:55-58`), beside what the router can really
        do with the dtype at 2c06be3. Nothing is created or submitted."""
        parsed = DType.parse(dtype) if isinstance(dtype, str) else dtype
        return advertise(self._device(device), parsed)

    def served(self, device: DeviceLike) -> bool:
        """Whether `device` lives on a served peer (`Runtime(peers=...)`), not in this process."""
        return parse_device(device).peer in self._served

    def counters(self, device: DeviceLike) -> tuple[int, int]:
        """`(bytes_copied, copies)` of `device`'s backend, wherever it runs (a served device's
        are asked of its peer)."""
        return self.client(device).session.counters()

    def bytes_copied(self) -> int:
        """Bytes copied by every in-process backend so far (uploads, readbacks, device
        copies)."""
        return sum(c.session.counters()[0] for d, c in self._clients.items()
                   if d.peer not in self._served)

