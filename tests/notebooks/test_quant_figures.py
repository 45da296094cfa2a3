"""`routerlab.notebook.quant_figures`: the figures and tables of notebooks 04, 06 and 07, drawn
from the core's own quantizer and transfer measurements. No kernel is started."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pytest

from routerlab.notebook.quant_figures import (
    CHOOSING,
    block_sliders,
    block_table,
    choosing_table,
    drift_sliders,
    frontier,
    packing_figure,
)


@pytest.fixture
def x() -> np.ndarray:
    """Notebook 06's tensor: 4096 N(0, 1) values whose first is -4."""
    values = np.random.default_rng(1).standard_normal(4096).astype(np.float32)
    values[0] = -4.0
    return values


def test_the_frontier_labels_do_not_overlap(pyplot: Any, x: np.ndarray) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = frontier(x, hops=4)
    assert pyplot.get_fignums() == [], "returned closed: IPython shows it once"
    renderer = FigureCanvasAgg(figure).get_renderer()
    labels = [t for t in figure.axes[0].texts if t.get_text() in ("q8f", "q4f", "q2f")]
    assert len(labels) == 6, "native and requantize each label Q8F, Q4F and Q2F"
    boxes = [t.get_window_extent(renderer) for t in labels]
    overlapping = [(a.get_text(), b.get_text()) for (a, box_a), (b, box_b)
                   in combinations(zip(labels, boxes, strict=True), 2) if box_a.overlaps(box_b)]
    assert not overlapping, overlapping
    # The browser sets SVG text in its own font, which may run wider than matplotlib's metrics:
    # native's three labels, side by side, keep at least a label's width between them.
    native = sorted((b for t, b in zip(labels, boxes, strict=True)
                     if t.get_ha() == "center"), key=lambda b: b.x0)  # native: below, centred
    assert len(native) == 3
    assert all(right.x0 - left.x1 >= left.width
               for left, right in zip(native, native[1:], strict=False))


def test_every_choosing_rule_holds_for_its_case_on_the_model() -> None:
    cases = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
    cases[0, 0] = -4.0
    table = choosing_table(cases)
    assert len(table.rows) == len(CHOOSING)
    seen = {(row[1], row[2].split(":")[0] + (":block=4" if "block=4" in row[2] else "")): row
            for row in table.rows}
    native, dequantize = seen["native", "q4s"], seen["dequantize", "q4s"]
    assert native[3] == dequantize[3] == "arrives" and native[4] == dequantize[4] == 0
    assert native[6] < dequantize[6], "native moves fewer bytes than the floats"
    assert "gpu/cpu:1@cubecl" in native[2], "native repacks Flex for CubeCL"
    assert seen["requantize", "q4s"][5] == 0, "S-values do not drift"
    assert seen["requantize", "q2f"][5] > 1, "F-values drift (x4/3 per hop for Q2F)"
    for policy in ("native", "dequantize"):  # a layout the target cannot hold: both refuse
        assert seen[policy, "q4s:block=4"][3].startswith("refused")
    assert seen["reject", "q4s"][3].startswith("refused") and seen["reject", "q4s"][6] == 0


def test_the_block_experiment_spans_every_scheme_and_its_sliders_redraw(pyplot: Any) -> None:
    data = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    data[3, 5] = 40.0
    schemes = [row[0] for row in block_table(data).rows]
    assert len(schemes) == 15 and "q4s:block=32" in schemes and "q2s" in schemes
    bytes_of = {row[0]: row[1] for row in block_table(data).rows}
    assert bytes_of["q4s:block=32"] == pytest.approx(0.5 + 4 / 32)
    view = block_sliders(data, bits=2, block=16)
    assert view.initial() == {"bits": 2, "block": 16}
    assert "q2s:block=16" in view.svg() and "q8s:block=64" in view.svg(bits=8, block=64)


def test_the_drift_sliders_draw_the_chosen_width_and_hops(pyplot: Any, x: np.ndarray) -> None:
    view = drift_sliders(x, bits=2, hops=3)
    svg = view.svg()
    assert "over 3 hops" in svg and "q2f requantize" in svg and "q2s requantize" in svg
    assert "q8f requantize" in view.svg(bits=8, hops=5)


def _figure_of(view: Any, **values: Any) -> Any:
    return view.draw(**{**view.initial(), **values})


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_the_drift_plot_labels_its_scale_axis(pyplot: Any, x: np.ndarray, bits: int) -> None:
    """A log axis over a narrow range (8-bit values barely drift) must still carry labels."""
    figure = _figure_of(drift_sliders(x), bits=bits, hops=4)
    figure.canvas.draw()
    axis = figure.axes[0]
    labels = [t.get_text() for t in axis.get_yticklabels() if t.get_text()]
    low, high = axis.get_ylim()
    shown = [tick for tick in axis.get_yticks() if low <= tick <= high]
    assert len(labels) >= 2 and len(shown) >= 2, (labels, shown)
    assert all(float(label) > 0 for label in labels)


def test_the_block_experiment_keeps_its_numbers_off_the_title(pyplot: Any) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    data = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    data[3, 5] = 40.0
    for bits, block in ((2, "tensor"), (8, 16), (4, 32)):
        figure = _figure_of(block_sliders(data), bits=bits, block=block)
        axis = figure.axes[0]
        renderer = FigureCanvasAgg(figure).get_renderer()
        title = axis.title.get_window_extent(renderer)
        assert f"circled: q{bits}s" in axis.get_title()
        assert not [t for t in axis.texts if t.get_window_extent(renderer).overlaps(title)]


def test_no_marker_of_the_frontier_is_clipped(pyplot: Any, x: np.ndarray) -> None:
    figure = frontier(x, hops=4)
    axis = figure.axes[0]
    (x0, x1), (y0, y1) = axis.get_xlim(), axis.get_ylim()
    points = np.concatenate([c.get_offsets() for c in axis.collections])
    assert len(points) == 9
    assert all(x0 < px < x1 and y0 < py < y1 for px, py in points), (points, (y0, y1))
    # and a margin above the highest one, where a marker of 60 pt² would touch the frame
    assert max(points[:, 1]) * 2 < y1


def test_the_packing_figure_draws_the_models_words_bit_by_bit(pyplot: Any) -> None:
    from routerlab.core.quant import pack_u32

    values = [1, -1, 2, -2, 3, -3, 7, -7, 1, 2]
    figure = packing_figure(values, bits=4)
    texts = figure.axes[0].texts
    words = [int(w) for w in pack_u32(np.int8(values), 4)]
    assert len(words) == 2 and "10 Q4 values in 2 u32 word(s)" in figure.axes[0].get_title()
    assert [t.get_text() for t in texts if t.get_text().startswith("word ")] == [
        f"word {i}: 0x{w:08x}" for i, w in enumerate(words)]
    cells = sorted((-t.get_position()[1], t.get_position()[0], t.get_text()) for t in texts
                   if t.get_fontsize() == 8)  # one per bit; the value labels are larger
    assert "".join(text for _, _, text in cells) == "".join(f"{w:032b}" for w in words), (
        "each word drawn bit by bit, bit 31 on the left")
    labels = [t.get_text() for t in texts if t.get_fontsize() == 9 and t.get_text()[-1].isdigit()
              and not t.get_text().startswith("word")]
    assert sorted(labels) == sorted(map(str, values)), "each value labelled over its bits"


def test_the_three_dequantize_points_are_told_apart_and_labelled(pyplot: Any,
                                                                 x: np.ndarray) -> None:
    """Dequantize's Q8F, Q4F and Q2F coincide (4 bytes a value, no error): they are drawn
    nested, hollow, in three sizes, and one label names them, clear of every other label."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = frontier(x, hops=4)
    axis = figure.axes[0]
    hollow = [c for c in axis.collections if len(c.get_offsets()) == 1]
    assert len(hollow) == 3
    assert len({float(c.get_sizes()[0]) for c in hollow}) == 3, "three sizes"
    assert all(len(c.get_facecolors()) == 0 or c.get_facecolors()[0][3] == 0 for c in hollow)
    assert len({tuple(c.get_offsets()[0]) for c in hollow}) == 1, "one spot: they coincide"
    label = next(t for t in axis.texts if "q8f, q4f, q2f" in t.get_text())
    renderer = FigureCanvasAgg(figure).get_renderer()
    box = label.get_window_extent(renderer)
    others = [t for t in axis.texts if t is not label]
    assert not any(box.overlaps(t.get_window_extent(renderer)) for t in others)
    assert [t.get_text() for t in axis.get_legend().get_texts()] == [
        "native", "dequantize", "requantize"]


def test_plot_ink_reads_on_both_jupyterlab_themes() -> None:
    """The ink of every plot's text is at least 4.5:1 on the light theme's white and 3.5:1 on
    the dark theme's #111111 (WCAG's relative luminance)."""
    from routerlab.present.palette import INK

    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    ink = luminance(INK)
    assert (1.0 + 0.05) / (ink + 0.05) >= 4.5
    assert (ink + 0.05) / (luminance("#111111") + 0.05) >= 3.5
