"""build-1: burn-ir's `HandleContainer` (crates/burn-ir/src/handle.rs:7-226), written whole by the
learner and driven call by call beside the model's, behind an adapter in Burn's method names."""

from __future__ import annotations

import random
from typing import Any

from ...core import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    DType,
    HandleContainer,
    TensorId,
    TensorIr,
)
from .base import CheckFailure, Observation, Subject, Suite, to_data
from .build_common import did, traced


class ModelHandles:
    """The model's `HandleContainer` (routerlab.core.router.handles) in the learner's signature,
    which is Burn's: `register_handle`, `get_handle`, ... and the vestigial `counter`
    (handle.rs:9, never increased at 2c06be3; `fork` copies it, handle.rs:31-34)."""

    def __init__(self) -> None:
        self.inner = HandleContainer()
        self.counter = 0

    def register_handle(self, id: TensorId, handle: Any) -> None:
        self.inner.register(id, handle)

    def has_handle(self, id: TensorId) -> bool:
        return self.inner.has_handle(id)

    def get_handle_ref(self, id: TensorId) -> Any:
        return self.inner.get_handle_ref(id)

    def get_handle(self, id: TensorId, status: Any) -> Any:
        return self.inner.get(id, status)

    def get_tensor_handle(self, tensor: TensorIr) -> Any:
        return self.inner.get_tensor_handle(tensor)

    def remove_handle(self, id: TensorId) -> Any:
        return self.inner.remove_handle(id)

    def free(self, tensor: TensorIr) -> None:
        self.inner.free(tensor)

    def num_handles(self) -> int:
        return self.inner.num_handles()

    def handle_ids(self) -> list[TensorId]:
        return list(self.inner.handle_ids())

    def fork(self) -> ModelHandles:
        fork = ModelHandles()
        fork.inner, fork.counter = self.inner.fork(), self.counter
        return fork


handles = Suite("build-1")
handles.model(HandleContainer=ModelHandles)


def _container(sub: Subject) -> Any:
    """A new, empty container of the subject's class."""
    made = sub.function("HandleContainer")()
    for method in ("register_handle", "has_handle", "get_handle_ref", "get_handle",
                   "get_tensor_handle", "remove_handle", "free", "num_handles", "handle_ids",
                   "fork"):
        if not callable(getattr(made, method, None)):
            raise CheckFailure(f"your HandleContainer has no method `{method}`; keep the names "
                               "the starter gives (Burn's, handle.rs)", hint=1)
    return made


def held(container: Any) -> list[Any]:
    """What a container holds, as the checks compare it: its ids in order with each handle, the
    number of handles, and the counter."""
    ids = sorted(int(i) for i in container.handle_ids())
    return [[[i, to_data(container.get_handle_ref(TensorId(i)))] for i in ids],
            to_data(container.num_handles()), to_data(getattr(container, "counter", None))]


def _ids(sub: Subject) -> tuple[TensorId, TensorId]:
    return TensorId(sub.param("tid")), TensorId(sub.param("other"))


@handles.visible("register, look and count: has_handle, get_handle_ref, num_handles, "
                 "handle_ids and the counter", hint=1)
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    tid, other = _ids(sub)
    seen: Observation = [("a new container holds (ids with handles, num_handles, counter)",
                          held(c))]
    c.register_handle(tid, f"a{int(tid)}")
    c.register_handle(other, f"b{int(other)}")
    seen.append((f"after registering {int(tid)} and {int(other)}", held(c)))
    c.register_handle(tid, f"c{int(tid)}")
    seen.append((f"after registering {int(tid)} again (Burn inserts: the new handle wins)",
                 held(c)))
    seen.append((f"has_handle({int(tid)}), has_handle({int(tid) + 20})",
                 [to_data(c.has_handle(tid)), to_data(c.has_handle(TensorId(int(tid) + 20)))]))
    seen.append((f"get_handle_ref({int(tid) + 20}) on an id never registered",
                 did(lambda: c.get_handle_ref(TensorId(int(tid) + 20)))))
    return seen


@handles.visible("get_handle: ReadOnly leaves the entry, ReadWrite takes it, a second "
                 "ReadWrite panics with Burn's text", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    tid, other = _ids(sub)
    c.register_handle(tid, f"a{int(tid)}")
    c.register_handle(other, f"b{int(other)}")
    seen: Observation = []
    for status in (READ_ONLY, READ_WRITE, READ_WRITE):
        seen.append((f"get_handle({int(tid)}, {status}), then the container",
                     [did(lambda s=status: c.get_handle(tid, s)), held(c)]))  # type: ignore[misc]
    return seen


@handles.visible("a NotInit status and a missing id panic with Burn's texts", hint=2)
@traced
def _(sub: Subject) -> Observation:
    tid, other = _ids(sub)
    c = _container(sub)
    c.register_handle(tid, "h")
    # Burn's remove_entry runs before both panics (handle.rs:94-110), and the panic ends the
    # session: the container after a panic is never observed.
    notinit = did(lambda: c.get_handle(tid, NOT_INIT))
    c = _container(sub)
    c.register_handle(tid, "h")
    return [(f"get_handle({int(tid)}, NotInit) on a registered id", notinit),
            (f"get_handle({int(other)}, ReadOnly) on an id never registered",
             did(lambda: c.get_handle(other, READ_ONLY)))]


@handles.visible("free and remove_handle: which status frees, what remove returns, and a fork "
                 "that never reaches its original", hint=2)
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    tid, other = _ids(sub)
    for i in (tid, other):
        c.register_handle(i, f"h{int(i)}")
    seen: Observation = []
    for status in (READ_ONLY, NOT_INIT, READ_WRITE):
        c.free(TensorIr(tid, (2,), status, DType.F32))
        seen.append((f"after free(the ir of {int(tid)}, {status})", held(c)))
    seen.append((f"remove_handle({int(other)}), remove_handle({int(other)}) again",
                 [did(lambda: c.remove_handle(other)), did(lambda: c.remove_handle(other))]))
    c.register_handle(tid, "kept")
    fork = c.fork()
    fork.register_handle(other, "fork only")
    fork.get_handle(tid, READ_WRITE)
    seen.append(("the fork after it registered one id and took another, then its original",
                 [held(fork), held(c)]))
    return seen


@handles.hidden("get_tensor_handle reads the ir's own status")
@traced
def _(sub: Subject) -> Observation:
    c = _container(sub)
    seen: Observation = []
    for id, status in ((4, READ_ONLY), (4, READ_WRITE), (7, READ_WRITE)):
        c.register_handle(TensorId(7), "seven")
        if id == 4 and status is READ_ONLY:
            c.register_handle(TensorId(4), "four")
        ir = TensorIr(TensorId(id), (3,), status, DType.F32)
        seen.append((f"get_tensor_handle(id {id}, {status}), then the container",
                     [did(lambda ir=ir: c.get_tensor_handle(ir)), held(c)]))  # type: ignore[misc]
    return seen


@handles.hidden("300 seeded random sequences of register, get (each status), has_handle, free, "
                "remove and fork")
@traced
def _(sub: Subject) -> Observation:
    return handle_sequences(sub, 300)


def handle_sequences(sub: Subject, cases: int) -> Observation:
    """Seeded random sequences of handle.rs's calls (66-225) on a container of the subject's
    class, the same `cases` first ones wherever they run: build-1 grades 300, and each later
    checkpoint that carries the container grades the first of them again (build_interpreter's
    `container_sequences`)."""
    rng = random.Random(1093)
    seen: Observation = []
    for case in range(cases):
        c = _container(sub)
        for first in rng.sample(range(5), 3):
            c.register_handle(TensorId(first), f"v{case}.start")
        seen.append((f"case {case}: three registered", held(c)))
        for step in range(rng.randint(3, 12)):
            held_ids = sorted(int(i) for i in c.handle_ids())
            # mostly an id the container holds: a get of a missing one ends the case
            tid = TensorId(rng.choice(held_ids) if held_ids and rng.random() < 0.8
                           else rng.randrange(6))
            what = rng.choice(("register", "register", "ro", "rw", "notinit", "has", "free",
                               "remove", "fork"))
            label = f"case {case}, step {step}: {what} {int(tid)}"
            if what == "register":
                done = did(lambda c=c, t=tid, v=f"v{case}.{step}":  # type: ignore[misc]
                           c.register_handle(t, v))
            elif what in ("ro", "rw", "notinit"):
                status = {"ro": READ_ONLY, "rw": READ_WRITE, "notinit": NOT_INIT}[what]
                done = did(lambda c=c, t=tid, s=status: c.get_handle(t, s))  # type: ignore[misc]
            elif what == "has":
                done = did(lambda c=c, t=tid: c.has_handle(t))  # type: ignore[misc]
            elif what == "free":
                status = rng.choice((READ_ONLY, READ_WRITE, NOT_INIT))
                label += f" ({status})"
                done = did(lambda c=c, t=tid, s=status:  # type: ignore[misc]
                           c.free(TensorIr(t, (1,), s, DType.F32)))
            elif what == "remove":
                done = did(lambda c=c, t=tid: c.remove_handle(t))  # type: ignore[misc]
            else:
                c = c.fork()
                done = ["returned", None]
            if done[0] == "panics":
                # Burn's remove_entry runs before both panics (handle.rs:94-110) and the panic
                # ends the session: the container after a panic is never observed.
                seen.append((label, [done]))
                break
            seen.append((label, [done, held(c)]))
    return seen
