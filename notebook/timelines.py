"""Teaching figures drawn from a runtime's trace: a registry's timeline and a swim-lane of
client and sessions.

Notebooks 01-03 are about *when* things happen: a handle that lives until its last use, an op
that the client describes and a session runs, two sessions that meet in a rendezvous. A table
of events lists them; these figures show their order at a glance. Both read only the core's
trace (`Runtime.trace`), so they draw what the model did, never a hand-made picture.

A function that returns a figure has closed it (see `quant_figures`): IPython shows the
returned figure once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import TraceEvent
from ..present.palette import GREY, INK, PLOT_COLOURS, RED

__all__ = ["registry_timeline", "swimlane"]

_ENDS = {"remove"}
"""Events that take an entry out of a registry (besides a `ReadWrite` get)."""
_LANE_MARKS = {
    "get": "o", "register": "s", "remove": "X", "drop": "X", "read": "v", "publish": "^",
    "download": "v", "expose": "^", "take": "v", "wait": "|", "copy": "D", "panic": "*",
    "failed": "*", "op": ">",
}
"""The marker of each kind of event on a swim-lane."""
_SHORT = {"ReadOnly": "RO", "ReadWrite": "RW", "NotInit": "NI"}


def registry_timeline(events: Sequence[TraceEvent], device: str, title: str = "") -> Any:
    """When each id of `device`'s registry was there: one bar per tensor id, from its
    `register` to the use that took it out (a `ReadWrite` get, or a `remove` for a `Drop`), with
    every get marked by its status. A panic ends the session, and its worker frees every
    handle: all bars end there."""
    import matplotlib.pyplot as plt

    mine = [e for e in events if e.device == device]
    ids = sorted({e.tensor_id for e in mine if e.tensor_id is not None})
    fig, ax = plt.subplots(figsize=(7.2, 0.9 + 0.55 * max(len(ids), 1)))
    row = {tid: i for i, tid in enumerate(ids)}
    born: dict[int, int] = {}
    for x, event in enumerate(mine):
        tid = event.tensor_id
        if event.kind == "register" and tid is not None:
            born[tid] = x
        elif event.kind == "get" and tid is not None:
            gone = event.status == "ReadWrite"
            ax.plot(x, row[tid], marker="o", ms=8, color=RED.hex if gone else PLOT_COLOURS[0],
                    zorder=3, linestyle="none")
            ax.annotate(_SHORT.get(event.status or "", event.status or ""), (x, row[tid]),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
            if gone and tid in born:
                _bar(ax, row[tid], born.pop(tid), x)
        elif event.kind in _ENDS and tid is not None and tid in born:
            _bar(ax, row[tid], born.pop(tid), x)
            ax.plot(x, row[tid], marker="X", ms=9, color=RED.hex, zorder=3, linestyle="none")
        elif event.kind in ("panic", "failed"):  # the session ends: its worker frees it all
            for open_id, start in born.items():
                _bar(ax, row[open_id], start, x)
            born.clear()
            y = row.get(tid, 0) if tid is not None else 0
            ax.plot(x, y, marker="*", ms=14, color=RED.hex, zorder=4, linestyle="none")
            ax.annotate("panic: the session ends", (x, y), textcoords="offset points",
                        xytext=(-4, 10), ha="right", fontsize=8, color=RED.hex)
    for tid, start in born.items():  # still registered at the end
        _bar(ax, row[tid], start, len(mine) - 0.5, open_end=True)
    ax.set_yticks(range(len(ids)), [f"#{t}" for t in ids])
    ax.set_ylim(-0.7, len(ids) - 0.3)
    ax.set_xlim(-0.7, max(len(mine), 1) - 0.3)
    steps = {e.step: x for x, e in reversed(list(enumerate(mine)))}
    ax.set_xticks(list(steps.values()), [str(s) for s in steps])
    ax.set(xlabel="trace step", ylabel="tensor id",
           title=title or f"{device}'s registry: when each handle is there")
    ax.grid(axis="y", visible=False)
    ax.plot([], [], marker="o", color=PLOT_COLOURS[0], linestyle="none", label="get ReadOnly")
    ax.plot([], [], marker="o", color=RED.hex, linestyle="none", label="get ReadWrite (removes)")
    ax.plot([], [], marker="X", color=RED.hex, linestyle="none", label="removed by Drop")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    plt.close(fig)
    return fig


def _bar(ax: Any, y: int, start: float, end: float, open_end: bool = False) -> None:
    ax.plot([start, end], [y, y], color=GREY.hex if open_end else INK, linewidth=6, alpha=0.45,
            solid_capstyle="butt", zorder=1)


def swimlane(events: Sequence[TraceEvent], title: str = "") -> Any:
    """One lane for the client and one per session, events left to right in the order they
    happened: each `op` is an arrow from the client to the session that receives it; every
    other event is a mark on its session's lane, labelled with its kind (and status or id)."""
    import matplotlib.pyplot as plt

    devices = list(dict.fromkeys(e.device for e in events))
    lanes = ["client", *devices]
    y = {name: len(lanes) - 1 - i for i, name in enumerate(lanes)}
    width = min(11.0, 2.5 + 0.62 * len(events))
    fig, ax = plt.subplots(figsize=(width, 0.9 + 0.85 * len(lanes)))
    colours = {d: PLOT_COLOURS[i % len(PLOT_COLOURS)] for i, d in enumerate(devices)}
    for x, event in enumerate(events):
        lane = y[event.device]
        colour = colours[event.device]
        if event.kind == "op":
            ax.annotate("", xy=(x, lane + 0.12), xytext=(x, y["client"] - 0.05),
                        arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.6})
            ax.annotate(event.detail.split("(")[0], (x, y["client"]), textcoords="offset points",
                        xytext=(0, 6), ha="center", fontsize=8, rotation=25, color=colour)
            continue
        marker = _LANE_MARKS.get(event.kind, "o")
        bad = event.kind in ("panic", "failed") or (event.kind == "get"
                                                    and event.status == "ReadWrite")
        ax.plot(x, lane, marker=marker, ms=9, color=RED.hex if bad else colour, linestyle="none",
                zorder=3)
        label = event.kind + (f" {_SHORT.get(event.status, event.status)}"
                              if event.kind == "get" and event.status else "")
        if event.tensor_id is not None:
            label += f" #{event.tensor_id}"
        ax.annotate(label, (x, lane), textcoords="offset points", xytext=(0, -15), ha="center",
                    fontsize=8)
    ax.set_yticks([y[n] for n in lanes], [n if n == "client" else f"session {n}"
                                          for n in lanes])
    ax.set_ylim(-0.7, len(lanes) - 0.4)
    ax.set_xlim(-0.8, max(len(events), 1) - 0.2)
    ax.set_xticks([])
    ax.grid(axis="x", visible=False)
    ax.set(xlabel="events, in the order they happened",
           title=title or "Who does what: the client and each session")
    fig.tight_layout()
    plt.close(fig)
    return fig
