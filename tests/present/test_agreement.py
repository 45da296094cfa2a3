"""One description feeds every face: each core object that Jupyter shows as a table (through the
HTML formatter `routerlab.notebook` registers) shows the same `view()` in the terminal (rich) and
as plain text, cell for cell."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from routerlab.core import Profile, Runtime
from routerlab.core.base.view import Viewable, format_cell
from routerlab.core.quant import Calibration, quantize_dynamic
from routerlab.core.quant.report import QuantizeReport
from routerlab.core.scenario import load_scenario
from routerlab.core.scenario.predict import validate_flow
from routerlab.notebook import register_formatters
from routerlab.present import html as present_html
from routerlab.present import text as present_text
from routerlab.present.rich import to_rich
from routerlab.teaching.compare import compare_policies
from routerlab.teaching.doctor import diagnose
from routerlab.teaching.measure import measure_transfer

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _objects() -> dict[str, Viewable]:
    rt = Runtime(["cpu:0", "cpu:1"])
    x = np.array([-0.9, 0.5, 0.2], dtype=np.float32)
    q = rt.quantize(rt.tensor(x, "cpu:0", "f32"), "q2f")
    plan = rt.plan_transfer(q, "cpu:1", policy="legacy")
    rt.to_device(q, "cpu:1")
    report = QuantizeReport(x, quantize_dynamic(x, "q8s", profile=Profile.FLEX), Profile.FLEX,
                            Calibration.MINMAX)
    return {
        "registry": rt.session("cpu:1").interpreter.handles, "session": rt.session("cpu:1"),
        "trace": rt.trace, "plan": plan, "doctor": diagnose(), "quantize": report,
        "measurement": measure_transfer(x, "q2f", policy="requantize", hops=3),
        "comparison": compare_policies(x, "q8s", hops=2),
        "flow": validate_flow(load_scenario(SCENARIOS / "quantized-local.toml")),
    }


@pytest.mark.parametrize("name", sorted(_objects()))
def test_html_rich_and_text_show_the_same_cells(name: str) -> None:
    obj = _objects()[name]
    view = obj.view()
    page = present_html.table(view)
    console = Console(width=400, record=True, no_color=True)
    console.print(to_rich(view))
    terminal = console.export_text()
    plain = present_text.table(view)
    assert view.rows, f"{name} describes an empty table"
    for row in view.rows:
        for cell in row:
            shown = format_cell(cell)
            assert html.escape(shown) in page
            assert shown.split("\n")[0][:40] in terminal
            assert shown in plain


def test_jupyter_shows_each_core_object_as_its_views_table() -> None:
    """Core objects carry no `_repr_html_`: the notebook package's formatters show them."""
    formatters = pytest.importorskip("IPython.core.formatters")
    shell = formatters.DisplayFormatter()
    assert register_formatters(shell)
    for name, obj in _objects().items():
        assert not hasattr(obj, "_repr_html_"), name
        page = shell.format(obj, include={"text/html"})[0]["text/html"]
        assert page == present_html.table(obj.view()), name
    view = _objects()["trace"].view()
    assert shell.format(view, include={"text/html"})[0]["text/html"] == present_html.table(view)


def test_outside_ipython_nothing_is_registered() -> None:
    assert register_formatters() is False  # no shell runs in this test process
