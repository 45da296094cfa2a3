"""`routerlab.present.html`: tables and boxes in the palette's colours, every text escaped."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from routerlab.core.base.view import TableView
from routerlab.present import html as present
from routerlab.present.palette import GREEN, RED, css, tint


def test_a_row_takes_its_style_words_css_and_a_plain_row_none() -> None:
    view = TableView("Registry", ["id", "status"], [["#0", "kept"], ["#1", "new"], ["#2", "gone"]],
                     caption="after the op", styles={1: "added", 2: "removed"})
    page = present.table(view)
    rows = page.split("<tr")[2:]  # the head row, then one per body row
    assert rows[0].startswith(" style=''>")
    assert rows[1].startswith(f" style='{css('added')}'>") and GREEN.tint(.18) in rows[1]
    assert "line-through" in rows[2] and RED.tint(.18) in rows[2]
    assert f"<div style='{css('muted')}'>after the op</div>" in page


def test_an_empty_table_says_so() -> None:
    assert "<i>(empty)</i>" in present.table(TableView("Registry cpu:0", ["id"], []))


@pytest.mark.parametrize("render", [
    lambda s: present.table(TableView(s, [s], [[s]], caption=s)),
    lambda s: present.callout("error", s, s, pre=True),
    lambda s: present.callout("info", s, s),
    lambda s: present.bar(s, "ok"),
    lambda s: present.block(s, s, "muted"),
    present.html_of,
])
def test_text_is_shown_never_interpreted(render: Callable[[str], str]) -> None:
    hostile = "<script>alert('x')</script> & [bold red]"
    page = render(hostile)
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_boxes_and_bars_take_the_palettes_colours() -> None:
    assert f"border-left:4px solid {RED.hex}" in present.callout("error", "panic")
    assert GREEN.tint(.16) in present.bar("✓ all pass", "ok")
    assert RED.tint(.2) in present.bar("✗ 1 of 3 fail", "error")
    assert f"border-left:3px solid {RED.hex}" in present.block("✗ check", "details", "error")
    assert "opacity" in present.block("your code printed", "hi", "muted")
    bar = present.progress(1, 4)
    assert "width:25%" in bar and tint("ok", .7) in bar
    assert "width:0%" in present.progress(0, 0)
