"""The trace legend: every kind of event the model records is explained, the columns are the
trace's own, and every renderer shows the legend under a trace table and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from routerlab.core import Runtime, TableView
from routerlab.core.base.trace import Trace
from routerlab.present import html, legend, text
from routerlab.present.rich import to_rich

ROOT = Path(__file__).resolve().parents[2]
RECORDED = re.compile(r"""(?:\.record\(\s*|_log\(\(\s*)["']([a-z_]+)["']""")


def _recorded_kinds() -> set[str]:
    """The kinds of event the model's source records (`trace.record("kind", …)`, and the
    handle registry's and the sessions' hot-path `_log(("kind", …))`; a session logs `"op"`
    as the other arm of `"drop" if … else "op"`)."""
    kinds = {"op"}
    for path in (ROOT / "core").rglob("*.py"):
        kinds |= set(RECORDED.findall(path.read_text(encoding="utf-8")))
    return kinds


def _trace() -> TableView:
    rt = Runtime(["cpu:0", "cpu:1"])
    x = rt.tensor([1.0, 2.0])
    rt.to_device(rt.add(x, rt.clone(x)), "cpu:1")
    return rt.trace.view()


def test_every_recorded_kind_is_explained_and_no_other() -> None:
    recorded = _recorded_kinds()
    assert {"register", "get", "drop", "dispatch"} <= recorded, "the scan must see them all"
    assert recorded == set(legend.EVENTS), (recorded ^ set(legend.EVENTS))


def test_the_legend_columns_are_the_traces() -> None:
    assert tuple(Trace().view().columns) == tuple(legend.COLUMNS)


def test_a_trace_gets_its_columns_and_only_the_kinds_it_holds() -> None:
    view = _trace()
    kinds = {row[1] for row in view.rows}
    terms = [term for term, _ in legend.trace_legend(view)]
    assert terms[:len(legend.COLUMNS)] == list(legend.COLUMNS)
    assert set(terms[len(legend.COLUMNS):]) == kinds
    assert legend.trace_legend(TableView("Registry", ["id", "status"], [[1, "ok"]])) == []
    assert legend.trace_legend(Trace().view()) == [], "an empty trace needs no legend"


def test_every_renderer_shows_the_legend_under_a_trace() -> None:
    view = _trace()
    page = html.table(view)
    assert page.index("</table>") < page.index("How to read this trace")
    assert "<dt style='font-weight:bold'>register</dt>" in page
    assert "How to read this trace:" in text.table(view)
    console = Console(width=100, record=True)
    console.print(to_rich(view))
    shown = console.export_text()
    assert "How to read this trace:" in shown
    assert re.search(r"^register +a handle entered", shown, re.M), shown
    console.print(to_rich(view))
    assert "How to read" not in console.export_text(), "a terminal explains each word once"
    plain = TableView("Registry", ["id"], [[1]])
    assert "How to read" not in html.table(plain) + text.table(plain)


def test_preformatted_text_breaks_at_spaces_not_inside_words() -> None:
    """JupyterLab styles output `pre` with `word-break: break-all`, which cut the words of red
    error boxes anywhere: every `pre` RouterLab writes overrides it."""
    pages = [html.callout("error", "Burn panics", "thread 'main' panicked at x.rs:1", pre=True),
             html.block("Failure", "AssertionError: expected 3", "error")]
    for page in pages:
        for style in re.findall(r"<pre style='([^']*)'", page):
            assert "word-break:normal" in style and "overflow-wrap:anywhere" in style, page
        assert page.count("<pre") == len(re.findall(r"<pre style='", page)), page
