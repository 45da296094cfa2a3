"""A matplotlib theme for the notebooks, in the one palette (`routerlab.present.palette`)."""

from __future__ import annotations

from ..present.palette import INK, PLOT_COLOURS

__all__ = ["INK", "PALETTE", "plot_theme"]

PALETTE = PLOT_COLOURS
"""The plot colour cycle (a name the notebooks have used)."""


def plot_theme() -> None:
    """Transparent figures, mid-grey ink and the shared palette: readable in light and dark.

    Figures are shown as SVG: for a transparent PNG the inline backend adds a `needs_background`
    hint, and JupyterLab then paints a solid box behind it in one of the two themes.
    """
    import matplotlib
    import matplotlib.pyplot  # noqa: F401  (activates the inline backend before we override it)
    from cycler import cycler

    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
    except ImportError:  # outside IPython: plain matplotlib
        pass

    matplotlib.rcParams.update({
        "figure.facecolor": "none", "axes.facecolor": "none",
        "savefig.facecolor": "none", "savefig.transparent": True,
        "text.color": INK, "axes.labelcolor": INK, "axes.titlecolor": INK,
        "axes.edgecolor": INK, "xtick.color": INK, "ytick.color": INK,
        "axes.grid": True, "grid.color": INK, "grid.alpha": 0.25,
        "legend.frameon": False, "axes.prop_cycle": cycler(color=PALETTE),
        "figure.figsize": (6.4, 3.6), "figure.dpi": 100, "font.size": 10.5,
        "svg.fonttype": "none",
        "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 2,
    })
