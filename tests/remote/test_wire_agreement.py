"""Burn's outgoing batch is modelled once (core/wire/): the served client's real frames follow the
rule the in-process wire model replays (`Runtime(wire=True)`), and a flow gives the same batches,
with the same tasks, for the same reasons, on both (`crates/burn-remote/src/client/service.rs`,
`service/batch.rs`). The frames are read back from the bytes the client hands its socket."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from routerlab.core import Runtime
from routerlab.core.remote import protocol as P
from routerlab.core.remote.link import PeerLink
from routerlab.core.wire.queue import Batch, Flush

Flow = Callable[[Runtime, str, str], None]


class Frames:
    """What a served client sent: every frame, decoded from the bytes given to the socket, and
    each batch its link reported (`PeerLink.record`)."""

    def __init__(self) -> None:
        self.frames: list[list[dict[str, Any]]] = []
        self.batches: list[Batch] = []

    def tap(self, link: PeerLink) -> None:
        send = link._send

        def sent(frames: list[bytes | memoryview]) -> None:
            self.frames.append(P.unpack(bytes(frames[0]), [bytes(b) for b in frames[1:]]))
            send(frames)

        link._send = sent  # type: ignore[method-assign]
        link.record = self.batches.append

    def task_frames(self) -> list[list[dict[str, Any]]]:
        """The frames that carry Burn's tasks (the others carry RouterLab's step messages)."""
        return [f for f in self.frames if all(m["k"] in P.TASKS for m in f)]


def served(peers: dict[str, str], flow: Flow) -> Frames:
    """`flow` on two devices of one served peer, every frame its client sends recorded."""
    seen = Frames()
    with Runtime(peers=peers) as rt:
        seen.tap(rt.server.peers["peer1"])  # type: ignore[attr-defined]
        flow(rt, "peer1/cpu:0", "peer1/cpu:1")
    return seen


def modelled(flow: Flow) -> list[Batch]:
    """`flow` on the in-process wire model: the batches its trace records, in order (each
    device's `sent`, interleaved as the trace's `batch` events are)."""
    rt = Runtime(["cpu:0", "cpu:1"], wire=True)
    flow(rt, "cpu:0", "cpu:1")
    sent = {d: iter(rt.client(d).wire.sent) for d in ("cpu:0", "cpu:1")}  # type: ignore[union-attr]
    return [next(sent[e.device]) for e in rt.trace.read() if e.kind == "batch"]


def summary(batches: list[Batch]) -> list[tuple[int, tuple[str, ...], int, Flush]]:
    """Each batch as (which device, by first use; its task kinds; its data bytes; why)."""
    devices: dict[str, int] = {}
    return [(devices.setdefault(b.device, len(devices)), tuple(t.kind for t in b.tasks),
             b.nbytes, b.reason) for b in batches]


def synced_at_flushes(rt: Runtime, a: str, b: str) -> None:
    """Steps that each end where Burn's client sends anyway: an upload, four ops, a move, a
    read."""
    with rt.step("upload, ops, move"):
        x = rt.tensor([1.0, 2.0], a, "f32")                # RegisterTensor: flushed; Init waits
        y = rt.add(rt.clone(x), x)
        z = rt.mul(rt.clone(y), y)
        w = rt.add(rt.clone(z), z)                         # the fourth task: all four leave
        moved = rt.to_device(rt.mul(rt.clone(w), w), b)    # the mul leaves with the expose
    assert rt.read(moved).tolist() == [64.0, 1024.0]


def one_call_a_step(rt: Runtime, a: str, b: str) -> None:
    """Every call its own step, as a notebook's cells are."""
    x = rt.tensor([1.0, 2.0], a, "f32")
    y = rt.add(rt.clone(x), x)
    z = rt.mul(rt.clone(y), y)
    rt.read(rt.to_device(rt.add(rt.clone(z), z), b))


@pytest.fixture(scope="module")
def synced(peers: dict[str, str]) -> Iterator[Frames]:
    yield served(peers, synced_at_flushes)


def test_the_real_frames_are_the_wire_models_batches(synced: Frames) -> None:
    model = modelled(synced_at_flushes)
    assert summary(synced.batches) == summary(model) == [
        (0, ("RegisterTensor",), 8, Flush.UPLOAD),
        (0, ("RegisterOperation",) * 4, 0, Flush.COUNT),
        (0, ("RegisterOperation", "ExposeTensorLocal"), 0, Flush.TRANSFER),
        (1, ("RegisterTensorLocal",), 0, Flush.TRANSFER),
        (1, ("ReadTensor",), 0, Flush.ANSWER)]
    ops = [m["op"]["op"] for f in synced.task_frames() for m in f if m["k"] == "RegisterOperation"]
    assert ops == ["InitOp", "AddOp", "MulOp", "AddOp", "MulOp"]
    assert [op.removesuffix("Op").lower() for op in ops] == [
        t.label for b in model for t in b.tasks if t.kind == "RegisterOperation"]


def test_each_reported_batch_is_one_frame_on_the_socket(synced: Frames) -> None:
    """`record` says what the socket carried: one frame per batch, its messages in order."""
    assert [[m["k"] for m in f] for f in synced.task_frames()] == [
        [t.kind for t in b.tasks] for b in synced.batches]
    assert [[m["device"] for m in f] for f in synced.task_frames()] == [
        [b.device] * len(b.tasks) for b in synced.batches]


def test_a_served_step_sends_what_burn_would_still_hold_at_its_end(
        peers: dict[str, str]) -> None:
    """One call a step: the served client sends the same tasks in the same order, and the ones
    Burn sends at once (an upload, a transfer, a read) leave alone as in the model; an op still
    held when its step ends leaves then (`Flush.STEP`: the step's `Sync` must find it on the
    peer), where Burn's client would wait for the fourth."""
    real = served(peers, one_call_a_step)
    model = modelled(one_call_a_step)
    assert [t.kind for b in real.batches for t in b.tasks] == [
        t.kind for b in model for t in b.tasks]
    assert summary(model) == [(0, ("RegisterTensor",), 8, Flush.UPLOAD),
                              (0, ("RegisterOperation",) * 4, 0, Flush.COUNT),
                              (0, ("ExposeTensorLocal",), 0, Flush.TRANSFER),
                              (1, ("RegisterTensorLocal",), 0, Flush.TRANSFER),
                              (1, ("ReadTensor",), 0, Flush.ANSWER)]
    assert summary(real.batches) == [(0, ("RegisterTensor",), 8, Flush.UPLOAD),
                                     *[(0, ("RegisterOperation",), 0, Flush.STEP)] * 4,
                                     (0, ("ExposeTensorLocal",), 0, Flush.TRANSFER),
                                     (1, ("RegisterTensorLocal",), 0, Flush.TRANSFER),
                                     (1, ("ReadTensor",), 0, Flush.ANSWER)]
