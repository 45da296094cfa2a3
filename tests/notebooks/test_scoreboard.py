"""`routerlab.notebook.scoreboard`: every number of the transfer scoreboard against the core's
own counters (trace events, backend copies)."""

from __future__ import annotations

import numpy as np
import pytest

from routerlab.core.base.devices import automatic_path, parse_device
from routerlab.core.runtime import Runtime
from routerlab.notebook.scoreboard import Scoreboard


def _copies(rt: Runtime) -> int:
    return sum(rt.counters(d)[1] for d in rt.devices)


def _wire(rt: Runtime, mark: int, *kinds: str) -> int:
    return sum(e.nbytes for e in rt.trace.read(mark) if e.kind in kinds)


@pytest.mark.parametrize("target, path, shared, expected_path, fate", [
    ("cpu:0", None, False, "same", "same tensor"),
    ("cpu:1", None, True, "local", "copied"),
    ("cpu:1", None, False, "local", "moved"),
    ("peer2/cpu:0", None, True, "bytes", "copied"),
    ("peer2/cpu:0", None, False, "bytes", "moved"),
    ("peer3/cpu:0@ndarray", None, True, "bytes", "copied"),  # another backend: still bytes
    ("peer3/cpu:0@ndarray", "dispatch", False, "dispatch", "moved"),
    ("cpu:1", "bridge", True, "bridge", "copied"),
    ("cpu:2", "bytes", False, "bytes", "moved"),
])
def test_scoreboard_scores_a_move_with_the_cores_own_numbers(
        target: str, path: str | None, shared: bool, expected_path: str, fate: str) -> None:
    rt = Runtime()
    board = Scoreboard(rt)
    tensor = rt.tensor(np.ones((4, 8)), device="cpu:0", dtype="f32")  # 128 bytes
    keep = rt.clone(tensor) if shared else None
    source_id = int(tensor.id)
    mark, copies, copied = len(rt.trace), _copies(rt), rt.bytes_copied()

    moved = board.move(tensor, target, path)

    row = board.rows[-1]
    assert row["move"] == f"cpu:0 → {moved.device}"
    assert row["path"] == expected_path
    if path is None:
        assert row["path"] == str(automatic_path(parse_device("cpu:0"), parse_device(target)))
    assert row["ids"] == f"#{source_id} → #{int(moved.id)}"
    assert row["source"] == fate
    assert (source_id in rt.handle_ids("cpu:0")) == (fate != "moved")
    assert row["copies"] == _copies(rt) - copies  # the backends' counters
    assert row["host bytes"] == _wire(rt, mark, "publish", "download") + \
        2 * _wire(rt, mark, "dispatch")  # read back to the client, then uploaded
    assert row["device bytes"] == _wire(rt, mark, "copy", "bridge")
    if expected_path in ("local", "bytes", "dispatch"):  # one upload/readback/copy per byte
        assert row["host bytes"] + row["device bytes"] == rt.bytes_copied() - copied
    expected_bytes = {"same": (0, 0), "local": (0, 128), "bytes": (256, 0), "bridge": (0, 128),
                      "dispatch": (256, 0)}
    assert (row["host bytes"], row["device bytes"]) == expected_bytes[expected_path]
    assert keep is None or rt.handle_ids("cpu:0") == [source_id]


def test_scoreboard_table_lists_every_move_in_order() -> None:
    rt = Runtime()
    board = Scoreboard(rt)
    big = rt.tensor(np.ones((4, 8)), device="cpu:0", dtype="f32")
    same = board.move(big, "cpu:0")
    board.move(rt.clone(same), "cpu:1")
    board.move(same, "peer2/cpu:0")
    view = board.view()
    assert [r[0] for r in view.rows] == ["cpu:0 → cpu:0", "cpu:0 → cpu:1", "cpu:0 → peer2/cpu:0"]
    assert view.rows[0][4:] == [None, None, None]  # zeros read as blanks
    assert sum(r["copies"] for r in board.rows) == _copies(rt) - 1  # all but the upload
    assert "cpu:0 → peer2/cpu:0" in repr(board) and "Transfer scoreboard" in board._repr_html_()


def test_a_costs_only_board_does_not_say_what_the_move_left_behind() -> None:
    """transfer-4's experiment asks whether the source kept the tensor: its board shows the
    bytes the learner measures, never the ids or the verdict (issue 32)."""
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    board = Scoreboard(rt, costs_only=True)
    t = rt.tensor(np.zeros(10), device="cpu:0", dtype="f32")
    keep = rt.clone(t)
    board.move(t, "peer2/cpu:0")
    board.move(keep, "cpu:1")
    shown = repr(board) + board._repr_html_()
    assert "copied" not in shown and "moved" not in shown and "#" not in shown
    assert board.view().columns == ["move", "path", "host bytes", "device bytes", "copies"]
    assert [r[2] for r in board.view().rows] == [80, None]  # 40 bytes out, 40 in
    assert board.rows[0]["source"] == "copied"  # still scored, only not shown


def test_the_transfer_4_experiment_shows_nothing_to_divide_until_n_is_set() -> None:
    """transfer-4's answers are bytes per value (issue 39, item 5): a shipped cell that moved N
    values would show them as its totals divided by N. As shipped, the experiment's own cell in
    notebook 03 moves no value, so its board shows no byte at all; the learner sets N to
    measure, and then the totals grow with it."""
    import json
    from pathlib import Path

    notebook = Path(__file__).resolve().parents[2] / "notebooks" / "03-moving-tensors.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"]]
    source = next(c for c in cells if "ex_board = Scoreboard(" in c)

    def board_for(edit: str) -> list[list[object]]:
        space: dict[str, object] = {"np": np, "Runtime": Runtime, "Scoreboard": Scoreboard}
        exec(compile(edit, "notebook 03", "exec"), space)  # noqa: S102 (the shipped cell)
        board = space["ex_board"]
        assert isinstance(board, Scoreboard)
        return [row[2:4] for row in board.view().rows]

    assert board_for(source) == [[None, None], [None, None]]
    first_line = source.splitlines()[0]
    assert first_line.startswith("N = ")
    assert board_for(source.replace(first_line, "N = 3", 1)) == [[24, None], [None, 12]]
