"""The terminal renderer (`routerlab.present.rich`): same cells as the view, never cut at 80
columns, row styles and escape codes from the one palette."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from routerlab.core.base.view import TableView
from routerlab.present.rich import ansi, make_console, to_rich

WIDE = TableView(
    "Policies", ["policy", "outcome", "bytes moved", "× f32", "copies", "ms", "max |error|",
                 "q changed", "scale drift", "bit-exact"],
    [["native", "moves", 12300, 0.25, 6, 0.4, 0.0, 0, 0.0, True],
     ["requantize", "moves", 49152, 1.0, 3, 0.6, 3.15889, 507, 0.185185, False],
     ["reject", "refused (TransferRejected)", 0, 0.0, 0, None, None, None, None, None]],
    caption="measured")


def _render(view: TableView, width: int) -> list[str]:
    console = Console(width=width, record=True, no_color=True)
    console.print(to_rich(view))
    return console.export_text().splitlines()


def test_a_wide_view_fits_80_columns_by_turning_sideways() -> None:
    lines = _render(WIDE, 80)
    assert max(map(len, lines)) <= 80
    header = next(line for line in lines if "policy" in line)
    assert all(name in header for name in ("native", "requantize", "reject"))
    text = "\n".join(lines)
    for word in ("12300", "49152", "3.15889", "0.185185", "bytes moved", "scale drift"):
        assert word in text, word


def test_a_view_that_fits_keeps_its_columns() -> None:
    lines = _render(WIDE, 200)
    header = next(line for line in lines if "policy" in line)
    assert all(name in header for name in WIDE.columns)


def test_ids_are_never_cut_or_wrapped() -> None:
    view = TableView("Exercises", ["id", "title"],
                     [["registry-1", "Read a handle with a status " * 3],
                      ["lifecycle-2", "Count the Drop ops " * 3]])
    text = "\n".join(_render(view, 40))
    assert "registry-1" in text and "lifecycle-2" in text


def test_short_word_columns_with_long_headers_all_survive_80_columns() -> None:
    """The shape of `teacher grades`' summary: seven columns of short values under headers of
    several words. The headers wrap; no column is cropped away."""
    view = TableView("Per exercise", ["exercise", "students", "passed", "pass rate",
                                      "median attempts", "mean hint level", "solutions viewed"],
                     [["registry-1", 3, 2, "67%", 2.0, 1.33, 1],
                      ["lifecycle-2", 3, 3, "100%", 1.0, 0.0, 3]])
    lines = _render(view, 80)
    assert max(map(len, lines)) <= 80
    text = "\n".join(lines)
    for word in ("registry-1", "lifecycle-2", "100%", "1.33", "median", "hint", "solutions",
                 "viewed"):
        assert word in text, word


def test_row_styles_come_from_the_palette() -> None:
    """Each style word colours its row as the palette says (here: the ANSI codes rich emits)."""
    view = TableView("Registry", ["id", "status"],
                     [["#0", "kept"], ["#1", "new"], ["#2", "gone"], ["#3", "broken"]],
                     styles={1: "added", 2: "removed", 3: "error"})
    console = Console(width=80, force_terminal=True, color_system="standard", file=io.StringIO())
    console.print(to_rich(view))
    shown = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    lines = [next(line for line in shown if f"#{i}" in line) for i in range(4)]
    assert "\x1b[3" not in lines[0]  # no style word: the terminal's own colour
    assert "\x1b[32m#1" in lines[1]  # added: green
    assert "\x1b[9;31m#2" in lines[2]  # removed: struck through, red
    assert "\x1b[1;31m#3" in lines[3]  # error: bold red


@pytest.mark.parametrize("plain, no_color, coloured", [
    (False, "", True), (True, "", False), (False, "1", False)])
def test_plain_and_no_color_drop_the_colour(monkeypatch: pytest.MonkeyPatch, plain: bool,
                                            no_color: str, coloured: bool) -> None:
    monkeypatch.setenv("NO_COLOR", no_color)
    console = make_console(plain)
    assert console.no_color is not coloured


def test_ansi_wraps_text_in_the_styles_codes() -> None:
    assert ansi("✗ Not quite", "error") == "\x1b[1;31m✗ Not quite\x1b[0m"
    assert ansi("fine", "ok") == "\x1b[32mfine\x1b[0m"
