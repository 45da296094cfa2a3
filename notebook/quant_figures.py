"""The figures and tables of the quantization notebooks (04 and 06), each drawn from
`routerlab.core`'s own quantizer and transfer measurements: error against bits and blocks,
bandwidth per policy, drift per hop, the precision/bytes frontier, the choice of a policy
with a case run for each rule, and (notebook 07) a row packed into `u32` words. The two
experiments come as `Sliders`.

They live here, not in the notebooks, because a notebook cell stays short and defines no
functions (tests/notebooks/test_structure.py); what they compute is what the cells used to.
A function that returns a figure has closed it: IPython shows the returned figure once, and
the inline backend does not show it a second time at the end of the cell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Cell, Profile, TableView
from ..core.quant import pack_u32, quantize_dynamic
from ..present.palette import GREY, PLOT_COLOURS, RED
from ..teaching.compare import compare_policies
from ..teaching.measure import measure_transfer
from .sliders import Sliders, sliders

__all__ = ["bandwidth", "block_sliders", "block_table", "choosing_table", "drift_plot",
           "drift_sliders", "frontier", "packing_figure"]

BLOCKS = ("tensor", 128, 64, 32, 16)
"""The block choices of the experiment, fewest bytes first: one scale per tensor, or one per
block of n values."""


def _scheme(bits: int, block: Any, kind: str = "s") -> str:
    return f"q{bits}{kind}" + ("" if block == "tensor" else f":block={block}")


def _bytes_and_error(data: np.ndarray, scheme: str) -> tuple[float, float]:
    """Bytes per value (values and scales, PackedU32) and mean |x - x̂| on the CubeCL layout."""
    tensor = quantize_dynamic(data, scheme, profile=Profile.CUBECL)
    return tensor.nbytes / data.size, float(np.abs(tensor.dequantize(Profile.CUBECL) - data).mean())


def _block_points(data: np.ndarray) -> dict[tuple[int, Any], tuple[float, float]]:
    return {(bits, block): _bytes_and_error(data, _scheme(bits, block))
            for bits in (8, 4, 2) for block in BLOCKS}


def block_table(data: np.ndarray) -> TableView:
    """Every scheme of the experiment with its bytes per value and mean error."""
    rows: list[list[Cell]] = [[_scheme(bits, block), round(nbytes, 5), round(error, 5)]
                              for (bits, block), (nbytes, error) in _block_points(data).items()]
    return TableView("Bits and blocks on the CubeCL layout", ["scheme", "bytes per value",
                     "mean |x − x̂|"], rows)


def block_sliders(data: np.ndarray, bits: int = 4, block: Any = "tensor") -> Sliders:
    """Notebook 04's experiment: every Q8S/Q4S/Q2S scheme, per tensor and per block, as bytes
    per value against mean error; the sliders pick the one that is highlighted and labelled."""
    import matplotlib.pyplot as plt

    points = _block_points(data)

    def draw(bits: int, block: Any) -> Any:
        figure, ax = plt.subplots()
        for width in (8, 4, 2):
            xs, ys = zip(*(points[width, b] for b in BLOCKS), strict=True)
            ax.plot(xs, ys, marker="o", alpha=0.35, label=f"Q{width}S")
        x, y = points[bits, block]
        ax.scatter([x], [y], s=140, facecolors="none", edgecolors=RED.hex, linewidths=2,
                   zorder=3, clip_on=False)
        # The highlighted scheme's numbers go under the title, never beside the point: a point
        # near the top would put them over the title.
        ax.set(xlabel="bytes per value (values + scales, PackedU32)", ylabel="mean |x − x̂|",
               yscale="log", xlim=(0, 1.6),
               title="Bits and blocks: error against bytes (N(0,1), one outlier)\n"
                     f"circled: {_scheme(bits, block)}, {x:.4g} bytes/value, "
                     f"mean error {y:.4g}")
        ax.legend(loc="upper right")
        figure.tight_layout()
        return figure

    return sliders(draw, "Bits and block size", start={"bits": bits, "block": block},
                   bits=[8, 4, 2], block=list(BLOCKS))


def bandwidth(x: np.ndarray, cases: list[tuple[str, str]]) -> Any:
    """Bytes of one hop relative to moving the floats, for `native` and `dequantize`, per
    (scheme, profile suffix) case: '@cubecl' is the GPU layout, '' Flex."""
    import matplotlib.pyplot as plt

    ratio: dict[str, list[float]] = {"native": [], "dequantize": []}
    for scheme, profile in cases:
        run = compare_policies(x, scheme, source="cpu:0" + profile, target="cpu:1" + profile,
                               policies=list(ratio))
        for policy, values in ratio.items():
            values.append(run.get(policy).bytes_moved / run.get(policy).f32_bytes)
    figure, ax = plt.subplots()
    for i, (policy, values) in enumerate(ratio.items()):
        ax.bar(np.arange(len(cases)) + 0.38 * i, values, width=0.36, label=policy)
    ax.set(xticks=np.arange(len(cases)) + 0.19,
           xticklabels=[f"{s} {p[1:] or 'flex'}" for s, p in cases],
           ylabel="bytes moved / f32 bytes", ylim=(0, 1.3),
           title="Bandwidth of one hop, relative to moving the floats")
    ax.legend(loc="upper center", ncol=2)
    plt.close(figure)
    return figure


def drift_plot(values: list[float], scheme: str, hops: int) -> Any:
    """The scale on arrival per hop of a small tensor under native, dequantize and
    requantize, beside the geometric line of Q2F's ×4/3 per hop."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    runs = {p: measure_transfer(values, scheme, policy=p, hops=hops)
            for p in ("native", "dequantize", "requantize")}
    first = runs["native"].original_scales[0]
    ax.plot(range(hops + 1), [first * (4 / 3) ** k for k in range(hops + 1)], lw=7,
            alpha=0.25, color=GREY.hex, label=f"{first:.2g} × (4/3)^hop")
    for policy, run in runs.items():
        scales = [run.original_scales[0]] + [h.scales[0] for h in run.hops]
        ax.plot(range(hops + 1), scales, marker="o", label=policy)
    ax.set(xlabel="hop", ylabel="scale on arrival", yscale="log",
           title=f"{scheme.upper()} {values}: the scale per hop")
    ax.set_yticks([0.6, 1, 1.5, 2, 3, 5], labels=["0.6", "1", "1.5", "2", "3", "5"])
    ax.minorticks_off()
    ax.legend()
    plt.close(figure)
    return figure


def drift_sliders(x: np.ndarray, bits: int = 4, hops: int = 4, max_hops: int = 12) -> Sliders:
    """Notebook 06's experiment: the scale on arrival per hop under `requantize` for the S and
    the F value type of the chosen width (and `native` for reference), over the chosen hops."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

    def draw(bits: int, hops: int) -> Any:
        figure, ax = plt.subplots()
        for value, policy, style in ((f"q{bits}s", "requantize", "-"),
                                     (f"q{bits}f", "requantize", "-"),
                                     (f"q{bits}f", "native", ":")):
            run = measure_transfer(x, value, policy=policy, hops=hops)
            scales = [run.original_scales[0]] + [h.scales[0] for h in run.hops]
            label = (f"{value} {policy}: scale {scales[-1]:.4g}, "
                     f"max |error| {run.hops[-1].max_abs_error_total:.3g}")
            ax.plot(range(hops + 1), scales, style, marker="o", label=label)
        ax.set(xlabel="hop", ylabel="scale on arrival", yscale="log",
               title=f"{bits}-bit values over {hops} hops (4096 N(0,1) values, one -4)")
        # Labelled ticks spread over the drawn range: a log axis over a narrow range (8-bit
        # values barely drift) would otherwise get no labelled tick at all.
        low, high = ax.get_ylim()
        ax.set_yticks(np.geomspace(low, high, 5)[1:-1])
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.4g}"))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="upper left", fontsize=9)
        figure.tight_layout()
        return figure

    return sliders(draw, "Drift per hop", start={"bits": bits, "hops": hops}, bits=[8, 4, 2],
                   hops=list(range(1, max_hops + 1)))


_NESTED = (190, 90, 25)
"""The sizes of dequantize's three squares, Q8F outermost: its points coincide (4 bytes a value,
no error), so they are drawn one inside the other, hollow, and labelled together."""


def frontier(x: np.ndarray, hops: int = 4) -> Any:
    """Bytes moved per value and hop against the error added after `hops` hops, for Q8F, Q4F
    and Q2F on the GPU layout, per policy. Bytes are on a log2 axis, so Q2F's and Q4F's
    native points (a quarter and half a byte) sit one label apart instead of on top of each
    other."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    top = 0.0
    for (policy, marker), colour in zip((("native", "o"), ("dequantize", "s"), ("requantize", "^")),
                                        PLOT_COLOURS, strict=False):
        points = [measure_transfer(x, s, policy=policy, hops=hops, source="cpu:0@cubecl",
                                   target="cpu:1@cubecl") for s in ("q8f", "q4f", "q2f")]
        xs = [m.bytes_moved / (x.size * hops) for m in points]
        ys = [m.hops[-1].max_abs_error_total for m in points]
        top = max(top, *ys)
        if policy == "dequantize":  # three exact points on one spot: nested, and one label
            for size, px, py in zip(_NESTED, xs, ys, strict=True):
                ax.scatter([px], [py], marker=marker, s=size, facecolors="none",
                           edgecolors=colour, linewidths=1.5, clip_on=False,
                           label=policy if size == _NESTED[0] else None)
            ax.annotate("q8f, q4f, q2f\n(outer to inner)", (xs[0], ys[0]),
                        textcoords="offset points", xytext=(-14, 6), ha="right", color=colour)
            continue
        ax.scatter(xs, ys, marker=marker, s=60, label=policy, clip_on=False, color=colour)
        for m, px, py in zip(points, xs, ys, strict=True):
            below = policy == "native"
            ax.annotate(m.scheme.split(":")[0], (px, py), textcoords="offset points",
                        xytext=(0, 8) if below else (8, -4), ha="center" if below else "left")
    ax.set_xscale("log", base=2)
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_xticks([0.25, 0.5, 1, 2, 4], labels=["¼", "½", "1", "2", "4"])
    ax.set(xlabel="bytes per value, per hop", xlim=(0.18, 6), ylim=(-0.004, top * 4),
           ylabel=f"max |error| added ({hops} hops)",
           title="Precision against bytes: Q8F, Q4F, Q2F")
    ax.legend(loc="upper left")
    figure.tight_layout()
    plt.close(figure)
    return figure


_GPU1, _GPU2 = "gpu/cpu:1@cubecl", "gpu/cpu:2@cubecl"
CHOOSING = (
    ("the target holds the scheme, in its own store (a Flex tensor is repacked for CubeCL)",
     "native", "q4s", "cpu:0", _GPU1, 1),
    ("the values must survive, but the native move is not trusted (CubeCL's q_to_device at "
     "2c06be3 left the scales behind)", "dequantize", "q4s", _GPU1, _GPU2, 1),
    ("the data is recalibrated anyway, S-values", "requantize", "q4s", "cpu:0", "cpu:1", 4),
    ("F-values over several hops: avoid, the scale drifts", "requantize", "q2f", "cpu:0",
     "cpu:1", 4),
    ("the target cannot hold the layout (CubeCL packs no whole u32 word into a block of 4 Q4 "
     "values): native refuses", "native", "q4s:block=4", "cpu:0", _GPU1, 1),
    ("... and so does dequantize: re-quantize with another scheme first, or keep it where it "
     "is", "dequantize", "q4s:block=4", "cpu:0", _GPU1, 1),
    ("you would rather fail than pay or drift silently: the error comes from the client, "
     "before any session can die", "reject", "q4s", "cpu:0", "cpu:1", 1),
)
"""Notebook 06's rules for choosing a policy: (situation, policy, scheme, source, target,
hops), each a case where the rule holds, run by `choosing_table`."""


def choosing_table(x: np.ndarray) -> TableView:
    """Each rule of `CHOOSING`, with its case measured on the model: does the tensor arrive,
    how many q values changed and how far the scale drifted, and the bytes moved."""
    rows: list[list[Cell]] = []
    for situation, policy, scheme, source, target, hops in CHOOSING:
        run = measure_transfer(x, scheme, policy=policy, hops=hops, source=source,
                               target=target)
        last = run.last
        rows.append([situation, policy, f"{scheme}: {source} → {target}, {hops} hop(s)",
                     f"refused ({run.failure.error})" if run.failure else "arrives",
                     None if last is None else last.q_changed_total,
                     None if last is None else round(last.scale_drift, 4), run.bytes_moved])
    return TableView("Choosing a policy: each rule with a case, run on the model",
                     ["situation", "policy", "case", "outcome", "q changed", "scale drift",
                      "bytes"], rows)


def packing_figure(values: list[int], bits: int) -> Any:
    """One row of signed `bits`-bit values packed into `u32` words by the model's own
    `pack_u32` (the CubeCL store), drawn bit by bit: bit 31 on the left, each value's bits in
    one colour and labelled with the value, the first value in the lowest bits."""
    import matplotlib.pyplot as plt

    words = [int(w) for w in pack_u32(np.asarray(values, dtype=np.int8), bits)]
    per_word = 32 // bits
    figure, ax = plt.subplots(figsize=(9.0, 1.6 + 0.9 * len(words)))
    for row, word in enumerate(words):
        y = 1.4 * (len(words) - 1 - row)
        for bit in range(32):
            slot = bit // bits
            index = row * per_word + slot
            colour = PLOT_COLOURS[slot % len(PLOT_COLOURS)] if index < len(values) else GREY.hex
            x = 31 - bit
            ax.add_patch(plt.Rectangle((x, y), 1, 0.8, facecolor=colour, alpha=0.35,
                                       edgecolor=GREY.hex, linewidth=0.5))
            ax.text(x + 0.5, y + 0.4, str((word >> bit) & 1), ha="center", va="center",
                    fontsize=8)
        for slot in range(per_word):
            index = row * per_word + slot
            label = str(values[index]) if index < len(values) else "pad"
            ax.text(31 - slot * bits - bits / 2 + 1, y + 0.95, label, ha="center",
                    va="bottom", fontsize=9)
        ax.text(32.6, y + 0.4, f"word {row}: 0x{word:08x}", va="center", fontsize=9)
    ax.set_xlim(-0.5, 40)
    ax.set_ylim(-0.2, 1.4 * len(words))
    ax.set_xticks([0.5, 31.5], labels=["bit 31", "bit 0"])
    ax.set_yticks([])
    ax.grid(visible=False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(f"{len(values)} Q{bits} values in {len(words)} u32 word(s), the first value "
                 "in the lowest bits")
    figure.tight_layout()
    plt.close(figure)
    return figure
