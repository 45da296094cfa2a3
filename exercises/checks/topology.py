"""Checks of the topology exercises: which path a move takes, and which devices one server can
hold (crates/burn-remote/src/client/runner.rs:406-417, crates/burn-remote/src/server/
builder.rs:77-89; docs/ARCHITECTURE.md, "Device strings and paths").

transfer-5 puts the student's `path_for` where the router picks a move's path: the runtime is
told to take that path (`Runtime.to_device(..., path=...)`, a documented argument), so a wrong
choice moves the tensor the wrong way, or is refused, and the registries and bytes show it.
flow-4 compares the student's `refused_device` with what `Runtime(devices)` does: a list the
model accepts must be accepted, and a list it refuses refused, naming the same device (the
model's own check is absent while theirs is graded, so no runtime is built in their process).

The visible checks of both are built on the student's variant (a remote peer and a device
index, declared in each exercise.toml); the hidden ones are everyone's.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ...core import Device, RouterLabError, Runtime, automatic_path, check_topology, parse_device
from .base import CheckFailure, Observation, Subject, Suite

PATHS = ("same", "local", "bytes")

# --- transfer-5: the path of a move --------------------------------------------------------

paths = Suite("transfer-5")


def model_path_for(source: Device, target: Device) -> str:
    """The router's own choice (`automatic_path`), as the string the student returns."""
    return str(automatic_path(source, target))


paths.model(path_for=model_path_for)


def _path(sub: Subject, source: str, target: str) -> str:
    got = sub.function("path_for")(parse_device(source), parse_device(target))
    if got not in PATHS:
        raise CheckFailure(f"path_for({source!r}, {target!r}) must return one of "
                           f"{', '.join(repr(p) for p in PATHS)}", got=repr(got), hint=1)
    return str(got)


def _pairs(*pairs: tuple[str, str]) -> Any:
    return pairs


def _peer_and_indexes(sub: Subject) -> tuple[str, str, int, int]:
    """The variant's inputs: its peer, another peer, its index and the next one."""
    peer, index = sub.param("peer"), sub.param("index")
    return peer, _another_peer(peer), index, index + 1


def _another_peer(peer: str) -> str:
    """A second remote peer, never the variant's own."""
    return "peer3" if peer != "peer3" else "peer2"


def _paths_of(sub: Subject, pairs: tuple[tuple[str, str], ...]) -> Observation:
    return [(f"path_for({s!r}, {t!r})", _path(sub, s, t)) for s, t in pairs]


@paths.visible("the same device, however it is spelled, is 'same'", hint=1)
def _(sub: Subject) -> Observation:
    peer, _far, i, j = _peer_and_indexes(sub)
    return _paths_of(sub, _pairs((f"cpu:{i}", f"cpu:{i}"), (f"cpu:{i}", f"cpu:{i}@flex"),
                                 (f"{peer}/cpu:{j}", f"{peer}/cpu:{j}"),
                                 (f"cuda:{i}", f"cuda:{i}@cubecl")))


@paths.visible("two devices of one peer are 'local', another peer is 'bytes'", hint=2)
def _(sub: Subject) -> Observation:
    peer, far, i, j = _peer_and_indexes(sub)
    return _paths_of(sub, _pairs((f"cpu:{i}", f"cpu:{j}"), (f"{peer}/cpu:{i}", f"{peer}/cpu:{j}"),
                                 (f"cpu:{i}", f"{peer}/cpu:{i}"),
                                 (f"{peer}/cpu:{j}", f"{far}/cpu:{j}")))


@paths.visible("Burn compares the peers only: another peer with the same index, or another "
               "backend, is still 'bytes'", hint=2)
def _(sub: Subject) -> Observation:
    peer, far, i, j = _peer_and_indexes(sub)
    return _paths_of(sub, _pairs((f"cpu:{i}", f"{peer}/cpu:{i}"),
                                 (f"cpu:{i}@flex", f"{far}/cpu:{i}@ndarray"),
                                 (f"{peer}/cpu:{i}@ndarray", f"cpu:{j}")))


def _moves(sub: Subject) -> Observation:
    """Three moves of a shared tensor, each along the path the subject picks."""
    peer, _far, i, j = _peer_and_indexes(sub)
    home, devices = f"cpu:{i}", [f"cpu:{i}", f"cpu:{j}", f"{peer}/cpu:{i}"]
    rt = Runtime(devices)
    x = rt.tensor(np.arange(6, dtype=np.float32), home, "f32")
    seen: Observation = []
    for target in devices:
        keep = rt.clone(x)
        path = (model_path_for(parse_device(home), parse_device(target)) if sub.is_model
                else _path(sub, home, target))
        before = rt.bytes_copied()
        try:
            moved = rt.to_device(keep, target, path=path)
            outcome: Any = [int(moved.id), rt.bytes_copied() - before]
        except RouterLabError as error:
            outcome = ["refused", type(error).__name__]
        seen.append((f"a clone of x moved {home} -> {target} along your path: new id and bytes "
                     "copied, or the refusal", outcome))
    seen.append((f"registries of ({home}, cpu:{j}) afterwards",
                 [rt.handle_ids(home), rt.handle_ids(f"cpu:{j}")]))
    return seen


@paths.visible("in the router: moves along your paths copy what the router's own would", hint=2)
def _(sub: Subject) -> Observation:
    return _moves(sub)


_PEERS = ("", "peer2/", "peer3/", "gpu/")
_KINDS = ("cpu:0", "cpu:1", "cpu:2", "cpu:0@ndarray", "cpu:1@flex", "cuda:0", "cuda:1@cubecl")


def _random_device(rng: random.Random) -> str:
    return rng.choice(_PEERS) + rng.choice(_KINDS)


@paths.hidden("300 seeded random pairs of device strings")
def _(sub: Subject) -> Observation:
    rng = random.Random(406)
    pairs = [(_random_device(rng), _random_device(rng)) for _ in range(300)]
    pairs += [(d, d) for d in (_random_device(rng) for _ in range(20))]
    return _paths_of(sub, tuple(pairs))


@paths.hidden("the spellings of one device: a default profile written out or left out", hint=2)
def _(sub: Subject) -> Observation:
    pairs = _pairs(("cpu:2", "cpu:2@flex"), ("peer2/cuda:1", "peer2/cuda:1@cubecl"),
                   ("gpu/cpu:1@flex", "gpu/cpu:1"), ("cpu:1@ndarray", "cpu:1"))
    return _paths_of(sub, pairs)


# --- flow-4: one backend per server ---------------------------------------------------------

servers = Suite("flow-4")


def model_refused_device(devices: list[Device]) -> str | None:
    """The device `Runtime(devices)` refuses (the first that cannot join its peer), or None."""
    for end in range(1, len(devices) + 1):
        try:
            check_topology(list(devices[:end]))
        except RouterLabError:
            return str(devices[end - 1])
    return None


servers.model(refused_device=model_refused_device)


def _refused(sub: Subject, devices: list[str]) -> str | None:
    got = sub.function("refused_device")([parse_device(d) for d in devices])
    if got is not None and not isinstance(got, str | Device):
        raise CheckFailure(f"refused_device({devices}) must return a device (or its string), or "
                           "None", got=repr(got), hint=1)
    return None if got is None else str(parse_device(str(got)))


def _lists(sub: Subject, lists: list[list[str]]) -> Observation:
    return [(f"refused_device({devices})", _refused(sub, devices)) for devices in lists]


@servers.visible("devices of one peer may differ in index, never in kind or profile", hint=1)
def _(sub: Subject) -> Observation:
    peer, _far, i, j = _peer_and_indexes(sub)
    return _lists(sub, [[f"cpu:{i}", f"cpu:{j}", f"cpu:{i + 7}"], [f"cpu:{i}", f"cuda:{i}"],
                        [f"{peer}/cpu:{i}", f"{peer}/cpu:{j + 1}@ndarray"],
                        [f"cpu:{i}@ndarray", f"cpu:{j}@ndarray"]])


@servers.visible("every peer is a server of its own: each one chooses its backend", hint=2)
def _(sub: Subject) -> Observation:
    peer, far, i, j = _peer_and_indexes(sub)
    return _lists(sub, [[f"cpu:{i}", f"{peer}/cuda:{i}", f"{far}/cpu:{j}@ndarray"],
                        [f"{peer}/cpu:{i}", f"cpu:{i}@ndarray", f"{peer}/cpu:{j}@ndarray"]])


@servers.visible("a default profile written out is the same backend; the first clash is named",
                 hint=2)
def _(sub: Subject) -> Observation:
    peer, _far, i, j = _peer_and_indexes(sub)
    return _lists(sub, [[f"cpu:{i}", f"cpu:{j}@flex"], [f"cuda:{i}", f"cuda:{j}@cubecl"],
                        [f"{peer}/cpu:{i}@cubecl", f"{peer}/cpu:{j}@cubecl", f"{peer}/cpu:{j + 1}",
                         f"{peer}/cpu:{j + 2}@flex"]])


@servers.hidden("200 seeded random lists of two to six devices")
def _(sub: Subject) -> Observation:
    rng = random.Random(77)
    lists = [[_random_device(rng) for _ in range(rng.randint(2, 6))] for _ in range(200)]
    return _lists(sub, lists)


@servers.hidden("the order decides which device is named: the first that cannot join", hint=2)
def _(sub: Subject) -> Observation:
    return _lists(sub, [["cpu:0@ndarray", "cpu:0", "cpu:1"], ["cpu:1", "cpu:2@ndarray", "cuda:0"],
                        ["peer2/cuda:0", "peer2/cpu:0", "peer2/cuda:1"]])
