"""The router drawn as SVG: the client on the left, the channel, and each server process with
its device sessions and the ids in their registries, from a core `Deployment`
(`Runtime.deployment()`).

Standard library only, like `routerlab.present.html`: shapes are tinted with the one palette and
text takes `currentColor`, so the drawing reads in JupyterLab's light and dark themes; every
label is escaped.
"""

from __future__ import annotations

from html import escape

from ..core import Deployment
from .palette import AMBER, BLUE, GREEN, GREY, RED

WIDTH = 720
_CLIENT_W, _SERVER_X, _SERVER_W = 190, 300, 400
_SESSION_H, _PEER_HEAD, _GAP = 46, 30, 14
_STATE = {"alive": GREEN, "parked": AMBER, "ended": RED}


def deployment_svg(deployment: Deployment, title: str = "") -> str:
    """The deployment as one `<svg>` element: client, channel, servers, sessions, registries."""
    parts: list[str] = []
    y = 40
    for peer in deployment.peers:
        height = _PEER_HEAD + len(peer.sessions) * (_SESSION_H + 6) + 6
        parts.append(_box(_SERVER_X, y, _SERVER_W, height, GREY.tint(0.12), GREY.hex))
        parts.append(_text(_SERVER_X + 10, y + 19,
                           f"server “{peer.peer}” ({peer.backend})", bold=True))
        sy = y + _PEER_HEAD
        for session in peer.sessions:
            hue = _STATE.get(session.state, GREY)
            parts.append(_box(_SERVER_X + 10, sy, _SERVER_W - 20, _SESSION_H, hue.tint(0.14),
                              hue.hex))
            parts.append(_text(_SERVER_X + 20, sy + 18,
                               f"session {session.device}: FIFO, {session.state}"))
            held = " ".join(f"#{i}" for i in session.ids) or "(empty)"
            parts.append(_text(_SERVER_X + 20, sy + 37, f"registry: {held}", mono=True))
            sy += _SESSION_H + 6
        parts.append(_arrow(10 + _CLIENT_W, 90, _SERVER_X, y + height / 2))
        y += height + _GAP
    total = max(y + 10, 200)
    client = [
        _box(10, 40, _CLIENT_W, 94, BLUE.tint(0.14), BLUE.hex),
        _text(20, 60, "client (your program)", bold=True),
        _text(20, 82, "BackendRouter"),
        _text(20, 102, "RouterTensor: id, shape,"),
        _text(20, 118, "dtype, count (no data)"),
        _text(_CLIENT_W + 24, 30, "channel: OperationIr, fire-and-forget →", small=True),
    ]
    heading = _text(10, 20, title, bold=True) if title else ""
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{total:.0f}' "
            f"viewBox='0 0 {WIDTH} {total:.0f}' font-family='sans-serif' font-size='13' "
            f"role='img'><title>{escape(title or 'router deployment')}</title>"
            f"<defs><marker id='rl-head' markerWidth='8' markerHeight='8' refX='7' refY='4' "
            f"orient='auto'><path d='M0,0 L8,4 L0,8 z' fill='{GREY.hex}'/></marker></defs>"
            f"{heading}{''.join(client)}{''.join(parts)}</svg>")


def _box(x: float, y: float, w: float, h: float, fill: str, stroke: str) -> str:
    return (f"<rect x='{x:.0f}' y='{y:.0f}' width='{w:.0f}' height='{h:.0f}' rx='8' "
            f"fill='{fill}' stroke='{stroke}'/>")


def _text(x: float, y: float, words: str, bold: bool = False, mono: bool = False,
          small: bool = False) -> str:
    style = (" font-weight='bold'" if bold else "") + (
        " font-family='monospace'" if mono else "") + (" font-size='11'" if small else "")
    return f"<text x='{x:.0f}' y='{y:.0f}' fill='currentColor'{style}>{escape(words)}</text>"


def _arrow(x1: float, y1: float, x2: float, y2: float) -> str:
    return (f"<line x1='{x1:.0f}' y1='{y1:.0f}' x2='{x2 - 2:.0f}' y2='{y2:.0f}' "
            f"stroke='{GREY.hex}' stroke-width='1.5' marker-end='url(#rl-head)'/>")
