"""Checks of the first-look exercises (notebook 00): which server and session holds a device,
what a clone is on the client, and where tensor ids come from (docs/burn.md sections 1, 3 and 5).

All three are predict exercises: each oracle builds the runtime its statement shows and reads
the answers from the model's own views (its devices, its registries, its tensors).
"""

from __future__ import annotations

from typing import Any

from ...core import Runtime
from .base import CheckFailure, Part, PredictSuite
from .lifecycle import _count
from .registry import _id_list

SERVERS_DEVICES = ["cpu:0", "cpu:1", "peer2/cpu:0", "peer2/cpu:1", "peer3/cpu:0@ndarray"]
"""The deployment flow-1 asks about (its statement lists the same strings)."""


def _devices(value: Any) -> list[str]:
    if not isinstance(value, list | tuple | set) or not all(isinstance(v, str) for v in value):
        raise CheckFailure('write a list of device strings, e.g. ["cpu:1"] ([] for none)',
                           got=repr(value), hint=1)
    return sorted(v.strip() for v in value)


def _servers_answers() -> dict[str, Any]:
    """Build flow-1's runtime and count what the model made for it."""
    rt = Runtime(SERVERS_DEVICES)
    asked = rt.session("peer2/cpu:0").device
    return {"SERVERS": len({d.peer for d in rt.devices}),
            "SESSIONS": len(rt.server.sessions),
            "NEIGHBOURS": [str(d) for d in rt.devices if d.peer == asked.peer and d != asked]}


servers = PredictSuite(
    "flow-1",
    parts=[
        Part("SERVERS", "how many server processes (peers) the runtime has", _count),
        Part("SESSIONS", "how many device sessions the runtime has", _count),
        Part("NEIGHBOURS", "the other devices served by peer2/cpu:0's server", _devices),
    ],
    oracle=_servers_answers,
)


def _clone_answers() -> dict[str, Any]:
    """Run flow-2's two lines and look at both sides."""
    rt = Runtime(["cpu:0"])
    x = rt.tensor([[1, 2], [3, 4]], "cpu:0", "f32")
    y = rt.clone(x)
    return {"Y_ID": int(y.id), "HANDLES": len(rt.handle_ids("cpu:0")), "COUNT": x.count}


clones = PredictSuite(
    "flow-2",
    parts=[
        Part("Y_ID", "the id the clone y carries", _count),
        Part("HANDLES", "how many handles cpu:0's registry holds after the clone", _count),
        Part("COUNT", "x's clone count after the clone", _count),
    ],
    oracle=_clone_answers,
)


def _ids_answers() -> dict[str, Any]:
    """Create flow-3's three tensors and read their ids and the two registries."""
    rt = Runtime(["cpu:0", "cpu:1"])
    rt.tensor([[1, 2], [3, 4]], "cpu:0", "f32")
    z = rt.tensor([0.5], "cpu:1", "f32")
    w = rt.tensor([7.0], "cpu:0", "f32")
    return {"Z_ID": int(z.id), "W_ID": int(w.id), "CPU0_IDS": rt.handle_ids("cpu:0"),
            "CPU1_IDS": rt.handle_ids("cpu:1")}


ids = PredictSuite(
    "flow-3",
    parts=[
        Part("Z_ID", "the id of z, created on cpu:1", _count),
        Part("W_ID", "the id of w, created on cpu:0 after z", _count),
        Part("CPU0_IDS", "the ids in cpu:0's registry", _id_list),
        Part("CPU1_IDS", "the ids in cpu:1's registry", _id_list),
    ],
    oracle=_ids_answers,
)
