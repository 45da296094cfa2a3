"""The router drawn from a live runtime: `Diagram(rt)` shows, wherever it is displayed, the
client, the channel, each server and its sessions with the ids their registries hold right now
(`rt.deployment()`, drawn by `routerlab.present.diagram`).

The drawing is SVG, so it needs no widget front end: nbconvert, GitHub and JupyterLab show the
same picture. `live()` displays it under a display id, and `refresh()` redraws every such
display in place after the runtime changed.
"""

from __future__ import annotations

from itertools import count
from typing import Any

from ..present.diagram import deployment_svg

__all__ = ["Diagram"]

_ids = count()


class Diagram:
    """The current state of `rt` as a drawing, recomputed on every display."""

    def __init__(self, rt: Any, title: str = "") -> None:
        self.rt = rt
        self.title = title
        self.display_id = f"routerlab-diagram-{next(_ids)}"

    def svg(self) -> str:
        return deployment_svg(self.rt.deployment(), self.title)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        deployment = self.rt.deployment()
        plain = "; ".join(f"{s.device}: {list(s.ids)}" for p in deployment.peers
                          for s in p.sessions)
        return {"image/svg+xml": deployment_svg(deployment, self.title),
                "text/plain": f"<router: {plain or 'no sessions yet'}>"}

    def live(self) -> None:
        """Display the drawing so that `refresh()` can redraw it where it stands."""
        from IPython.display import display

        display(self, display_id=self.display_id)

    def refresh(self) -> None:
        """Redraw the `live()` display with the runtime as it is now."""
        from IPython.display import update_display

        update_display(self, display_id=self.display_id)
