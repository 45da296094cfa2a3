"""Faults injected into served peers, one model for every face (docs/faults.md).

A `Fault` names what goes wrong at which scenario step: a peer killed before, during or after a
transfer (`kill`), a message dropped or delayed on its way in (`drop`, `delay`), a device memory
limit that the next allocation exceeds (`oom`), a peer that restarts under its clients
(`restart`), and a second client whose transfer races this one (`race`). The client sends the
fault to the peer (`inject`, a `Fault` message the peer accepts only when it was started to take
them), and the peer applies it with real effects: the process really dies (SIGKILL), the message
really never reaches the session, the allocation really fails.

What happens next depends on the runtime's policy. `legacy` replays Burn at the pin: a lost
message is never noticed, a failed download is logged and the session goes on without the tensor,
an out-of-memory allocation panics on CubeCL's device runner, which catches and logs it: the
session goes on with a handle that was never initialised, and its first later use fails. Every
other policy is RouterLab's fix: a step is all or nothing across the peers still alive, and what
a dead peer took with it is named (`PeerLost`). `BURN` and `FIX` say each in words, with Burn's
sources, for the faces to show.
"""

from __future__ import annotations

import math
import os
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.choices import Choice
from ..base.data import TensorData
from ..base.devices import Device, parse_device
from ..base.dtypes import DType
from ..base.errors import DeviceOutOfMemory, LimitError, RouterLabError, ScenarioError
from ..base.limits import check_result
from ..base.view import TableView
from ..remote import protocol as P
from ..router.backend import Backend, Primitive, make_backend
from ..router.ir import AddOp, BinaryOp, MatmulOp, MulOp
from .admit import Share

MAX_DELAY_S = 10.0
"""The longest delay a fault may ask for (every wait stays bounded)."""
RACE_TIMEOUT_S = 30.0
CUBECL_OOM = ("crates/cubecl-cuda/src/compute/server.rs:242-244 (cubecl 4834896, Burn's pin: "
              "`initialize_memory` panics on the storage's IoError::OutOfMemory, "
              "crates/cubecl-cuda/src/compute/storage/gpu.rs:187, whose Debug is its Display, "
              "crates/cubecl-runtime/src/server/base.rs:904-911,1021-1024)")


CUBECL_CAUGHT = ("crates/cubecl-runtime/src/client.rs:646-648 (cubecl 4834896: `do_empty` submits "
                 "`initialize_memory` to the device runner), "
                 "crates/cubecl-common/src/device/handle/channel.rs:713-715,727-729 (a submitted "
                 "closure's panic is caught and logged as a warning)")
NEVER_INITIALIZED = "Memory location was never initialized"
"""CubeCL's error for a binding whose memory was never bound
(`crates/cubecl-runtime/src/memory_management/memory_manage.rs:979-983` at cubecl 4834896)."""
NEVER_INITIALIZED_SOURCE = ("crates/cubecl-runtime/src/memory_management/memory_manage.rs:979-983 "
                            "(cubecl 4834896; CubeCL says so itself: a failed reserve 'becomes a "
                            "never-initialized handle whose every downstream use fails', "
                            "crates/cubecl-cuda/src/compute/command.rs:156-162)")


def cubecl_oom_text(size: int) -> str:
    """CubeCL's panic when a device allocation of `size` bytes does not fit: `initialize_memory`
    wraps the `IoError::OutOfMemory` text (`CUBECL_OOM`). Two caveats: the inner count is the
    size the memory pool tried to allocate, which can differ from the `size` requested (a pooled
    page, base.rs:904), while RouterLab writes the request twice; and in Burn a backtrace
    follows the text (the error's `{backtrace}` line), which RouterLab leaves out."""
    return (f"failed to reserve {size} bytes of device memory: out of device memory allocating "
            f"{size} bytes")


class MemoryNeverInitialized(RouterLabError):
    """A later use of a handle whose allocation failed under `legacy`: CubeCL's
    `Memory location was never initialized`. Not a panic of the session's worker, so the session
    goes on (and the step that used it is undone, as every failed step is)."""


class FaultKind(Choice, noun="fault kind", error=ScenarioError):
    KILL = "kill"
    DROP = "drop"
    DELAY = "delay"
    OOM = "oom"
    RESTART = "restart"
    RACE = "race"


class When(Choice, noun="moment of a kill", error=ScenarioError):
    BEFORE = "before"
    DURING = "during"
    AFTER = "after"


DROPPABLE = P.TASKS
"""The messages a `drop` or `delay` may name: a step's tasks (and, for `delay`, the `/data`
route's `Download`)."""
DELAYABLE = (*P.TASKS, P.DOWNLOAD)

FIELDS: dict[str, tuple[type, ...]] = {
    "step": (int,), "kind": (str,), "peer": (str,), "when": (str,), "message": (str,),
    "seconds": (float, int), "device": (str,), "limit": (int,), "note": (str,)}
"""A fault's fields, in a scenario's `[[faults]]` and in `--fault key=value,...`."""
USES: dict[FaultKind, tuple[str, ...]] = {
    FaultKind.KILL: ("peer", "when"), FaultKind.DROP: ("peer", "message"),
    FaultKind.DELAY: ("peer", "message", "seconds"), FaultKind.OOM: ("device", "limit"),
    FaultKind.RESTART: ("peer",), FaultKind.RACE: ()}
"""The fields each kind takes beyond `step` and `kind` (`when` defaults to `during`)."""


@dataclass(frozen=True)
class Fault:
    """One fault, applied just before its step runs (see the module)."""

    kind: FaultKind
    step: int
    peer: str | None = None
    when: When = When.DURING
    message: str | None = None
    seconds: float = 0.0
    device: str | None = None
    limit: int = 0
    note: str = ""

    @property
    def target(self) -> str | None:
        """The peer the fault is sent to (an `oom` names a device of it)."""
        return parse_device(self.device).peer if self.device else self.peer

    def describe(self) -> str:
        what = {FaultKind.KILL: f"kill {self.peer} {self.when} the transfer",
                FaultKind.DROP: f"drop the next {self.message} reaching {self.peer}",
                FaultKind.DELAY: f"delay the next {self.message} reaching {self.peer} by "
                                 f"{self.seconds:g} s",
                FaultKind.OOM: f"limit {self.device} to {self.limit} bytes",
                FaultKind.RESTART: f"restart {self.peer}",
                FaultKind.RACE: "a second client races this transfer"}[self.kind]
        return f"fault at step {self.step}: {what}"

    def wire(self) -> dict[str, Any]:
        """What the peer is sent (`Fault` message)."""
        return {"kind": self.kind.value, "when": self.when.value, "message": self.message,
                "seconds": self.seconds, "device": self.device, "limit": self.limit}


def fault_from_table(table: Mapping[str, Any], where: str) -> Fault:
    """A `[[faults]]` table (or a parsed `--fault`) as a `Fault`; anything else is one line
    naming `where` and the field."""
    for name, value in table.items():
        types = FIELDS.get(name)
        if types is None:
            raise ScenarioError(f"{where}: field '{name}': unknown field; expected: "
                                f"{', '.join(FIELDS)}")
        if not isinstance(value, types) or isinstance(value, bool):
            wanted = " or ".join(t.__name__ for t in types)
            raise ScenarioError(f"{where}: field '{name}': expected {wanted}, got "
                                f"{type(value).__name__} {value!r}")
    for name in ("step", "kind"):
        if name not in table:
            raise ScenarioError(f"{where}: field '{name}': missing")
    kind = _parsed(FaultKind.parse, table["kind"], where, "kind")
    uses = USES[kind]
    for name in table:
        if name not in ("step", "kind", "note", *uses):
            raise ScenarioError(f"{where}: field '{name}': a {kind} fault does not take it "
                                f"(it takes: {', '.join(uses) or 'nothing more'})")
    for name in uses:
        if name not in table and name != "when":
            raise ScenarioError(f"{where}: field '{name}': missing (a {kind} fault needs it)")
    if table["step"] < 1:
        raise ScenarioError(f"{where}: field 'step': a step number, from 1")
    fault = Fault(kind, table["step"], table.get("peer"),
                  _parsed(When.parse, table.get("when", "during"), where, "when"),
                  table.get("message"), float(table.get("seconds", 0.0)), table.get("device"),
                  table.get("limit", 0), table.get("note", ""))
    problem = _problem(fault)
    if problem is not None:
        raise ScenarioError(f"{where}: {problem}")
    return fault


def _problem(fault: Fault) -> str | None:
    if fault.kind is FaultKind.DROP and fault.message not in DROPPABLE:
        return f"field 'message': drop one of {', '.join(DROPPABLE)}"
    if fault.kind is FaultKind.DELAY and fault.message not in DELAYABLE:
        return f"field 'message': delay one of {', '.join(DELAYABLE)}"
    if fault.kind is FaultKind.DELAY and not 0 < fault.seconds <= MAX_DELAY_S:
        return f"field 'seconds': a delay of more than 0 and at most {MAX_DELAY_S:g} s"
    if fault.kind is FaultKind.OOM:
        try:
            device = parse_device(fault.device or "")
        except RouterLabError as error:
            return f"field 'device': {error}"
        if device.peer == "local":
            return "field 'device': an oom fault limits a device of a served peer (peer/cpu:0)"
        if fault.limit < 0:
            return "field 'limit': a number of bytes, 0 or more"
    return None


def _parsed(parse: Callable[[str], Any], value: Any, where: str, name: str) -> Any:
    try:
        return parse(value)
    except RouterLabError as error:
        raise ScenarioError(f"{where}: field '{name}': {error}") from None


def parse_fault(spec: str) -> Fault:
    """`--fault step=3,kind=kill,peer=peer1,when=during`: the `[[faults]]` fields as
    comma-separated `key=value` pairs (numbers where the field takes one)."""
    table: dict[str, Any] = {}
    for pair in spec.split(","):
        key, equals, value = (part.strip() for part in pair.partition("="))
        if not equals or not key:
            raise ScenarioError(f"--fault takes key=value pairs separated by commas, e.g. "
                                f"step=2,kind=kill,peer=peer1,when=during; got {spec!r}")
        if key in table:
            raise ScenarioError(f"--fault {spec!r}: field '{key}' is given twice")
        table[key] = _number(value) if FIELDS.get(key, (str,))[0] is not str else value
    return fault_from_table(table, f"--fault {spec!r}")


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


# --- what Burn does, what the fix does --------------------------------------------------------


@dataclass(frozen=True)
class Reaction:
    """What one side does about a fault: a one-word outcome, the story, Burn's sources."""

    outcome: str
    text: str
    sources: tuple[str, ...] = ()


BURN: dict[str, Reaction] = {
    "kill before": Reaction(
        "lost tensor", "the target's download cannot reach the source. Over Iroh (RouterLab's "
        "default) `download_tensor` logs the error and returns None: the target logs `Failed to "
        "download tensor`, goes on, and the tensor is lost. Over WebSocket `get_data_stream` "
        "panics `Failed to open remote 'data' channel` and ends the target session; the client's "
        "later syncs fail with `Remote response channel closed before sync completed`",
        ("crates/burn-remote/src/transport/iroh/transfer.rs:177-186",
         "crates/burn-remote/src/server/worker.rs:267-273",
         "crates/burn-communication/src/external_comm.rs:187-192",
         "crates/burn-remote/src/client/service.rs:494-505")),
    "kill during": Reaction(
        "lost tensor", "the open download reads a closed socket: `download_tensor` returns None, "
        "the target logs `Failed to download tensor` and goes on; the new id is never "
        "registered and the source already gave its handle up (a ReadWrite read)",
        ("crates/burn-communication/src/external_comm.rs:160-174",
         "crates/burn-remote/src/server/worker.rs:258-273,140-146")),
    "kill after": Reaction(
        "lost tensor", "the moved tensor lived only in the dead process; the client still holds "
        "its id, later tasks are dropped with a warning and reads fail `Failed to read tensor`",
        ("crates/burn-remote/src/client/service/writer.rs:57-58,76-78",
         "crates/burn-remote/src/client/runner.rs:44-53")),
    "drop": Reaction(
        "lost tensor", "tasks are fire-and-forget with no sequence number: nobody notices; a "
        "dropped RegisterTensorRemote leaves the source's bytes exposed forever and the first "
        "use of the new id panics `Should have handle for tensor`",
        ("crates/burn-remote/src/client/service.rs:552-556",
         "crates/burn-communication/src/external_comm.rs:204-227",
         "crates/burn-ir/src/handle.rs:97")),
    "delay": Reaction(
        "logged error", "within Iroh's 300 s wait, nothing; past it, `download_tensor` returns "
        "None, the error is logged, the session goes on and the tensor is lost (over WebSocket "
        "the target waits forever instead)",
        ("crates/burn-remote/src/transport/iroh/transfer.rs:78-110,138",
         "crates/burn-communication/src/external_comm.rs:204-227")),
    "oom": Reaction(
        "logged error", "CubeCL queues the allocation on the device runner (client.rs:646-648), "
        "whose `initialize_memory` panics `failed to reserve N bytes of device memory: out of "
        "device memory allocating M bytes` (M: the pooled allocation's size, which can differ "
        "from N; a backtrace follows). The runner catches a submitted closure's panic and logs "
        "it as a warning: the session goes on, the tensor's handle is registered but never "
        "initialised, and its first later use fails `Memory location was never initialized`",
        (CUBECL_OOM, CUBECL_CAUGHT, NEVER_INITIALIZED_SOURCE)),
    "restart": Reaction(
        "hang or panic", "the client never reconnects (its writer is set once) and every later "
        "sync fails; a stale id that reaches the fresh session panics `Should have handle for "
        "tensor` there",
        ("crates/burn-remote/src/client/service.rs:576-578",
         "crates/burn-remote/src/client/service/pending.rs:102-113",
         "crates/burn-ir/src/handle.rs:97")),
    "race": Reaction(
        "wrong tensor", "same-peer transfer ids come from a per-process counter starting at 0, "
        "and one LocalCommService serves every session of the server: two clients' transfers "
        "share id 0, a later expose overwrites an earlier one, and a target can take the other "
        "client's tensor while the other target waits forever",
        ("crates/burn-remote/src/client/runner.rs:384-397",
         "crates/burn-remote/src/server/session.rs:47-49",
         "crates/burn-remote/src/server/local_comm.rs:51-62")),
}
"""What Burn at the pin does for each fault (`kill` by its moment)."""

FIX: dict[str, Reaction] = {
    "kill before": Reaction("error", "PeerLost at the step: the peers still there undo it; the "
                                     "error names what the dead peer held"),
    "kill during": Reaction("error", "PeerLost: the target's failed download fails the step, the "
                                     "surviving peers undo it, the dead one's tensors are named "
                                     "lost"),
    "kill after": Reaction("error", "the step was kept; the first use of the peer finds it gone "
                                    "(PeerLost, naming what it held), later ones SessionEnded"),
    "drop": Reaction("error", "MessageLost: each Sync carries how many tasks were sent; a "
                              "peer that received fewer refuses the step, every peer undoes it"),
    "delay": Reaction("error", "TransferTimedOut past the wait: the step is undone on every "
                               "peer, the source keeps its tensor; a shorter delay only slows"),
    "oom": Reaction("error", "DeviceOutOfMemory before anything is registered: the step is "
                             "undone and the session lives on"),
    "restart": Reaction("error", "the client reconnects, sees a new instance, and refuses the "
                                 "old ids on the client (StaleHandle) naming them"),
    "race": Reaction("ok", "each client's sessions, rendezvous and transfer ids are its own on "
                           "the peer: both transfers arrive intact"),
}


def reactions_view() -> TableView:
    """Every fault: what Burn at the pin does beside what RouterLab's fix does."""
    rows = [[key, BURN[key].outcome, BURN[key].text, ", ".join(BURN[key].sources),
             FIX[key].outcome, FIX[key].text] for key in BURN]
    return TableView("Faults: Burn 2c06be3 vs RouterLab's fix",
                     ["fault", "Burn", "what Burn does", "Burn sources", "fix",
                      "what the fix does"],
                     rows, caption="legacy replays the Burn column with real processes; every "
                                   "other policy is the fix (docs/faults.md)")


# --- on the peer ------------------------------------------------------------------------------


class PeerFaults:
    """The faults armed on one served peer, applied where the host calls in (see the module)."""

    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.kill_at: set[str] = set()
        """`transfer` (a download reaches this peer, as source or target) and `commit`."""
        self.drops: dict[str, int] = {}
        self.delays: dict[str, float] = {}
        self.restart = False
        self._lock = threading.Lock()  # the download thread and the event loop both read it

    def arm(self, wire: Mapping[str, Any]) -> str:
        """Arm the fault a client sent; `kill before` kills at once (after the answer)."""
        if not self.allowed:
            raise RouterLabError("this peer does not take faults; start it with "
                                 "`routerlab serve --faults` (routerlab serve --local does)")
        kind, message = FaultKind.parse(wire["kind"]), wire.get("message")
        with self._lock:
            if kind is FaultKind.KILL:
                self.kill_at.add({When.BEFORE: "now", When.DURING: "transfer",
                                  When.AFTER: "commit"}[When.parse(wire["when"])])
            elif kind is FaultKind.DROP:
                self.drops[str(message)] = self.drops.get(str(message), 0) + 1
            elif kind is FaultKind.DELAY:
                self.delays[str(message)] = min(float(wire["seconds"]), MAX_DELAY_S)
            elif kind is FaultKind.RESTART:
                self.restart = True
        return f"armed: {kind}"

    def intercept(self, kind: str) -> float | None:
        """Seconds to hold the next message of `kind` back, or None to drop it."""
        with self._lock:
            if self.drops.get(kind):
                self.drops[kind] -= 1
                return None
            return self.delays.pop(kind, 0.0)

    def reached(self, point: str) -> None:
        """Die here if a kill is armed for `point` (`now`, `transfer`, `commit`): SIGKILL, so
        nothing is cleaned up, as a crash cleans nothing up."""
        if point in self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


class NeverInitialized(Primitive):
    """A handle whose memory was never bound (`legacy`, after a failed allocation): it has a
    shape, a dtype and a device, and no array. Reading its array is a use, which fails with
    CubeCL's text; the registry, which only counts and lists it, never reads it."""

    __slots__ = ("_shape",)

    def __init__(self, shape: tuple[int, ...], dtype: Any, device: Device) -> None:
        self._shape = shape
        self.dtype = dtype
        self.device = device

    @property  # type: ignore[override]
    def array(self) -> Any:
        raise MemoryNeverInitialized(
            f"{NEVER_INITIALIZED} ({self.device}: this tensor's allocation failed earlier, its "
            f"panic was caught and logged by CubeCL's device runner; {NEVER_INITIALIZED_SOURCE})")

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def nbytes(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"NeverInitialized({self._shape}, {self.dtype}, {self.device})"


class LimitedBackend(Backend):
    """A served device's backend: every result is checked before it is allocated, from the
    operands it really has (the op's declared shapes were checked when it arrived,
    `admit.admit`): against docs/limits.md and the client's share (`admit.Share`). A `oom`
    fault adds a memory limit: an allocation that would bring the bytes its registry holds over
    `limit` fails before anything is registered (the fix's `DeviceOutOfMemory`), or, under
    `legacy`, as CubeCL's does: `initialize_memory` panics on the device runner, which logs it
    (`logged`), and the result is a handle that was never initialised (`NeverInitialized`)."""

    def __init__(self, device: Device, xp: Any) -> None:
        super().__init__(device, xp)
        self.limit: int | None = None
        self.legacy = False
        self.logged: list[str] = []
        """The warnings CubeCL's device runner logged: each caught `initialize_memory` panic."""
        self._failed = False
        self.live: Callable[[], int] = lambda: 0
        """Bytes held by the session's registry (set by the peer with the limit)."""
        self.share: Share | None = None
        """The client's share of the peer's memory (set by the peer for each client)."""

    def _allocate(self, nbytes: int) -> None:
        if self.share is not None:
            self.share.charge(nbytes, f"an allocation on {self.device}")
        self._failed = False  # the op's last allocation decides (an op may check twice)
        if self.limit is not None and self.live() + nbytes > self.limit:
            held = self.live()
            if self.legacy:  # the panic fires on the device runner, which catches and logs it
                self.logged.append(f"WARN {self.device}: {cubecl_oom_text(nbytes)} (caught by "
                                   "the device runner; the session goes on)")
                self._failed = True
                return
            raise DeviceOutOfMemory(f"{self.device}: allocating {nbytes} bytes with {held} held "
                                    f"would pass its {self.limit}-byte limit; nothing was "
                                    "registered")

    def _made(self, result: Primitive) -> Primitive:
        """The result of an op that allocated: a handle never initialised if the allocation
        failed under `legacy`, as CubeCL registers the handle before its memory is bound."""
        if not self._failed:
            return result
        self._failed = False
        return NeverInitialized(result.shape, result.dtype, result.device)

    def _result(self, op: type[BinaryOp], lhs: Primitive, rhs: Primitive) -> None:
        """Refuse a result too large before numpy allocates it."""
        shape, dtype = op.infer(lhs, rhs)
        size = dtype.size if isinstance(dtype, DType) else 1
        check_result(shape, size, f"{op.name} result", LimitError)
        self._allocate(math.prod(shape) * size)

    def from_data(self, data: TensorData) -> Primitive:
        self._allocate(data.num_bytes)
        return self._made(super().from_data(data))

    def to_device(self, primitive: Primitive) -> Primitive:
        if primitive.device != self.device:
            self._allocate(primitive.nbytes)
        return self._made(super().to_device(primitive))

    def add(self, lhs: Primitive, rhs: Primitive) -> Primitive:
        self._result(AddOp, lhs, rhs)
        return self._made(super().add(lhs, rhs))

    def mul(self, lhs: Primitive, rhs: Primitive) -> Primitive:
        self._result(MulOp, lhs, rhs)
        return self._made(super().mul(lhs, rhs))

    def matmul(self, lhs: Primitive, rhs: Primitive) -> Primitive:
        self._result(MatmulOp, lhs, rhs)
        return self._made(super().matmul(lhs, rhs))

    def cast(self, primitive: Primitive, dtype: Any) -> Primitive:
        self._allocate(math.prod(primitive.shape) * (dtype.size if isinstance(dtype, DType)
                                                     else 1))
        return self._made(super().cast(primitive, dtype))

    def _wrap(self, array: Any, dtype: Any) -> Primitive:
        self._allocate(int(array.size) * self._storage(dtype).itemsize)
        return self._made(super()._wrap(array, dtype))


def limited_backend(device: Device) -> Backend:
    """A served peer's backends: `make_backend`'s, with room for a memory limit."""
    made = make_backend(device)
    return LimitedBackend(device, made.xp)


def registry_bytes(handles: Any) -> int:
    """Bytes a registry's handles hold (what a memory limit counts)."""
    return sum(int(getattr(handles.get_handle_ref(i), "nbytes", 0) or 0)
               for i in handles.handle_ids())


# --- on the client ----------------------------------------------------------------------------


def run_with_faults(rt: Any, faults: list[Fault], run: Callable[[], str],
                    move: tuple[Device, str] | None) -> str:
    """Inject `faults` into `rt`'s served peers, then `run` the step (raced by a second client
    when a `race` fault says so, `move` being the step's source device and target)."""
    deployment = rt.server
    if not hasattr(deployment, "inject"):
        raise ScenarioError(f"{faults[0].describe()}: faults need served peers ([peers] or "
                            "--peer; routerlab serve --local 2 starts two)")
    done = [deployment.inject(f) for f in faults if f.kind is not FaultKind.RACE]
    lines = [f"{f.describe()} ({note})" for f, note in
             zip([f for f in faults if f.kind is not FaultKind.RACE], done, strict=True)]
    if any(f.kind is FaultKind.RACE for f in faults):
        if move is None:
            raise ScenarioError(f"fault at step {faults[0].step}: a race fault races a "
                                "to_device step")
        description = race(rt, run, *move)
    else:
        description = run()
    return "; ".join([description, *lines])


def race(rt: Any, run: Callable[[], str], source: Device, target: str) -> str:
    """Run this client's step while a second client, on the same served peers, moves its own
    tensor from `source` to `target` under the same transfer id (Burn's clients would both use
    the id their per-process counter gives; `crates/burn-remote/src/client/runner.rs:384-397`).
    Both must arrive intact: each client's rendezvous is its own on the peer."""
    from ..runtime import Runtime  # the runtime imports this package lazily

    peers = {name: link.address for name, link in rt.server.peers.items()}
    values = (np.arange(64, dtype=np.float32) + 1000.0).reshape(4, 16)
    outcome: dict[str, Any] = {}
    with Runtime(peers=peers, policy=rt.policy, transport=rt.transport) as racer:
        mine = racer.tensor(values, device=source)
        racer.server.number_transfers_as(rt.server)

        def move() -> None:
            try:
                outcome["moved"] = racer.read(racer.to_device(mine, target))
            except RouterLabError as error:
                outcome["error"] = error

        thread = threading.Thread(target=move, name="routerlab-race", daemon=True)
        thread.start()
        try:
            description = run()
        finally:
            thread.join(RACE_TIMEOUT_S)
        if thread.is_alive() or "error" in outcome:
            raise RouterLabError(f"race: the second client's move {source} -> {target} "
                                 f"failed: {outcome.get('error', 'it did not finish')}")
    intact = np.array_equal(outcome["moved"], values)
    return (f"{description}; race: a second client moved its own tensor {source} -> {target} "
            f"at the same time, under the same transfer id, and got "
            f"{'its own values back' if intact else 'OTHER VALUES'}")


__all__ = ["BURN", "FIX", "Fault", "FaultKind", "LimitedBackend", "MemoryNeverInitialized",
           "NeverInitialized", "PeerFaults", "Reaction", "When", "fault_from_table",
           "limited_backend", "parse_fault", "race", "reactions_view", "run_with_faults"]
