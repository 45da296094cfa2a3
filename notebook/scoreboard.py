"""Keeping score of transfers, a quantized tensor's bytes cut into their regions, and what a
block run again sends with and without fusion's graph cache.

Every number comes from the core (the path it chooses, the trace events of a move, the backends'
copy counters, `QuantizedTensor.to_bytes()`, `routerlab.core.wire.compare_runs`); this module only
arranges them as tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import TableView
from ..core.wire import GraphOp, compare_runs
from ..present.html import table
from ..present.text import table as text_table

__all__ = ["Scoreboard", "byte_regions", "graph_board"]

_WIRE_EVENTS = ("copy", "publish", "download", "bridge", "dispatch")
_BOARD_COLUMNS = ["move", "path", "ids", "source", "host bytes", "device bytes", "copies"]
_FATE = ("ids", "source")


class Scoreboard:
    """Moves tensors with `rt.to_device` and keeps score: path, moved or copied, bytes, copies.

    Every number comes from the core: the path from `automatic_path` (or the forced one), the
    bytes from the trace events of the move, the buffer copies from the backends' counters.
    """

    def __init__(self, rt: Any, costs_only: bool = False) -> None:
        self.rt = rt
        self.rows: list[dict[str, Any]] = []
        self.columns = [c for c in _BOARD_COLUMNS if not costs_only or c not in _FATE]
        """What the board shows: `costs_only` leaves out the ids and whether the source kept
        the tensor (an experiment that asks for them must not answer itself)."""

    def move(self, tensor: Any, device: str, path: str | None = None, **options: Any) -> Any:
        """`rt.to_device(tensor, device, path, **options)`, scored; returns the moved tensor."""
        from ..core import automatic_path, parse_device

        source, source_id = tensor.device, int(tensor.id)
        chosen = path or str(automatic_path(source, parse_device(device)))
        mark, copies = len(self.rt.trace), self._copies()
        moved = self.rt.to_device(tensor, device, path, **options)
        events = self.rt.trace.read(mark)
        wire = {k: sum(e.nbytes for e in events if e.kind == k) for k in _WIRE_EVENTS}
        kept = source_id in self.rt.handle_ids(source)
        fate = "same tensor" if moved.id == source_id else ("copied" if kept else "moved")
        self.rows.append(dict(zip(_BOARD_COLUMNS, [
            f"{source} → {moved.device}", chosen, f"#{source_id} → #{int(moved.id)}", fate,
            wire["publish"] + wire["download"] + 2 * wire["dispatch"],
            wire["copy"] + wire["bridge"],
            self._copies() - copies], strict=True)))
        return moved

    def _copies(self) -> int:
        return sum(self.rt.counters(d)[1] for d in self.rt.devices)

    def view(self) -> TableView:
        rows = [[row[c] if row[c] != 0 else None for c in self.columns] for row in self.rows]
        return TableView("Transfer scoreboard", self.columns, rows,
                         caption="host bytes: read back to TensorData on the source plus uploaded "
                                 "on the target (across the network between peers, or through "
                                 "the client for Dispatch); device bytes: handed from buffer to "
                                 "buffer inside one server process (a local copy, a bridge "
                                 "conversion); copies: buffer copies made by the backends")

    def _repr_html_(self) -> str:
        return table(self.view())

    def __repr__(self) -> str:
        return text_table(self.view())


def byte_regions(tensor: Any) -> TableView:
    """The canonical byte layout of a `QuantizedTensor` (`tensor.to_bytes()`), cut into its three
    dense regions: values, scales in the scale dtype, and the f32 global of a two-level scheme."""
    raw = tensor.to_bytes()
    sizes = [("values", int(tensor.values.nbytes), str(tensor.values.dtype)),
             ("scales", int(tensor.scales.nbytes), str(tensor.scheme.scale_dtype().name)),
             ("global", 0 if tensor.global_scale is None else 4, "f32")]
    rows, offset = [], 0
    for region, size, kind in sizes:
        if size:
            chunk = raw[offset:offset + size]
            shown = chunk.hex(" ") if size <= 24 else chunk[:24].hex(" ") + " …"
            rows.append([region, kind, offset, size, shown])
        offset += size
    return TableView(f"Byte layout of {tensor.scheme} {list(tensor.shape)}",
                     ["region", "stored as", "offset", "bytes", "hex"], rows,
                     caption=f"{len(raw)} bytes in all, no padding between regions "
                             "(scales and global in native endianness)")


def graph_board(runs: Sequence[Sequence[GraphOp]]) -> TableView:
    """Messages and bytes of each run of one block, without and with the graph cache."""
    rows: list[list[str | int]] = [list(row) for row in compare_runs(runs)]
    return TableView("What crosses the wire, run by run", ["run", "client", "messages", "bytes"],
                     rows, caption="bytes: Burn's own estimate of the serialized size "
                                   "(crates/burn-router/src/fusion.rs:386-414)")
