"""Checks of the first-look exercises (notebook 00): which server and session holds a device,
what a clone is on the client, and where tensor ids come from (docs/burn.md sections 1, 3 and 5).

flow-1 is an experiment (find the rules by changing a runtime, then answer for runtimes the
notebook does not draw), flow-2 and flow-3 are predictions. Each oracle builds the runtimes its
statement shows and reads the answers from the model's own views (its devices, its registries,
its tensors), or from the model's refusal.
"""

from __future__ import annotations

from typing import Any

from ...core import DeviceError, Runtime
from .base import Part, PredictSuite, choice, choices
from .lifecycle import _count
from .registry import _id_list

PEERS, DEVICES_EACH = 7, 5
"""flow-1's large runtime: `cpu:0`, and PEERS peers (`peer2` on) of DEVICES_EACH devices each."""
CANDIDATES = {
    "A": ["cpu:0", "cpu:1@ndarray"],
    "B": ["cpu:0", "peer2/cpu:0@ndarray"],
    "C": ["peer2/cpu:0@ndarray", "peer2/cpu:1"],
    "D": ["cpu:0", "cpu:0"],
}
"""The device lists flow-1 asks about (its statement lists the same)."""


def _large_runtime(peers: int = PEERS, devices: int = DEVICES_EACH) -> list[str]:
    return ["cpu:0"] + [f"peer{p}/cpu:{d}" for p in range(2, 2 + peers)
                        for d in range(devices)]


def _servers_answers(peers: int = PEERS, devices: int = DEVICES_EACH) -> dict[str, Any]:
    """Build flow-1's large runtime (`peers` peers of `devices` devices, and the local cpu:0)
    and count what the model made; try each candidate list and keep the letters the model
    refuses."""
    rt = Runtime(_large_runtime(peers, devices))
    refused = []
    for letter, listed in CANDIDATES.items():
        try:
            Runtime(listed)
        except DeviceError:
            refused.append(letter)
    return {"SERVERS": len({d.peer for d in rt.devices}), "SESSIONS": len(rt.server.sessions),
            "REFUSED": refused}


servers = PredictSuite(
    "flow-1",
    parts=[
        Part("SERVERS", "how many server processes (peers) the large runtime has", _count),
        Part("SESSIONS", "how many device sessions the large runtime has", _count),
        Part("REFUSED", "the device lists Runtime refuses",
             choices(choice(*CANDIDATES), "letters such as \"A\"")),
    ],
    oracle=_servers_answers,
    mistakes={
        "forgot the local server": lambda peers, devices: {"SERVERS": peers},
        "counted one session per server": lambda peers, devices: {"SESSIONS": peers + 1},
    },
)


def _clone_answers(before: int = 0, more: int = 0) -> dict[str, Any]:
    """Run flow-2's lines (`before` tensors first, then x, its clone y and `more` clones of y)
    and look at both sides."""
    rt = Runtime(["cpu:0"])
    for _ in range(before):
        rt.tensor([0.0], "cpu:0", "f32")
    x = rt.tensor([[1, 2], [3, 4]], "cpu:0", "f32")
    y = rt.clone(x)
    for _ in range(more):
        rt.clone(y)
    return {"Y_ID": int(y.id), "HANDLES": len(rt.handle_ids("cpu:0")), "COUNT": x.count}


clones = PredictSuite(
    "flow-2",
    parts=[
        Part("Y_ID", "the id the clone y carries", _count),
        Part("HANDLES", "how many handles cpu:0's registry holds after the clones", _count),
        Part("COUNT", "x's clone count after the clones", _count),
    ],
    oracle=_clone_answers,
    mistakes={
        "counted the clone as a copy": lambda before, more: {
            "Y_ID": before + 1, "HANDLES": before + 2 + more, "COUNT": 1},
        "started the clone count at 0": lambda before, more: {"COUNT": 1 + more},
    },
)


def _ids_answers(on0: int = 0, on1: int = 0) -> dict[str, Any]:
    """Run flow-3's program (`on0` tensors on cpu:0 and `on1` on cpu:1 first, then clones, an
    add, a move, a new tensor) and read the ids of z and w and the two registries; x stays alive
    (notebook 00 uses it again)."""
    rt = Runtime(["cpu:0", "cpu:1"])
    for _ in range(on0):
        rt.tensor([0.0], "cpu:0", "f32")
    for _ in range(on1):
        rt.tensor([0.0], "cpu:1", "f32")
    x = rt.tensor([[1, 2], [3, 4]], "cpu:0", "f32")
    y = rt.clone(x)
    z = rt.to_device(rt.add(y, rt.clone(y)), "cpu:1")
    w = rt.tensor([7.0], "cpu:0", "f32")
    return {"Z_ID": int(z.id), "W_ID": int(w.id), "CPU0_IDS": rt.handle_ids("cpu:0"),
            "CPU1_IDS": rt.handle_ids("cpu:1")}


ids = PredictSuite(
    "flow-3",
    parts=[
        Part("Z_ID", "the id of z, the sum moved to cpu:1", _count),
        Part("W_ID", "the id of w, created on cpu:0 after the move", _count),
        Part("CPU0_IDS", "the ids in cpu:0's registry", _id_list),
        Part("CPU1_IDS", "the ids in cpu:1's registry", _id_list),
    ],
    oracle=_ids_answers,
    mistakes={
        "gave each device its own counter": lambda on0, on1: {"Z_ID": on1, "W_ID": on0 + 2},
        "thought the add's output keeps its input's id": lambda on0, on1: {
            "Z_ID": on0 + on1 + 1, "W_ID": on0 + on1 + 2},
    },
)
