"""Fusion's graph cache on the wire: a recurring block of ops crosses the network once.

With burn-remote's `fusion` feature (`crates/burn-remote/Cargo.toml:29-30`) the client is
`Fusion<BackendRouter<..>>`, and the router's one fuser (`RouterFuser`) collects every op until a
sync point (`crates/burn-router/src/fusion.rs:154-159`). The first time a block runs, the client
sends `RegisterAndExecuteGraph`: the *relative* graph (positional ids, so it is the same every
time) and this run's bindings; afterwards only `ExecuteGraph` with the graph's id and new
bindings (`fusion.rs:502-511`). The server keeps each graph by id and replays it
(`crates/burn-remote/src/server/worker.rs:200-237`).

The fuser scores a graph by the bytes caching would save (`estimate_saved_pct`, fusion.rs:
386-414, its constants at 390-393), floored at 1 (fusion.rs:198-206), and closes it once the
score has not reached a new maximum for `growth_patience` ops, 32 by default, or past
`max_graph_size`, none by default (fusion.rs:224-252, `crates/burn-std/src/config/fusion.rs:
21-48`). A graph is *ready* (sent as a graph) only with more than one op (fusion.rs:254-259).

Bytes here are Burn's own structural estimate of the serialized size (those constants), the
measure its fuser optimises; RouterLab does not serialize Burn's IR. The estimate keeps Burn's
quirk: it walks `op.nodes()` chained with `op.outputs()` (fusion.rs:399), and `nodes()` already
holds the outputs (`crates/burn-ir/src/operation.rs:2210-2212`), so every output is counted
twice. For notebook 09's three layers that makes the estimate save 77 % where counting each
tensor once gives 70 %; RouterLab counts as Burn does, since the score decides where Burn closes
a graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

TENSOR, PER_DIM, OP_OVERHEAD, PAIR = 10, 8, 8, 16
"""Burn's estimate: a tensor's id, dtype and status; one dimension; an op's tag; one
(relative id, concrete id) binding (fusion.rs:390-393)."""
FACTOR_SAVED, FREE_OPS, PENALTY_PER_OP = 100, 64, 0
"""The score's weight per point saved, the ops free of penalty, the penalty (fusion.rs:199-201)."""
GROWTH_PATIENCE = 32
"""`default_growth_patience` (burn-std/src/config/fusion.rs:46-48)."""
MAX_GRAPH_SIZE: int | None = None
"""`FusionConfig::max_graph_size` defaults to none (burn-std/src/config/fusion.rs:40)."""


@dataclass(frozen=True)
class GraphOp:
    """One op as the fuser sees it: a name, its inputs `(id, shape, consumed)` (consumed: a
    `ReadWrite` last use) and its outputs `(id, shape)`; `drop` marks `OperationIr::Drop`,
    `init` marks `OperationIr::Init` (an upload's announcement, whose output the graph did not
    make)."""

    name: str
    inputs: tuple[tuple[int, tuple[int, ...], bool], ...] = ()
    outputs: tuple[tuple[int, tuple[int, ...]], ...] = ()
    drop: bool = False
    init: bool = False

    def baseline(self) -> int:
        """This op's bytes in Burn's estimate: its tag, every node (inputs, then outputs) and
        the outputs once more, as `op.nodes().chain(op.outputs())` walks them (fusion.rs:399)."""
        tensors = ([s for _, s, _ in self.inputs] + [s for _, s in self.outputs]
                   + [s for _, s in self.outputs])
        return OP_OVERHEAD + sum(TENSOR + PER_DIM * len(shape) for shape in tensors)


def boundary(ops: Sequence[GraphOp]) -> tuple[list[int], list[int]]:
    """`GraphIr::classify` (crates/burn-ir/src/graph.rs:58-95): the inputs (referenced, not
    produced inside) and the outputs (produced, not consumed or dropped inside), in order. An
    `Init` produces nothing (graph.rs:69-75): its output is referenced, so it is an input."""
    referenced: list[int] = []
    produced: list[int] = []
    consumed: set[int] = set()
    for op in ops:
        if not op.init:
            for tensor, _ in op.outputs:
                if tensor not in produced:
                    produced.append(tensor)
        for tensor, _, last in op.inputs:
            if tensor not in referenced:
                referenced.append(tensor)
            if last or op.drop:
                consumed.add(tensor)
        for tensor, _ in op.outputs:  # `nodes()` holds the outputs too
            if tensor not in referenced:
                referenced.append(tensor)
    inputs = [t for t in referenced if t not in produced]
    return inputs, [t for t in produced if t not in consumed]


def bindings_bytes(ops: Sequence[GraphOp]) -> int:
    """What one replay sends: a pair per boundary tensor, and each distinct dimension."""
    inputs, outputs = boundary(ops)
    dims = {d for op in ops for shape in [s for _, s, _ in op.inputs] + [s for _, s in op.outputs]
            for d in shape}
    return (len(inputs) + len(outputs)) * PAIR + len(dims) * PER_DIM


def graph_bytes(ops: Sequence[GraphOp]) -> int:
    """The relative graph's bytes: Burn's baseline (fusion.rs:395-406)."""
    return sum(op.baseline() for op in ops)


def estimate_saved_pct(ops: Sequence[GraphOp]) -> int:
    """The percent of bytes a replay saves over the whole graph (fusion.rs:386-414)."""
    if not ops:
        return 0
    baseline = graph_bytes(ops)
    saved = max(baseline - bindings_bytes(ops), 0)
    return min(saved * 100 // baseline, 100)


@dataclass
class RouterFuser:
    """The router's greedy fuser (fusion.rs:160-268): it takes every op, scores the graph after
    each and closes it once patience runs out."""

    growth_patience: int = GROWTH_PATIENCE
    max_graph_size: int | None = MAX_GRAPH_SIZE
    ops: list[GraphOp] = field(default_factory=list)
    score: int = 0
    score_max: int = 0
    since_max: int = 0

    def fuse(self, op: GraphOp) -> None:
        self.ops.append(op)
        penalty = max(len(self.ops) - FREE_OPS, 0) * PENALTY_PER_OP
        self.score = max(estimate_saved_pct(self.ops) * FACTOR_SAVED - penalty, 0) + 1
        if self.score > self.score_max:
            self.score_max, self.since_max = self.score, 0
        else:
            self.since_max += 1

    @property
    def closed(self) -> bool:
        over = self.max_graph_size is not None and len(self.ops) > self.max_graph_size
        return self.since_max >= self.growth_patience or over

    @property
    def ready(self) -> bool:
        """Sent as a graph only with more than one op (fusion.rs:254-259)."""
        return len(self.ops) > 1


@dataclass(frozen=True)
class WireMessage:
    """One task on the wire with its estimated bytes."""

    kind: str
    nbytes: int
    graph_id: int | None = None


def relative(ops: Sequence[GraphOp]) -> tuple[object, ...]:
    """The graph's relative form: ids replaced by their order of first appearance, so that the
    same block run on new tensors is the same graph (fusion.rs:345-351)."""
    order: dict[int, int] = {}

    def rel(tensor: int) -> int:
        return order.setdefault(tensor, len(order))

    return tuple((op.name, op.drop, tuple((rel(t), s, last) for t, s, last in op.inputs),
                  tuple((rel(t), s) for t, s in op.outputs)) for op in ops)


@dataclass
class GraphCache:
    """The client's graphs and the ids the server knows them by (fusion.rs:352-358, 502-511)."""

    ids: dict[tuple[object, ...], int] = field(default_factory=dict)

    def execute(self, ops: Sequence[GraphOp]) -> WireMessage:
        """What one run of a ready block sends: the graph and its bindings the first time, the
        id and the bindings afterwards."""
        if len(ops) < 2:
            raise ValueError("a graph needs more than one op (fusion.rs:254-259)")
        key = relative(ops)
        known = self.ids.get(key)
        if known is not None:
            return WireMessage("ExecuteGraph", bindings_bytes(ops), known)
        self.ids[key] = len(self.ids)
        return WireMessage("RegisterAndExecuteGraph", graph_bytes(ops) + bindings_bytes(ops),
                           self.ids[key])


def unfused(ops: Sequence[GraphOp]) -> list[WireMessage]:
    """The same block without `fusion`: one `RegisterOperation` per op, every run."""
    return [WireMessage("RegisterOperation", op.baseline()) for op in ops]


def layers(first_id: int, count: int = 3, width: int = 64, batch: int = 8) -> list[GraphOp]:
    """A block of `count` linear layers as the fuser sees it: per layer a matmul by a weight and
    an add of a bias, each consuming the previous activation. Ids start at `first_id`, so two
    runs of the block use new tensors but form the same relative graph."""
    ids = iter(range(first_id, first_id + 4 * count + 1))
    act, shape = next(ids), (batch, width)
    ops = []
    for _ in range(count):
        weight, product, bias, out = next(ids), next(ids), next(ids), next(ids)
        ops.append(GraphOp("matmul", ((act, shape, True), (weight, (width, width), False)),
                           ((product, shape),)))
        ops.append(GraphOp("add", ((product, shape, True), (bias, (width,), False)),
                           ((out, shape),)))
        act = out
    return ops


def compare_runs(runs: Sequence[Sequence[GraphOp]]) -> list[tuple[int, str, int, int]]:
    """Each run of one block, without and with the graph cache: `(run, how, messages, bytes)`."""
    cache = GraphCache()
    rows = []
    for number, ops in enumerate(runs, start=1):
        plain = unfused(ops)
        rows.append((number, "without fusion", len(plain), sum(m.nbytes for m in plain)))
        message = cache.execute(ops)
        rows.append((number, f"fusion: {message.kind}", 1, message.nbytes))
    return rows
