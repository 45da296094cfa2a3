"""`routerlab.present.diagram`: the router drawn as SVG from a `Deployment`: one box per server
and per session, the ids each registry holds, the state's colour, escaped labels."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from routerlab.core import Runtime
from routerlab.present.diagram import deployment_svg
from routerlab.present.palette import GREEN, RED

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_every_server_session_and_registry_is_drawn() -> None:
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    rt.tensor([1.0], "cpu:0", "f32")
    rt.tensor([2.0], "cpu:0", "f32")
    svg = deployment_svg(rt.deployment(), "two <peers>")
    texts = _texts(svg)  # parses: well-formed XML
    assert "server “local” (flex)" in texts and "server “peer2” (flex)" in texts
    assert "session cpu:1: FIFO, alive" in texts and "session peer2/cpu:0: FIFO, alive" in texts
    assert "registry: #0 #1" in texts and texts.count("registry: (empty)") == 2
    assert "two <peers>" in texts  # escaped in the source, read back
    assert "<peers>" not in svg
    rects = list(ET.fromstring(svg).iter(f"{SVG}rect"))
    assert len(rects) == 1 + 2 + 3  # the client, two servers, three sessions


def test_a_taller_deployment_makes_a_taller_drawing_and_an_ended_session_is_red() -> None:
    small = ET.fromstring(deployment_svg(Runtime(["cpu:0"]).deployment()))
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0", "peer2/cpu:1", "peer3/cpu:0"])
    rt.session("cpu:1").end("test")
    tall = ET.fromstring(deployment_svg(rt.deployment()))
    assert float(tall.get("height")) > float(small.get("height"))
    strokes = [r.get("stroke") for r in tall.iter(f"{SVG}rect")]
    assert strokes.count(RED.hex) == 1 and strokes.count(GREEN.hex) == 4
