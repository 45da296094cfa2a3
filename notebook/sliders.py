"""Sliders that redraw a plot (`Sliders`): an experiment the learner runs by moving them.

A notebook cell hands over a function that draws one matplotlib figure for some parameters
(bits, block size, hops) and the values each parameter may take. The display carries an
ipywidgets slider per parameter above the figure, redrawn on every move, and, for any front end
without live widgets (nbclient, nbconvert, GitHub), the figure for the starting values as static
SVG, the way `Stepper` carries its static table.
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Sliders", "sliders"]


@dataclass
class Sliders:
    """A figure redrawn by `draw(**values)` for the values the sliders pick.

    `controls` maps each keyword of `draw` to the values its slider steps through, in order;
    `start` picks the starting value of some of them (the first value otherwise). Figures are
    drawn once per combination and kept, so moving back is instant.
    """

    draw: Callable[..., Any]
    controls: Mapping[str, Sequence[Any]]
    start: Mapping[str, Any] = field(default_factory=dict)
    title: str = "Move the sliders"
    _drawn: dict[tuple[Any, ...], str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.controls or not all(self.controls.values()):
            raise ValueError("Sliders need at least one control, each with at least one value")
        unknown = set(self.start) - set(self.controls)
        if unknown:
            raise ValueError(f"start names no control: {', '.join(sorted(unknown))}")
        for name, value in self.start.items():
            if value not in self.controls[name]:
                raise ValueError(f"start value {value!r} is not one of {name}'s values")

    def initial(self) -> dict[str, Any]:
        """The values the sliders start at."""
        return {name: self.start.get(name, values[0]) for name, values in self.controls.items()}

    def svg(self, **values: Any) -> str:
        """The figure for these values, as an `<svg>` element (drawn once, then kept)."""
        chosen = {**self.initial(), **values}
        key = tuple(chosen[name] for name in self.controls)
        if key not in self._drawn:
            import matplotlib.pyplot as plt

            figure = self.draw(**chosen)
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", bbox_inches="tight")
            plt.close(figure)  # shown by this display only, not again by the inline backend
            text = buffer.getvalue()
            self._drawn[key] = text[text.index("<svg"):]
        return self._drawn[key]

    def caption(self, **values: Any) -> str:
        chosen = {**self.initial(), **values}
        return ", ".join(f"{name} = {value}" for name, value in chosen.items())

    def static_html(self) -> str:
        """The starting figure with its values: what a front end without widgets shows."""
        return (f"<div class='routerlab-sliders'><div><b>{html.escape(self.title)}</b> "
                f"({html.escape(self.caption())}; in JupyterLab, sliders change these)</div>"
                f"{self.svg()}</div>")

    def widget(self) -> Any:
        import ipywidgets as widgets

        sliders = {
            name: widgets.SelectionSlider(options=[(str(v), v) for v in values],
                                          value=self.initial()[name], description=name,
                                          continuous_update=False)
            for name, values in self.controls.items()}
        pane = widgets.HTML(self.svg())

        def redraw(_change: Any) -> None:
            pane.value = self.svg(**{name: s.value for name, s in sliders.items()})

        for slider in sliders.values():
            slider.observe(redraw, names="value")
        heading = widgets.HTML(f"<b>{html.escape(self.title)}</b>")
        return widgets.VBox([heading, *sliders.values(), pane])

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {
            "text/plain": f"<{self.title}: {self.caption()}>",
            "text/html": self.static_html(),
            "image/svg+xml": self.svg(),
        }
        try:
            widget_bundle = self.widget()._repr_mimebundle_()
        except Exception:  # no ipywidgets, or no kernel comms: the static figure is the view
            return bundle
        if widget_bundle:
            bundle.update({k: v for k, v in widget_bundle.items() if k != "text/plain"})
        return bundle


def sliders(draw: Callable[..., Any], title: str = "Move the sliders",
            start: Mapping[str, Any] | None = None, **controls: Sequence[Any]) -> Sliders:
    """`Sliders(draw, controls, start, title)`; display it as a cell's last expression:

        sliders(draw_error, "Error against block size", bits=[8, 4, 2], block=[16, 32, 64])
    """
    return Sliders(draw, dict(controls), dict(start or {}), title)
