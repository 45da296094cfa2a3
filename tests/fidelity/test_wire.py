"""The wire's claims: one row per burn-remote behaviour `routerlab.core.wire` reproduces.

Each row names the claim, the line of Burn (commit 2c06be3) that makes it so, and a probe that
runs RouterLab and fails if the model says otherwise. docs/burn.md sections 19 to 22 list these
rows ("Wire rows: ..."); the last tests keep the two in step. (They sit apart from
`test_claims.py`, whose rows docs/burn.md lists as "Rows: ...".)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from routerlab.core import BurnPanic, BurnTodo, MissingHandleError, Runtime
from routerlab.core.scenario import ScenarioRunError, parse_scenario, run_scenario
from routerlab.core.wire import (
    CHANNEL_MAX_TASK,
    FLUSH_BYTES_THRESHOLD,
    FLUSH_THRESHOLD,
    Call,
    Drain,
    Flush,
    GraphCache,
    GraphOp,
    OutgoingBatch,
    RouterFuser,
    SessionInfo,
    StreamedSession,
    WireQueue,
    WireTask,
    estimate_saved_pct,
    every_order,
    host_devices,
    layers,
)
from routerlab.core.wire.graphs import GROWTH_PATIENCE, boundary

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "burn.md"


@dataclass(frozen=True)
class Row:
    id: str
    claim: str
    burn: str
    probe: Callable[[], None]


ROWS: list[Row] = []


def row(id: str, claim: str, burn: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def add(probe: Callable[[], None]) -> Callable[[], None]:
        ROWS.append(Row(id, claim, burn, probe))
        return probe
    return add


def _batches(rt: Runtime, device: str = "cpu:0") -> list[tuple[int, str]]:
    """(tasks, reason) of each batch that left `device`'s client."""
    wire = rt.client(device).wire
    assert wire is not None
    return [(len(b.tasks), str(b.reason)) for b in wire.sent]


# --- 19. when a task leaves the client ----------------------------------------------------------

@row("wire-thresholds", "a batch flushes at 4 tasks or 1 MiB of data, Burn's defaults",
     "crates/burn-std/src/config/remote.rs:38-44")
def _() -> None:
    assert (FLUSH_THRESHOLD, FLUSH_BYTES_THRESHOLD) == (4, 1024 * 1024)


@row("wire-push-either-threshold", "push says flush once the count or the data bytes reach their "
     "threshold; only RegisterTensor counts bytes; take resets both",
     "crates/burn-remote/src/client/service/batch.rs:31-36, 52-56, 63-66")
def _() -> None:  # Burn's own tests, batch.rs:93-124, on the model
    count = OutgoingBatch(3, 10**9)
    assert [count.push(WireTask("Seed", "")) for _ in range(3)] == [False, False, True]
    data = OutgoingBatch(100, 1000)
    assert [data.push(WireTask("RegisterTensor", "", nbytes=400)) for _ in range(3)] == [
        False, False, True]
    data.take()
    assert not data.push(WireTask("RegisterTensor", "", nbytes=900))
    assert not OutgoingBatch(100, 1000).push(WireTask("RegisterOperation", "", nbytes=5000))


@row("wire-closure-queue-holds-32", "every client call is a closure on CubeCL's device queue, "
     "which the runner takes only once 32 are queued (CHANNEL_MAX_TASK; cubecl-common at "
     "CubeCL 4834896)",
     "cubecl:crates/cubecl-common/src/device/handle/channel.rs:92-95, 845, 1080-1086")
def _() -> None:
    rt = Runtime(["cpu:0"], wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")                 # RegisterTensor, then Init's op
    wire = rt.client("cpu:0").wire
    assert wire is not None and CHANNEL_MAX_TASK == 32
    y = x
    while len(wire.closures.closures) < CHANNEL_MAX_TASK - 1:
        y = rt.add(rt.clone(y), y)
    assert wire.sent == [] and wire.drained == []     # 31 calls made, nothing reached the service
    rt.add(rt.clone(y), y)                             # the 32nd closure: the runner takes them all
    assert [(reason, len(tasks)) for reason, tasks, _ in wire.drained] == [(Drain.FULL, 32)]
    assert _batches(rt) == [(1, "upload")] + [(4, "count")] * 7  # the service's usual frames
    assert len(wire.batch.tasks) == 3                  # three ops now wait in the batch instead


@row("wire-ops-wait-for-the-fourth", "the service buffers ops: three wait in the batch, the fourth "
     "sends all four, once the runner has handed them over",
     "crates/burn-remote/src/client/service.rs:324-329, 547-556")
def _() -> None:
    queue = WireQueue("cpu:0")
    for op in ("add", "mul", "add"):
        queue.send("RegisterOperation", op)
    queue.drain(Drain.WAIT)
    assert queue.sent == [] and len(queue.batch.tasks) == 3
    queue.send("RegisterOperation", "sum")
    queue.drain(Drain.WAIT)
    assert [(len(b.tasks), b.reason) for b in queue.sent] == [(4, Flush.COUNT)]


@row("wire-upload-waits-then-flushes", "register_tensor_data only submits a closure; when the "
     "runner runs it, the service pushes the upload and flushes at once, whatever its size",
     "crates/burn-remote/src/client/runner.rs:56-67, "
     "crates/burn-remote/src/client/service.rs:386-389")
def _() -> None:
    rt = Runtime(["cpu:0"], wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    assert _batches(rt) == []                          # the upload waits as a closure
    rt.read(x)
    assert _batches(rt) == [(1, "upload"), (2, "answer")]  # Init's op and the read


@row("wire-read-flushes-everything-before", "a read is pushed behind the queued ops and flushed "
     "with them, then waits for its answer",
     "crates/burn-remote/src/client/service.rs:481-492, 537-545, 564-567")
def _() -> None:
    rt = Runtime(["cpu:0"], wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    y = rt.add(rt.clone(x), x)
    rt.read(y)
    tasks = rt.client("cpu:0").wire.sent[-1].tasks  # type: ignore[union-attr]
    assert [t.kind for t in tasks] == ["RegisterOperation", "RegisterOperation", "ReadTensor"]
    assert rt.client("cpu:0").wire.sent[-1].reason is Flush.ANSWER  # type: ignore[union-attr]


@row("wire-move-flushes", "a same-peer move's expose and register each drain the closure queue "
     "(the runner's flush_queue), then flush the batch (the service's flush)",
     "crates/burn-remote/src/client/runner.rs:429-441, "
     "crates/burn-remote/src/client/service.rs:445-475")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"], wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    rt.to_device(x, "cpu:1")
    source = rt.client("cpu:0").wire.sent[-1]  # type: ignore[union-attr]
    target = rt.client("cpu:1").wire.sent[-1]  # type: ignore[union-attr]
    assert (source.tasks[-1].kind, source.reason) == ("ExposeTensorLocal", Flush.TRANSFER)
    assert (target.tasks[-1].kind, target.reason) == ("RegisterTensorLocal", Flush.TRANSFER)
    assert [r for r, _, _ in rt.client("cpu:0").wire.drained] == [Drain.MOVE]  # type: ignore[union-attr]


# --- 20. where a server panic surfaces --------------------------------------------------------

FLOW = """
devices = ["cpu:0"]
policy = "legacy"
fusion = true
[[steps]]
op = "tensor"
name = "x"
values = [1.0, 2.0]
device = "cpu:0"
[[steps]]
op = "tensor"
name = "y"
values = [1.0, 2.0]
device = "cpu:0"
[[steps]]
op = "quantize"
tensor = "x"
scheme = "q8s"
name = "q"
[[steps]]
op = "clone"
tensor = "y"
name = "y2"
[[steps]]
op = "read"
tensor = "y"
"""


@row("wire-panic-seen-at-next-answer", "a panicked worker answers nothing: the user sees it at "
     "the next call that waits for an answer, a read",
     "crates/burn-remote/src/client/runner.rs:44-52")
def _() -> None:
    with pytest.raises(ScenarioRunError) as info:
        list(run_scenario(parse_scenario(FLOW, "flow")))
    assert info.value.step == 3 and info.value.seen is not None and info.value.seen.step == 5
    assert "sees it at step 5" in str(info.value)


@row("wire-panic-unseen-without-answer", "fire-and-forget tasks never learn of the panic: a flow "
     "that never waits for the session's answer ends without seeing it",
     "crates/burn-remote/src/client/service.rs:547-556")
def _() -> None:
    with pytest.raises(ScenarioRunError) as info:
        list(run_scenario(parse_scenario(FLOW.rsplit("[[steps]]", 1)[0], "flow")))
    assert info.value.seen is not None and info.value.seen.step is None


@row("wire-queue-surfaces-the-panic", "the poisoned task leaves with its batch, and the first "
     "answered call after that is where the panic shows",
     "crates/burn-remote/src/client/service.rs:564-567")
def _() -> None:
    queue = WireQueue("cpu:0")
    queue.send("RegisterOperation", "quantize", panics=True)
    assert queue.send("RegisterOperation", "add") is None and not queue.dead  # still queued
    seen = queue.send("ReadTensor", "#3")
    assert queue.dead and seen is not None and seen.task.label == "quantize"
    assert [len(tasks) for _, tasks, _ in queue.drained] == [3]  # the read drained all three


# --- 21. streams and aliases ------------------------------------------------------------------

@row("wire-one-fifo-per-session", "a session runs every stream's tasks in one FIFO, in arrival "
     "order; the stream only sets the context", "crates/burn-remote/src/server/worker.rs:9-17")
def _() -> None:
    calls = [Call(2, "make", (), 1), Call(1, "use", (1,)), Call(2, "consume", (1,))]
    ran = StreamedSession().run(calls)
    assert [c for c, _ in ran] == calls and [s for _, s in ran] == [
        "stream 2", "stream 1", "stream 2"]


@row("wire-alias-needs-its-source", "register_alias of an id not yet materialized panics",
     "crates/burn-router/src/interpreter.rs:151-159")
def _() -> None:
    with pytest.raises(BurnPanic, match="alias source tensor must be materialized"):
        StreamedSession().run([Call(1, "alias", (7,), 8)])


@row("wire-alias-frees-independently", "an alias is a second id over one buffer: consuming one "
     "leaves the other, and the buffer lives until both are gone",
     "crates/burn-router/src/fusion.rs:119-135")
def _() -> None:
    session = StreamedSession()
    session.run([Call(1, "make", (), 1), Call(1, "alias", (1,), 2), Call(1, "consume", (1,))])
    assert session.live_buffers() == {1}
    session.run([Call(2, "consume", (2,))])
    assert session.live_buffers() == set()
    with pytest.raises(MissingHandleError):
        StreamedSession().run([Call(1, "make", (), 1), Call(1, "consume", (1,)),
                               Call(2, "consume", (1,))])


@row("wire-threads-interleave", "two threads' calls arrive in any interleaving, each thread's "
     "own in order", "crates/burn-remote/src/client/runner.rs:16-19")
def _() -> None:
    a = [Call(1, "make", (), 1), Call(1, "make", (), 2)]
    b = [Call(2, "make", (), 3)]
    orders = [[c.out for c in o.calls] for o in every_order((a, b))]
    assert sorted(orders) == [[1, 2, 3], [1, 3, 2], [3, 1, 2]]


# --- 22. the graph cache, and which devices a server hosts -------------------------------------

@row("wire-graph-once-then-bindings", "the first run sends the relative graph with its bindings, "
     "later runs the graph's id and bindings only",
     "crates/burn-router/src/fusion.rs:502-511, crates/burn-remote/src/server/worker.rs:200-237")
def _() -> None:
    cache = GraphCache()
    first, second = cache.execute(layers(0)), cache.execute(layers(100))
    assert (first.kind, second.kind) == ("RegisterAndExecuteGraph", "ExecuteGraph")
    assert first.graph_id == second.graph_id and second.nbytes < first.nbytes


@row("wire-graph-ready-over-one-op", "a graph of one op is not sent as a graph",
     "crates/burn-router/src/fusion.rs:254-259")
def _() -> None:
    with pytest.raises(ValueError):
        GraphCache().execute(layers(0)[:1])


@row("wire-score-saved-bytes", "the fuser's score is the percent of bytes a replay saves, times "
     "100, plus 1", "crates/burn-router/src/fusion.rs:198-206, 386-414")
def _() -> None:
    ops = layers(0, count=1)
    fuser = RouterFuser()
    for op in ops:
        fuser.fuse(op)
    assert fuser.score == estimate_saved_pct(ops) * 100 + 1
    inputs, outputs = boundary(ops)
    assert (inputs, outputs) == ([0, 1, 3], [4])  # activation, weight, bias in; the result out


@row("wire-estimate-counts-outputs-twice", "Burn's estimate walks op.nodes() chained with "
     "op.outputs(), and nodes() already holds the outputs: each output counts twice, so the "
     "three-layer block saves 77 %, not the 70 % of counting each tensor once",
     "crates/burn-router/src/fusion.rs:395-406, crates/burn-ir/src/operation.rs:2210-2212")
def _() -> None:
    op = GraphOp("add", ((0, (8, 64), True), (1, (64,), False)), ((2, (8, 64)),))
    tensor = {2: 10 + 8 * 2, 1: 10 + 8 * 1}  # TENSOR plus PER_DIM per dimension
    assert op.baseline() == 8 + tensor[2] + tensor[1] + tensor[2] * 2  # the output twice
    assert estimate_saved_pct(layers(0)) == 77


@row("wire-classify-init-not-produced", "GraphIr::classify counts no Init op's outputs as "
     "produced: an Init's tensor is a graph input", "crates/burn-ir/src/graph.rs:58-95")
def _() -> None:
    init = GraphOp("init", (), ((5, (2,)),), init=True)
    add = GraphOp("add", ((5, (2,), True), (6, (2,), False)), ((7, (2,)),))
    assert boundary([init, add]) == ([5, 6], [7])
    assert boundary([GraphOp("make", (), ((5, (2,)),)), add]) == ([6], [7])


@row("wire-patience", "the fuser closes a graph once its score has not grown for 32 ops "
     "(growth_patience), with no size cap by default",
     "crates/burn-std/src/config/fusion.rs:35-48, crates/burn-router/src/fusion.rs:245-252")
def _() -> None:
    def independent(i: int) -> GraphOp:  # new tensors and a new dim: the same share saved
        return GraphOp("add", ((3 * i, (i + 1,), True), (3 * i + 1, (i + 1,), True)),
                       ((3 * i + 2, (i + 1,)),))

    fuser = RouterFuser()
    fuser.fuse(independent(0))
    steps = 0
    while not fuser.closed:
        fuser.fuse(independent(steps + 1))
        steps += 1
    assert GROWTH_PATIENCE == 32 and steps == 32 and fuser.max_graph_size is None


@row("wire-session-info-device-count", "the handshake answers the device settings and the "
     "server's device count", "crates/burn-remote/src/server/pump.rs:59-69")
def _() -> None:
    info = SessionInfo.of(2)
    assert (info.version, info.device_count) == (1, 2)
    assert info.device_names("cuda") == ["cuda:0", "cuda:1"]


@row("wire-dispatch-one-default-device", "enumeration is trusted only past one device; else one "
     "default device is hosted", "crates/burn-dispatch/src/remote_server.rs:32-47")
def _() -> None:
    assert [host_devices(n) for n in (0, 1, 2, 4)] == [1, 1, 2, 4]


@row("wire-builder-hosts-any-list", "only Dispatch's server hosts one default device; "
     "RemoteServerBuilder::new(devices) hosts the list it is given, devices[0] the default: the "
     "docs say so, and a peer of the model hosts two CPU devices",
     "crates/burn-remote/src/server/builder.rs:84-95, "
     "crates/burn-dispatch/src/remote_server.rs:32-47")
def _() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "`RemoteServerBuilder::new(devices)` hosts whatever list it is given" in text
    assert "A real burn-remote server of a CPU backend" not in text
    rt = Runtime(["cpu:0", "cpu:1"], wire=True)
    rt.to_device(rt.tensor([1.0], "cpu:0"), "cpu:1")  # one server, two devices: the local path
    assert [t.kind for t in rt.client("cpu:0").wire.sent[-1].tasks][-1] == "ExposeTensorLocal"  # type: ignore[union-attr]


@row("wire-runtime-aliases-where", "the Runtime's sessions have no streams; burn-fusion's "
     "tag_shared_view is where they would need an alias (alias_handle is register_alias)",
     "crates/burn-fusion/src/stream/multi.rs:168-192, crates/burn-router/src/fusion.rs:119-135")
def _() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "`MultiStream::tag_shared_view`" in text and "multi.rs#L168-L192" in text
    session = StreamedSession()  # the toy that has them: a second id over one buffer
    session.run([Call(1, "make", (), 1), Call(1, "alias", (1,), 2), Call(2, "consume", (2,))])
    assert session.live_buffers() == {1}


def _params() -> list[object]:
    return [pytest.param(r, id=r.id) for r in ROWS]


@pytest.mark.parametrize("claim", _params())
def test_claim(claim: Row) -> None:
    claim.probe()


def test_rows_cite_burn_at_the_pin_and_docs_list_them() -> None:
    ids = [r.id for r in ROWS]
    assert len(set(ids)) == len(ids)
    for r in ROWS:
        for cite in r.burn.split(", crates/"):
            assert re.fullmatch(r"(cubecl:)?(crates/)?[\w./-]+\.(rs|toml):\d+(-\d+)?"
                                r"(, \d+(-\d+)?)*", cite), r
    text = DOC.read_text(encoding="utf-8")
    documented = [rid for line in re.findall(r"^Wire rows: (.*?)\.$", text, re.M | re.S)
                  for rid in re.findall(r"`([a-z0-9-]+)`", line)]
    assert sorted(documented) == sorted(ids)


def test_the_wire_replays_burn_only_when_asked() -> None:
    """`wire` is off by default: the model's steps, traces and fast paths are as they were."""
    rt = Runtime(["cpu:0"])
    rt.read(rt.tensor([1.0], "cpu:0"))
    assert rt.client("cpu:0").wire is None
    assert not [e for e in rt.trace.read() if e.kind == "batch"]


def test_a_failed_step_takes_its_tasks_back_from_the_batch() -> None:
    rt = Runtime(["cpu:0"], policy="legacy", fusion=True, wire=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    wire = rt.client("cpu:0").wire
    assert wire is not None
    state = (list(wire.batch.tasks), len(wire.sent))
    with pytest.raises(BurnTodo):
        rt.quantize(x, "q8s")
    assert (list(wire.batch.tasks), len(wire.sent)) == state


def test_the_bytes_rule_is_unreachable_through_burns_client() -> None:
    """Issue 39: only a RegisterTensor adds bytes, and the service flushes right after pushing it
    (service.rs:386-389), so a buffered task always finds 0 bytes queued and no batch ever leaves
    for `bytes` through the client, whatever the calls. The rule is tested on the batch alone
    (`wire-push-either-threshold`), never as a state Burn's client reaches."""
    import random

    from routerlab.core.wire import ANSWERED, BUFFERED, FLUSHED

    rng = random.Random(39)
    kinds = sorted(BUFFERED | FLUSHED | ANSWERED)
    queue = WireQueue("cpu:0")
    for _ in range(2000):
        kind = rng.choice(kinds)
        queue.send(kind, "t", nbytes=rng.choice((0, 8, 3 << 20)) if kind == "RegisterTensor"
                   else 0)
        assert queue.batch.bytes == 0
    assert len(queue.sent) > 100 and all(b.reason is not Flush.BYTES for b in queue.sent)
