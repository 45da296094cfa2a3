"""`routerlab.notebook.plots`: the plot theme (transparent, SVG, the palette's colours and ink)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from routerlab.notebook.plots import plot_theme


def test_plot_theme_makes_figures_transparent_and_chooses_svg(
        pyplot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    backend_inline = pytest.importorskip("matplotlib_inline.backend_inline")
    formats: list[tuple[Any, ...]] = []
    monkeypatch.setattr(backend_inline, "set_matplotlib_formats",
                        lambda *f, **kw: formats.append(f))
    plot_theme()
    assert formats == [("svg",)]
    figure, axes = pyplot.subplots()
    assert figure.get_facecolor()[3] == 0 and axes.get_facecolor()[3] == 0
    import matplotlib

    assert matplotlib.rcParams["savefig.transparent"] is True
    assert matplotlib.rcParams["savefig.facecolor"] == "none"


def test_plot_theme_without_matplotlib_inline_still_themes(
        pyplot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib_inline.backend_inline", None)  # not importable
    plot_theme()
    figure, axes = pyplot.subplots()
    assert figure.get_facecolor()[3] == 0 and axes.get_facecolor()[3] == 0
