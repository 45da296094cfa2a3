"""The client's queue, its batches and the wire, drawn from the core's own records.

`wire_lanes` draws one device's client the way notebooks 02 and 03 draw sessions as swim-lanes:
the calls in the order they were made, how long each waited as a closure in CubeCL's device queue
(`routerlab.core.wire.closures`), then in the outgoing batch, and each batch as it left, with why
(`routerlab.core.wire.queue`); `batch_table` lists the same batches.
Nothing here computes the model: it arranges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import TableView
from ..core.wire import Batch, Drained, WireTask
from ..present.palette import GREY, PLOT_COLOURS, RED
from .panics import Caught, catch_panic

__all__ = ["batch_table", "drain_table", "replay_flow", "wire_lanes"]

_SHORT = {"RegisterOperation": "op", "RegisterTensor": "upload", "ReadTensor": "read",
          "SyncBackend": "sync", "ExposeTensorLocal": "expose", "RegisterTensorLocal": "register",
          "ExposeTensorRemote": "expose", "RegisterTensorRemote": "register",
          "RegisterAlias": "alias", "DTypeUsage": "dtype_usage", "Seed": "seed",
          "RegisterAndExecuteGraph": "graph", "ExecuteGraph": "graph by id"}


def batch_table(batches: Sequence[Batch], title: str = "Batches that left the client") -> TableView:
    """One row per batch: its number, the step it left at, its tasks, its data bytes, why."""
    rows = [[b.number, b.step, ", ".join(map(str, b.tasks)), b.nbytes or None, str(b.reason)]
            for b in batches]
    return TableView(title, ["batch", "step", "tasks", "data bytes", "left because"], rows)


def replay_flow(text: str, name: str) -> Caught:
    """Run a flow a cell writes out (a scenario's TOML), every client's wire on, keeping its panic
    for display. A reveal calls it, so the flow runs only once the reveal opens: run before the
    lock, its failure would state the checkpoint's answers."""
    from ..core.scenario import parse_scenario, run_scenario

    with catch_panic() as run:
        list(run_scenario(parse_scenario(text, name), wire=True))
    return run


def drain_table(drains: Sequence[Drained],
                title: str = "When the device runner ran the client's calls") -> TableView:
    """One row per run of the device runner: the step it ran at, the closures it ran, why."""
    rows: list[list[str | int]] = [[step, len(tasks), ", ".join(map(str, tasks)), str(reason)]
            for reason, tasks, step in drains]
    return TableView(title, ["step", "closures", "calls it handed to the service", "ran because"],
                     rows)


def wire_lanes(batches: Sequence[Batch], waiting: Sequence[WireTask] = (), title: str = "", *,
               drains: Sequence[Drained] = (), queued: Sequence[WireTask] = ()) -> Any:
    """Four lanes for one client: its calls left to right; each call's wait as a closure in the
    device queue (a bar up to the call whose drain ran it, `drains`); each task's wait in the
    outgoing batch (a bar up to the batch that carried it); and each batch on the wire, with its
    reason. `waiting`: tasks still in the batch, `queued`: closures still in the device queue
    (both drawn with an open end). The batch labels sit on two rows, alternating, so two batches
    that leave side by side never write over each other."""
    import matplotlib.pyplot as plt

    tasks = ([(t, b) for b in batches for t in b.tasks] + [(t, None) for t in waiting]
             + [(t, None) for t in queued])
    index = {id(t): x for x, (t, _) in enumerate(tasks)}
    ran_at = {id(t): max(index.get(id(u), -1) for u in run) for _, run, _ in drains for t in run}
    still_queued = {id(t) for t in queued}
    fig, ax = plt.subplots(figsize=(min(12.0, 2.8 + 0.8 * len(tasks)), 4.0))
    lanes = {"calls": 3, "device queue": 2, "outgoing batch": 1, "wire": 0}
    open_end = len(tasks) - 0.2
    for x, (task, batch) in enumerate(tasks):
        colour = PLOT_COLOURS[(batch.number - 1) % len(PLOT_COLOURS)] if batch else GREY.hex
        ax.plot(x, lanes["calls"], marker="v", ms=9, color=colour, linestyle="none")
        ax.annotate(_SHORT.get(task.kind, task.kind), (x, lanes["calls"]), ha="center",
                    textcoords="offset points", xytext=(0, 8), fontsize=8, rotation=20)
        drained = ran_at.get(id(task))
        ax.plot([x, open_end if drained is None else drained + 0.001],
                [lanes["device queue"]] * 2, color=GREY.hex, lw=5, alpha=0.5,
                solid_capstyle="butt" if drained is None else "round")
        if id(task) in still_queued:
            continue
        start = x if drained is None else drained
        if batch is None:
            ax.plot([start, open_end], [lanes["outgoing batch"]] * 2, color=colour, lw=5,
                    alpha=0.5, solid_capstyle="butt")
            continue
        last = max(i for i, (_, b) in enumerate(tasks) if b is batch)
        ax.plot([start, max(start, last) + 0.001], [lanes["outgoing batch"]] * 2, color=colour,
                lw=5, alpha=0.7, solid_capstyle="round")
    for batch in batches:
        last = max(i for i, (_, b) in enumerate(tasks) if b is batch)
        colour = RED.hex if str(batch.reason) == "answer" else \
            PLOT_COLOURS[(batch.number - 1) % len(PLOT_COLOURS)]
        ax.annotate("", xy=(last, lanes["wire"]), xytext=(last, lanes["outgoing batch"] - 0.1),
                    arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.6})
        row = -14 if batch.number % 2 else -27
        ax.annotate(f"batch {batch.number}: {batch.reason}", (last, lanes["wire"]), ha="center",
                    textcoords="offset points", xytext=(0, row), fontsize=8, color=colour)
    ax.set_yticks(list(lanes.values()), list(lanes))
    ax.set_ylim(-1.0, 3.7)
    ax.set_xlim(-0.8, max(len(tasks), 1) - 0.2)
    ax.set_xticks([])
    ax.grid(axis="x", visible=False)
    ax.set(xlabel="the client's calls, in the order they were made",
           title=title or "When each task left the client")
    fig.tight_layout()
    plt.close(fig)
    return fig
