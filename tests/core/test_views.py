"""One description feeds both faces: every core object that shows a table in Jupyter
(`_repr_html_`) shows the same `view()` in the terminal (rich), cell for cell."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from routerlab.cli.render import to_rich
from routerlab.core import Profile, Runtime
from routerlab.core.quant import Calibration, quantize_dynamic
from routerlab.core.quant.report import QuantizeReport
from routerlab.core.scenario import load_scenario
from routerlab.core.scenario.predict import validate_flow
from routerlab.core.view import Viewable, format_cell, to_html
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
def test_html_and_rich_show_the_same_cells(name: str) -> None:
    obj = _objects()[name]
    view = obj.view()
    assert obj._repr_html_() == to_html(view)
    console = Console(width=400, record=True, no_color=True)
    console.print(to_rich(view))
    text = console.export_text()
    page = obj._repr_html_()
    assert view.rows, f"{name} describes an empty table"
    for row in view.rows:
        for cell in row:
            shown = format_cell(cell)
            assert html.escape(shown) in page
            assert shown.split("\n")[0][:40] in text
