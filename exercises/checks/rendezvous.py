"""Checks of the same-peer rendezvous exercise (transfer-3): Burn's `LocalCommService`, the map
from transfer id to the exposed handle in which either side may arrive first
(crates/burn-remote/src/server/local_comm.rs:31-92; docs/burn.md section 6).

The student writes `expose`, `ready`, `take` and `purge` over a plain dict. The router probe
gives a real runtime's server (an instance-level subclass, as lifecycle-1 does for tensors) the
student's functions for its rendezvous map; every change they make to the map is applied through
the runtime's journal, so a failed step still rolls back everything it touched.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ...core import READ_ONLY, DType, ExposeLocalOp, MissingHandleError, Runtime, TensorId, TensorIr
from .base import CheckFailure, Observation, Subject, Suite

rendezvous = Suite("transfer-3")


def _expose(pending: dict[int, Any], source: Any, transfer_id: int, tensor: Any) -> None:
    pending[transfer_id] = (source, tensor)


def _ready(pending: dict[int, Any], transfer_id: int) -> bool:
    return transfer_id in pending


def _take(pending: dict[int, Any], transfer_id: int) -> Any:
    return pending.pop(transfer_id)[1]


def _purge(pending: dict[int, Any], source: Any) -> None:
    for transfer_id in [t for t, (src, _) in pending.items() if src == source]:
        del pending[transfer_id]


rendezvous.model(expose=_expose, ready=_ready, take=_take, purge=_purge)


def plugged_runtime(sub: Subject, devices: tuple[str, ...] = ("cpu:0", "cpu:1"),
                    arrival: str = "source-first") -> Runtime:
    """A runtime whose server keeps its same-peer rendezvous with `sub`'s four functions."""
    rt = Runtime(list(devices), arrival=arrival)
    if sub.is_model:
        return rt
    expose, ready, take, purge = (sub.function(n) for n in ("expose", "ready", "take", "purge"))

    class PluggedServer(type(rt.server)):  # type: ignore[misc]  # the runtime's own server
        def _change(self, peer: str, change: Callable[[dict[int, Any]], Any]) -> Any:
            """Run `change` on a copy of `peer`'s map, then apply the difference through the
            journal (so a rollback undoes the student's changes as it undoes the model's)."""
            pending = self._local.get(peer)
            if pending is None:
                pending = {}
                self.journal.set(self._local, peer, pending)
            mine = dict(pending)
            result = change(mine)
            for key in [k for k in pending if k not in mine]:
                self.journal.pop(pending, key)
            for key, value in mine.items():
                if pending.get(key, _MISSING) is not value:
                    self.journal.set(pending, key, value)
            return result

        def expose_local(self, source: Any, transfer_id: int, kind: Any) -> None:
            self._change(source.device.peer, lambda p: expose(p, source, transfer_id, kind))

        def exposed_locally(self, peer: str, transfer_id: int) -> bool:
            answer = ready(dict(self._local.get(peer, {})), transfer_id)
            if not isinstance(answer, bool):
                raise CheckFailure("ready must return True or False", got=repr(answer), hint=1)
            return answer

        def take_local(self, peer: str, transfer_id: int) -> Any:
            return self._change(peer, lambda p: take(p, transfer_id))

        def purge_session(self, session: Any) -> None:
            self._change(session.device.peer, lambda p: purge(p, session))

    rt.server.__class__ = PluggedServer
    return rt


_MISSING = object()


@rendezvous.visible("expose, then take: the taker gets the exposed tensor and the entry is gone",
                    hint=2)
def _(sub: Subject) -> Observation:
    pending: dict[int, Any] = {}
    tid, handle = sub.param("transfer"), f"handle of #{sub.param('tensor')}"
    sub.function("expose")(pending, "cpu:0", tid, handle)
    got = sub.function("take")(pending, tid)
    return [(f"take(pending, {tid}) after expose(pending, 'cpu:0', {tid}, {handle!r})", got),
            ("transfer ids left after the take", sorted(pending))]


@rendezvous.visible("ready says whether a take would succeed now, without taking", hint=2)
def _(sub: Subject) -> Observation:
    ready, expose = sub.function("ready"), sub.function("expose")
    pending: dict[int, Any] = {}
    seen: Observation = [("ready(pending, 4) before anything is exposed", ready(pending, 4))]
    expose(pending, "cpu:0", 4, "h")
    seen.append(("ready(pending, 4) after expose(…, 4, …)", ready(pending, 4)))
    seen.append(("ready(pending, 5): another transfer", ready(pending, 5)))
    seen.append(("asking ready left the entry in place", sorted(pending)))
    return seen


@rendezvous.visible("purge drops what one source exposed and no one took, and nothing else",
                    hint=2)
def _(sub: Subject) -> Observation:
    expose = sub.function("expose")
    pending: dict[int, Any] = {}
    expose(pending, "cpu:0", 1, "a")
    expose(pending, "cpu:2", 2, "b")
    expose(pending, "cpu:0", 3, "c")
    sub.function("purge")(pending, "cpu:0")
    return [("transfer ids left after purge(pending, 'cpu:0')", sorted(pending))]


@rendezvous.visible("in the router: a target-first move parks, then hands the tensor over",
                    hint=2)
def _(sub: Subject) -> Observation:
    rt = plugged_runtime(sub, arrival="target-first")
    x = rt.tensor([float(sub.param("tensor")), 2.0], "cpu:0", "f32")
    mark = len(rt.trace)
    y = rt.to_device(x, "cpu:1")
    events = [f"{e.device} {e.kind}" for e in rt.trace.read(mark)
              if e.kind in ("wait", "expose", "take")]
    return [("the wait/expose/take events of the move", events),
            ("the moved tensor read back on cpu:1", rt.read(y).tolist()),
            ("registries cpu:0 | cpu:1 afterwards", [rt.handle_ids("cpu:0"),
                                                     rt.handle_ids("cpu:1")]),
            ("entries left in the rendezvous map", rt.server.pending_transfers())]


def _session_exposes(rt: Runtime, device: str, tensor_id: int, transfer_id: int) -> None:
    """`device`'s session runs `ExposeTensorLocal` for `tensor_id` under `transfer_id`, with no
    target (an id the session does not hold makes it panic)."""
    session = rt.session(device)
    ir = TensorIr(TensorId(tensor_id), (1,), READ_ONLY, DType.F32)
    rt.atomic(f"expose #{tensor_id}", lambda: session.submit(ExposeLocalOp(ir, transfer_id)))


@rendezvous.visible("in the router: a normal close purges what each session exposed and no one "
                    "took; a session that panicked purges nothing", hint=2)
def _(sub: Subject) -> Observation:
    rt = plugged_runtime(sub, ("cpu:0", "cpu:1", "cpu:2"))
    for device, transfer_id in (("cpu:0", 5), ("cpu:2", 6)):
        _session_exposes(rt, device, int(rt.tensor([1.0], device, "f32").id), transfer_id)
    seen: Observation = [("entries after cpu:0 and cpu:2 each expose one",
                          rt.server.pending_transfers())]
    try:
        _session_exposes(rt, "cpu:0", 999, 7)  # no such handle: cpu:0's worker panics and unwinds
    except MissingHandleError:
        pass
    seen.append(("entries after cpu:0 panicked", rt.server.pending_transfers()))
    rt.close()  # every task channel closes: the live workers run purge_session
    seen.append(("entries after the client closed", rt.server.pending_transfers()))
    return seen


@rendezvous.hidden("200 seeded random sequences of expose, ready, take and purge")
def _(sub: Subject) -> Observation:
    expose, ready, take, purge = (sub.function(n) for n in ("expose", "ready", "take", "purge"))
    rng = random.Random(5036)
    seen: Observation = []
    for case in range(200):
        pending: dict[int, Any] = {}
        for step in range(rng.randint(2, 10)):
            action = rng.choice(("expose", "expose", "ready", "take", "purge"))
            tid = rng.randrange(5)
            source = rng.choice(("cpu:0", "cpu:1", "cpu:2"))
            if action == "expose":
                expose(pending, source, tid, f"h{case}.{step}")
                got: Any = None
            elif action == "ready":
                got = ready(pending, tid)
            elif action == "take":
                if tid not in pending:
                    continue  # a take waits until the id is exposed: the scheduler asks ready
                got = take(pending, tid)
            else:
                got = purge(pending, source)
            seen.append((f"case {case}, step {step}: {action} (transfer {tid}, source {source})",
                         [got, sorted(pending)]))
    return seen


@rendezvous.hidden("many moves between three devices of one peer, either side first")
def _(sub: Subject) -> Observation:
    seen: Observation = []
    for arrival in ("source-first", "target-first"):
        rt = plugged_runtime(sub, ("cpu:0", "cpu:1", "cpu:2"), arrival)
        rng = random.Random(arrival)
        live = [rt.tensor([float(i)], f"cpu:{i % 3}", "f32") for i in range(4)]
        for step in range(12):
            tensor = live.pop(rng.randrange(len(live)))
            if rng.random() < 0.4:
                live.append(rt.clone(tensor))
            target = rng.choice([d for d in ("cpu:0", "cpu:1", "cpu:2") if d != str(tensor.device)])
            live.append(rt.to_device(tensor, target))
            seen.append((f"{arrival}, move {step}: registries and entries left",
                         [[rt.handle_ids(d) for d in ("cpu:0", "cpu:1", "cpu:2")],
                          rt.server.pending_transfers()]))
        seen.append((f"{arrival}: every tensor's values", sorted(rt.read(t).tolist()[0]
                                                                 for t in live)))
    return seen
