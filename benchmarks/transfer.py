"""A native move of a quantized tensor against a raw copy of exactly the bytes it carries.

    .venv/bin/python benchmarks/transfer.py [--sizes 1,16,64] [--rounds 7] [--json OUT]

Every path, on the topology Burn can have (a peer hosts one backend): same-peer `cpu:0 -> cpu:1`
(the router's local path), cross-peer bytes `cpu:0 -> peer2/cpu:0` and, across backends,
`peer2/cpu:0@cubecl -> cpu:0` (a cross-peer move takes bytes whatever the backends), and Burn's
Dispatch between the same two backends (`path="dispatch"`: `into_data` to the client, `from_data`
on the target; CubeCL's PackedU32 words into Flex's native i8), at 8, 4 and 2 bits (Q8S, Q4S,
Q2S), per tensor and per block (32 values, f32 scales), at 1, 16 and 64 Mi values.

The baseline is a raw copy (`numpy.array(a, copy=True)`) of the stored values, the stored scales
and the global when there is one: the bytes the move carries. Move and copy run interleaved in
rotated order (benchmarks/_paired.py); each figure is a per-round ratio, min and median over the
rounds, with CPU time beside wall time. The move keeps its source tensor alive until the clock
has stopped, so freeing the source is timed on its own (`free_median_s`). Between rounds the
tensor moves back, untimed. The copies column is what the backends' counters saw during one move:
the copies RouterLab makes, each of which Burn's path makes too (docs/performance.md).

At 1 Mi the report also gives the router's fixed cost per move: the same move of a 1 Ki-value
tensor (`fixed_median_s`), the work that does not grow with the tensor (the step's journal, the
plan, the sessions, the arms, the trace), so a reader sees how much of the ratio it is.

Goals checked (exit status 1 when one is missed): native Q8S same-peer <= 1.25x at 16 and 64 Mi,
<= 1.5x at 1 Mi; Q4S packed CubeCL -> Flex through Dispatch <= 3x at 16 and 64 Mi; both
cross-peer paths make the two copies Burn's makes (readback on the source, the received buffer
on the target, unpacked into i8 across backends) and no more.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import numpy as np
from _paired import Goal, finish, paired

from routerlab.core import Runtime
from routerlab.teaching.measure import held

PATHS: dict[str, tuple[str, str, str | None]] = {
    "same-peer": ("cpu:0", "cpu:1", None),
    "cross-peer": ("cpu:0", "peer2/cpu:0", None),
    "cross-peer, cross-backend": ("peer2/cpu:0@cubecl", "cpu:0", None),
    "dispatch": ("peer2/cpu:0@cubecl", "cpu:0", "dispatch"),
}
"""Source, target and forced path (None: the router's automatic one) of each case."""
BITS = {8: "q8s", 4: "q4s", 2: "q2s"}
GRAINS = {"per tensor": "", "per block": ":block=32"}
FIXED_VALUES = 1024
"""Values of the tensor whose move gives the router's fixed cost per move."""
SMALL_ROUNDS = 3
"""At 1 Mi values a round lasts about 0.1 ms, and one tick of another process on the shared cores
doubles a single ratio: three times the rounds (still cheap) steady the median."""
BURN_COPIES = {"same-peer": 2, "cross-peer": 2, "cross-peer, cross-backend": 2, "dispatch": 2}
"""Copies Burn makes: `q_to_device` copies the values and the scales; `read_tensor_async` plus the
buffer the target receives (Flex's `from_data` adopts it, or unpacks CubeCL's words into it);
`q_into_data` plus `q_from_data`'s unpack into i8 (`into_vec_i8`, burn-std
quantization.rs:300-350)."""


def run_case(path: str, bits: int, grain: str, mi: int, rounds: int) -> dict[str, Any]:
    source, target, forced = PATHS[path]
    scheme = BITS[bits] + GRAINS[grain]
    rt = Runtime([source, target])
    x = np.random.default_rng(bits).standard_normal(mi << 20, dtype=np.float32)
    fixed = fixed_cost(rt, x[:FIXED_VALUES], scheme, forced, rounds) if mi == 1 else None
    tensor = rt.quantize(rt.tensor(x.reshape(-1, 1024), source, "f32"), scheme)
    del x
    stored = held(rt, tensor).tensor
    parts = [np.asarray(stored.values), stored.scales] + (
        [] if stored.global_scale is None else [np.array([stored.global_scale], np.float32)])
    state = {"t": tensor, "kept": held(rt, tensor)}

    def move() -> Any:
        state["t"] = rt.to_device(state["t"], target, forced)
        return state.pop("kept")  # the source stays alive until the clock has stopped

    def back() -> None:
        state["t"] = rt.to_device(state["t"], source, forced)
        state["kept"] = held(rt, state["t"])  # looked up here, untimed: not part of a move

    def raw_copy() -> list[np.ndarray]:
        return [np.array(part, copy=True) for part in parts]

    def counted() -> np.ndarray:
        return np.array([rt.counters(d) for d in rt.devices]).sum(axis=0)

    before = counted()
    move()
    copied, copies = (int(n) for n in counted() - before)
    back()
    result = paired(move, raw_copy, rounds=rounds, between=back)
    move()
    arrived = held(rt, state["t"]).tensor
    return {"path": path, "bits": bits, "grain": grain, "mi": mi, "scheme": str(stored.scheme),
            "arrived_as": str(arrived.scheme), "carried_bytes": int(sum(p.nbytes for p in parts)),
            "copies": copies, "bytes_copied": int(copied), "burn_copies": BURN_COPIES[path],
            **result.to_dict(), **({} if fixed is None else {"fixed_median_s": fixed})}


def fixed_cost(rt: Runtime, x: np.ndarray, scheme: str, forced: str | None,
               rounds: int) -> float:
    """Median wall time of one move of `x`, a small tensor, on the case's path (moved back
    untimed between rounds): the per-move work that does not grow with the tensor."""
    source, target = rt.devices
    tensor = rt.quantize(rt.tensor(x.reshape(1, -1), source, "f32"), scheme)
    state = {"t": tensor}

    def move() -> None:
        state["t"] = rt.to_device(state["t"], target, forced)

    def back() -> None:
        state["t"] = rt.to_device(state["t"], source, forced)

    walls = paired(move, lambda: None, rounds=rounds, between=back).contender.wall
    rt.drop(state["t"])
    return statistics.median(walls)


def goals(cases: list[dict[str, Any]]) -> list[Goal]:
    """The issue's transfer goals, each from the cases measured in this run."""
    def find(path: str, bits: int, mi: int) -> dict[str, Any] | None:
        return next((c for c in cases if c["path"] == path and c["bits"] == bits
                     and c["mi"] == mi and c["grain"] == "per tensor"), None)

    out = []
    for mi, limit in ((64, 1.25), (16, 1.25), (1, 1.5)):
        case = find("same-peer", 8, mi)
        if case:
            fixed = case.get("fixed_median_s")
            share = "" if fixed is None else (
                f"; the router's fixed cost, the same move of {FIXED_VALUES} values, is "
                f"{fixed * 1e6:.0f} of the move's {case['contender']['wall_median_s'] * 1e6:.0f}"
                " µs")
            out.append(Goal(f"native q8s move vs raw copy, {mi} Mi", case["ratio_median"], limit,
                            "<=", note=f"(min {case['ratio_min']:.2f}{share})"))
    for mi in (64, 16):
        case = find("dispatch", 4, mi)
        if case:
            out.append(Goal(f"q4s packed cubecl -> flex (Dispatch) vs raw copy, {mi} Mi",
                            case["ratio_median"], 3.0, "<=", note=f"(min {case['ratio_min']:.2f})"))
    cross = [c for c in cases if c["path"].startswith("cross-peer")]
    if cross:
        extra = max(c["copies"] - c["burn_copies"] for c in cross)
        out.append(Goal("cross-peer bytes path: copies beyond Burn's", extra, 0, "<=", unit="",
                        note=f"({cross[0]['copies']} counted, as Burn's readback + received "
                             "buffer)"))
    return out


def run(sizes: list[int], rounds: int) -> dict[str, Any]:
    cases = []
    for mi in sizes:
        for path in PATHS:
            for bits in BITS:
                for grain in GRAINS:
                    case = run_case(path, bits, grain, mi, rounds * SMALL_ROUNDS if mi == 1
                                    else rounds)
                    cases.append(case)
                    print(f"{path:<10} {bits}-bit {grain:<10} {mi:>2} Mi: move/copy median "
                          f"{case['ratio_median']:6.2f} (min {case['ratio_min']:5.2f}, CPU "
                          f"{case['cpu_ratio_median']:5.2f}), {case['copies']} copies "
                          f"(Burn {case['burn_copies']}), free "
                          f"{case['contender']['free_median_s'] * 1e3:.2f} ms"
                          + (f", fixed {case['fixed_median_s'] * 1e6:.0f} µs"
                             if "fixed_median_s" in case else ""), flush=True)
    return {"rounds": rounds, "cases": cases, "goals": [g.to_dict() for g in goals(cases)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,16,64", help="Mi values, comma-separated")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    results = run([int(s) for s in args.sizes.split(",")], args.rounds)
    finish(results, args.json)


if __name__ == "__main__":
    main()
