"""The guided tour: one quantized tensor, every way of moving it, and what each way costs.

`tour()` yields the story as data: each `TourStep` has a title, a few sentences, the Python that
ran, the error it raised (Burn's panic, a refusal) and the tables to look at (both devices'
registries after the step, the measured hops, the final policy table). The CLI's
`routerlab tour` renders it with rich panels and waits for Enter between steps; a notebook can
show the same steps, since every table is a `TableView`. Everything runs for real on a
`Runtime`; nothing in the story is canned except the sentences around the results.

The tensor is docs/transfers.md's worked example: x = [-0.9, 0.5, 0.2] in Q2F, whose range
[-2, 1] is lopsided, so that recalibration visibly drifts (×4/3 per hop).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import BurnPanic, RouterLabError, RouterTensor, Runtime, TableView
from ..core.quant import Calibration, QuantizeReport
from .compare import compare_policies
from .measure import Hop, held, measure_hop

EXAMPLE = (-0.9, 0.5, 0.2)
SCHEME = "q2f"
SOURCE, TARGET = "cpu:0", "cpu:1"
HOP_COLUMNS = ["hop", "move", "bytes moved", "copies", "scales after", "q changed",
               "scale drift", "max |error|", "bit-exact"]


@dataclass(frozen=True)
class TourStep:
    """One stop of the tour: what to read, what ran, what it raised, what to look at."""

    number: int
    title: str
    text: str
    code: str = ""
    outcome: str = "info"
    """`info`, `ok`, `refused` or `panic`."""
    error: str | None = None
    source: str | None = None
    """The Burn file (and line) of a replayed panic."""
    views: tuple[TableView, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "title": self.title, "text": self.text,
                "code": self.code, "outcome": self.outcome, "error": self.error,
                "source": self.source, "views": [v.to_dict() for v in self.views]}


TOTAL_STEPS = 10


def tour(command: str = "routerlab") -> Iterator[TourStep]:
    """The story, step by step (ten steps; a second or so in all). `command` starts the command
    lines of "Where to go next" (`./run` for a learner who started the tour with it)."""
    story = _Story(command)
    yield story.gap()
    yield story.quantize()
    yield from story.legacy()
    yield story.reject()
    yield story.moved("dequantize", 6, hops=1)
    yield story.moved("requantize", 7, hops=3)
    yield story.moved("native", 8, hops=1)
    yield story.table()
    yield story.next_steps()


class _Story:
    """The runtime and the tensor the steps share."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.rt = Runtime([SOURCE, TARGET])
        self.x = np.asarray(EXAMPLE, dtype=np.float32)
        self.q: RouterTensor | None = None

    def registries(self, rt: Runtime | None = None) -> tuple[TableView, ...]:
        rt = rt or self.rt
        return rt.registry(SOURCE), rt.registry(TARGET)

    def gap(self) -> TourStep:
        return TourStep(1, "The gap in Burn's router", (
            "Burn's router can move float, int and bool tensors between devices, but not a "
            "quantized one: at commit 2c06be3 the same-peer path ends in "
            "todo!(\"Local transfer of quantized tensors is not supported yet\"), and more walls "
            "stand in front of it (the router's q_to_device, get_tensor, read_tensor_async, "
            "Dispatch's q_into_data). RouterLab implements the move at every layer and lets you "
            "choose how it happens: native, dequantize, requantize, reject, or legacy (Burn as "
            "it is). This tour runs each of them on one small tensor and measures what it costs."))

    def quantize(self) -> TourStep:
        rt = self.rt
        self.q = rt.quantize(rt.tensor(self.x, SOURCE, "f32"), SCHEME)
        stored = held(rt, self.q).tensor
        report = QuantizeReport(self.x, stored, rt.session(SOURCE).device.profile,
                                Calibration.MINMAX)
        return TourStep(2, "Quantize on cpu:0", (
            f"x = {list(EXAMPLE)} is quantized on cpu:0 with scheme {SCHEME}: values in [-2, 1], "
            "one f32 scale 2·max|x|/3 = 0.6. RouterLab runs the Quantize op in cpu:0's session. "
            "Burn's router would not: on a bare router (burn-remote's default) the client's own "
            "quantize is unimplemented!() and nothing is submitted; built with the fusion "
            "feature, the op reaches the server, whose interpreter arm is todo!(), and cpu:0's "
            "session dies. The second table replays both. cpu:0 now holds the values and the "
            "scale; cpu:1 holds nothing."),
            code=f"rt = Runtime([\"{SOURCE}\", \"{TARGET}\"])\n"
                 f"x = rt.tensor({list(EXAMPLE)}, \"{SOURCE}\", \"f32\")\n"
                 f"q = rt.quantize(x, \"{SCHEME}\")",
            outcome="ok", views=(report.view(), self.quantize_walls(), *self.registries()))

    def quantize_walls(self) -> TableView:
        """The same quantize replayed as Burn 2c06be3, without and with fusion."""
        rows: list[list[Any]] = []
        for fusion in (False, True):
            replay = Runtime([SOURCE], legacy=True, fusion=fusion)
            error = _raised(lambda rt=replay: rt.quantize(rt.tensor(self.x, SOURCE, "f32"),
                                                         SCHEME))
            rows.append(["fusion" if fusion else "bare router", type(error).__name__,
                         getattr(error, "message", str(error)), _source(error),
                         "ended" if replay.session(SOURCE).ended else "alive"])
        return TableView("quantize through Burn's router (legacy replay)",
                         ["client", "panic", "text", "source", f"{SOURCE} session"], rows)

    def legacy(self) -> Iterator[TourStep]:
        replay = Runtime([SOURCE, TARGET])
        q = replay.quantize(replay.tensor(self.x, SOURCE, "f32"), SCHEME)
        error = _raised(lambda: replay.q_to_device(q, TARGET, policy="legacy"))
        yield TourStep(3, "legacy: Burn's router entry", (
            "With policy legacy RouterLab replays Burn 2c06be3. A quantized tensor's to_device "
            "goes to BackendRouter::q_to_device first, and that is unimplemented!() on the "
            "client. Nothing was submitted; both registries are untouched. (These legacy steps "
            "run on a copy of the deployment, because the next one kills it.)"),
            code=f"rt.q_to_device(q, \"{TARGET}\", policy=\"legacy\")", outcome="panic",
            error=str(error), source=_source(error), views=self.registries(replay))
        error = _raised(lambda: replay.to_device(q, TARGET, policy="legacy"))
        yield TourStep(4, "legacy: behind the entry, a dead session and a hang", (
            "Had the router forwarded the move to its channel, the same-peer path would run: "
            "cpu:0's session calls get_tensor, which has no arm for QFloat and panics. Burn's "
            "session worker has no catch_unwind, so cpu:0's session is gone, and cpu:1's "
            "session, already parked in local_comm.take, would wait forever. RouterLab detects "
            "the hang instead of hanging, and rolls the registries back; both sessions are "
            "ENDED (see the captions)."),
            code=f"rt.to_device(q, \"{TARGET}\", policy=\"legacy\")", outcome="panic",
            error=str(error), source=_source(error), views=self.registries(replay))

    def reject(self) -> TourStep:
        assert self.q is not None
        error = _raised(lambda: self.rt.to_device(self.q, TARGET, policy="reject"))
        return TourStep(5, "reject: refuse on the client", (
            "Fix C: the cheapest honest behaviour. The client refuses before it consumes or "
            "submits anything, with an error that names the dtype, the scheme, both devices "
            "and the alternatives. No session dies; cpu:0 still holds q, cpu:1 nothing."),
            code=f"rt.to_device(q, \"{TARGET}\", policy=\"reject\")", outcome="refused",
            error=str(error), views=self.registries())

    def moved(self, policy: str, number: int, hops: int) -> TourStep:
        assert self.q is not None
        rt = self.rt
        original = held(rt, self.q).tensor
        unique = policy == "native"
        tensor = self.q if unique else rt.clone(self.q)
        ends = [TARGET, SOURCE]
        rows = []
        for hop in range(1, hops + 1):
            tensor, measured = measure_hop(rt, tensor, ends[(hop - 1) % 2], policy=policy,
                                           number=hop, original=original,
                                           origin=self.q.device)
            rows.append(_hop_row(measured))
        table = TableView(f"{policy}: {hops} hop(s), measured", HOP_COLUMNS, rows)
        text, code = _MOVED[policy]
        return TourStep(number, f"{policy}: {_TITLES[policy]}", text, code=code, outcome="ok",
                        views=(table, *self.registries()))

    def table(self) -> TourStep:
        comparison = compare_policies(self.x, SCHEME, source=SOURCE, target=TARGET, hops=3)
        return TourStep(9, "All five policies side by side", (
            "Each policy on a fresh deployment, three hops each, measured from the bytes the "
            "backends really copied and the arrays really compared. The line under the table "
            "is the verdict."),
            code=f"compare_policies({list(EXAMPLE)}, \"{SCHEME}\", hops=3)", outcome="ok",
            views=(comparison.view(),))

    def next_steps(self) -> TourStep:
        run = self.command
        return TourStep(TOTAL_STEPS, "Where to go next", (
            f"{run} transfer --values '[-0.9,0.5,0.2]' --scheme q2f --policy requantize "
            "--hops 5 measures one policy hop by hop (add --json for the numbers); "
            f"{run} compare --scheme q4f --hops 4 puts all policies side by side; "
            f"{run} validate quantized-legacy --policy reject judges a whole flow before it "
            f"runs; {run} simulate quantized-cross-backend shows a tensor repacked between "
            f"backends ({run} simulate --list names every shipped scenario). docs/transfers.md "
            "explains every path and policy, and docs/burn.md Burn's router itself, each with "
            "its Burn source."))


_TITLES = {"dequantize": "move floats, keep the scale", "requantize": "move floats, recalibrate",
           "native": "move the bits"}
_MOVED = {
    "dequantize": (
        "Fix B1: cpu:0 dequantizes, the f32 values travel with the stored scale, and cpu:1 "
        "quantizes them again with that same scale: round(s·q / s) = q, so nothing changes "
        "except at an f32 tie. The price is bytes: four per value instead of one (sixteen "
        "times the bytes of 2-bit values packed into u32 words). A clone was moved, so cpu:0 "
        "keeps q (a shared tensor is copied, not moved).",
        f"rt.to_device(rt.clone(q), \"{TARGET}\", policy=\"dequantize\")"),
    "requantize": (
        "Fix B2: the obvious recipe, dequantize, move, recalibrate. -0.9 maps to q = -2, "
        "which dequantizes to -2·scale, farther from zero than -0.9 was, so the next "
        "calibration finds a larger range: the scale grows by 4/3 every hop (0.6 → 0.8 → "
        "1.0667 → 1.4222), q never changes, and the values silently drift away.",
        f"t = rt.to_device(rt.clone(q), \"{TARGET}\", policy=\"requantize\")  # then back, and "
        "again"),
    "native": (
        "Fix A: the values, the scale (and the global of a two-level scheme) and the scheme "
        "are copied as they are, under a new id on cpu:1. q was unique, so its cpu:0 entry "
        "is gone: it moved. Bit-exact, and the fewest bytes. Across peers the same bytes "
        "travel in Burn's canonical layout; across backends they are repacked explicitly "
        "where the target stores values differently.",
        f"rt.to_device(q, \"{TARGET}\")  # policy=\"native\" is the default"),
}


def _hop_row(hop: Hop) -> list[Any]:
    scales = ", ".join(f"{s:.6g}" for s in hop.scales[:4])
    return [hop.hop, f"{hop.source} -> {hop.target}", hop.bytes_moved, hop.copies,
            f"[{scales}]", hop.q_changed_total, hop.scale_drift, hop.max_abs_error_total,
            hop.bit_exact]


def _raised(call: Any) -> RouterLabError:
    """Run a call that must fail, and return its error (the tour shows it)."""
    try:
        call()
    except RouterLabError as error:
        return error
    raise RouterLabError("the tour expected this step to fail, and it did not")


def _source(error: RouterLabError) -> str | None:
    return error.source if isinstance(error, BurnPanic) else None
