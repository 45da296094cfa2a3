"""The client's queue, its batches and the wire, drawn from the core's own records.

`wire_lanes` draws one device's client the way notebooks 02 and 03 draw sessions as swim-lanes:
the calls in the order they were made, how long each task waited in the outgoing batch, and each
batch as it left, with why (`routerlab.core.wire.queue`); `batch_table` lists the same batches.
Nothing here computes the model: it arranges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import TableView
from ..core.wire import Batch, WireTask
from ..present.palette import GREY, PLOT_COLOURS, RED

__all__ = ["batch_table", "wire_lanes"]

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


def wire_lanes(batches: Sequence[Batch], waiting: Sequence[WireTask] = (),
               title: str = "") -> Any:
    """Three lanes for one client: its calls left to right, each task's wait in the outgoing
    batch (a bar up to the batch that carried it), and each batch on the wire, with its reason.
    `waiting`: tasks still in the batch (drawn with an open end)."""
    import matplotlib.pyplot as plt

    tasks = [(t, b) for b in batches for t in b.tasks] + [(t, None) for t in waiting]
    fig, ax = plt.subplots(figsize=(min(11.0, 2.6 + 0.7 * len(tasks)), 3.4))
    lanes = {"calls": 2, "outgoing batch": 1, "wire": 0}
    end = 0
    for x, (task, batch) in enumerate(tasks):
        colour = PLOT_COLOURS[(batch.number - 1) % len(PLOT_COLOURS)] if batch else GREY.hex
        ax.plot(x, lanes["calls"], marker="v", ms=9, color=colour, linestyle="none")
        ax.annotate(_SHORT.get(task.kind, task.kind), (x, lanes["calls"]), ha="center",
                    textcoords="offset points", xytext=(0, 8), fontsize=8, rotation=20)
        if batch is None:
            ax.plot([x, len(tasks) - 0.2], [lanes["outgoing batch"]] * 2, color=colour, lw=5,
                    alpha=0.5, solid_capstyle="butt")
            continue
        end = x + sum(1 for t, b in tasks[x + 1:] if b is batch)
        ax.plot([x, end + 0.001], [lanes["outgoing batch"]] * 2, color=colour, lw=5, alpha=0.7,
                solid_capstyle="round")
    for batch in batches:
        last = max(i for i, (_, b) in enumerate(tasks) if b is batch)
        colour = RED.hex if str(batch.reason) == "answer" else \
            PLOT_COLOURS[(batch.number - 1) % len(PLOT_COLOURS)]
        ax.annotate("", xy=(last, lanes["wire"]), xytext=(last, lanes["outgoing batch"] - 0.1),
                    arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.6})
        ax.annotate(f"batch {batch.number}: {batch.reason}", (last, lanes["wire"]), ha="center",
                    textcoords="offset points", xytext=(0, -15), fontsize=8, color=colour)
    ax.set_yticks(list(lanes.values()), list(lanes))
    ax.set_ylim(-0.7, 2.7)
    ax.set_xlim(-0.8, max(len(tasks), 1) - 0.2)
    ax.set_xticks([])
    ax.grid(axis="x", visible=False)
    ax.set(xlabel="the client's calls, in the order they were made",
           title=title or "When each task left the client")
    fig.tight_layout()
    plt.close(fig)
    return fig
