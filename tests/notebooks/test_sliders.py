"""`routerlab.notebook.sliders`: a figure redrawn for each slider position, and the static SVG
that front ends without widgets show. No kernel is started."""

from __future__ import annotations

from typing import Any

import pytest

from routerlab.notebook.sliders import Sliders, sliders


@pytest.fixture
def drawn(pyplot: Any) -> tuple[Sliders, list[dict[str, Any]]]:
    """Sliders over a plot whose title names its parameters, recording every draw."""
    calls: list[dict[str, Any]] = []

    def draw(bits: int, block: int) -> Any:
        calls.append({"bits": bits, "block": block})
        figure, axes = pyplot.subplots()
        axes.plot([0, 1], [0, bits * block])
        axes.set_title(f"bits {bits} block {block}")
        return figure

    return sliders(draw, "Error against bits", start={"block": 32}, bits=[8, 4, 2],
                   block=[16, 32, 64]), calls


def test_the_static_view_is_the_figure_of_the_starting_values(
        drawn: tuple[Sliders, list[dict[str, Any]]], pyplot: Any) -> None:
    view, calls = drawn
    assert view.initial() == {"bits": 8, "block": 32}
    bundle = view._repr_mimebundle_()
    svg = bundle["image/svg+xml"]
    assert svg.startswith("<svg") and "bits 8 block 32" in svg
    assert svg in bundle["text/html"] and "bits = 8, block = 32" in bundle["text/html"]
    assert calls == [{"bits": 8, "block": 32}]  # drawn once, kept for every later view
    assert pyplot.get_fignums() == []  # closed: the inline backend does not show it again


def test_moving_a_slider_redraws_the_pane_with_that_value(
        drawn: tuple[Sliders, list[dict[str, Any]]]) -> None:
    pytest.importorskip("ipywidgets")
    view, calls = drawn
    heading, bits, block, pane = view.widget().children
    assert "Error against bits" in heading.value
    assert (bits.value, block.value) == (8, 32) and "bits 8 block 32" in pane.value
    bits.value = 2
    assert "bits 2 block 32" in pane.value
    block.value = 64
    assert "bits 2 block 64" in pane.value
    bits.value = 8
    block.value = 32
    assert "bits 8 block 32" in pane.value
    assert calls.count({"bits": 8, "block": 32}) == 1  # moving back reuses the drawn figure


def test_a_start_that_is_not_a_slider_value_is_refused(pyplot: Any) -> None:
    with pytest.raises(ValueError, match="not one of bits"):
        sliders(lambda bits: None, bits=[8, 4], start={"bits": 3})
    with pytest.raises(ValueError, match="names no control"):
        sliders(lambda bits: None, bits=[8, 4], start={"hops": 3})
    with pytest.raises(ValueError, match="at least one"):
        sliders(lambda: None)
