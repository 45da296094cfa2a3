"""Served peers: a cross-peer move between two real processes, and the cost of one small step.

    .venv/bin/python benchmarks/remote.py [--size 64] [--rounds 7] [--steps 200] [--json OUT]

Two `routerlab serve` peers on loopback (`LocalPeers`), then two paired measurements
(benchmarks/_paired.py: interleaved, alternating order, median of the per-round ratios):

1. A native q8s cross-peer move of `--size` Mi elements (`peer1/cpu:0` -> `peer2/cpu:0` and back,
   one move per round: the target's server downloads the canonical bytes from the source's)
   against a raw socket send of the same number of bytes over loopback TCP to another process,
   which acknowledges once it has them all. Goal <= 1.5x.
2. One small step on a served device (`add` of two 4-element tensors: tasks, `Sync`, `Commit`)
   against the same step in-process; reported as microseconds per step (no goal: it is the price
   of a round trip, printed so a lesson knows what a step costs).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
from typing import Any

import numpy as np
from _paired import Goal, finish, paired

from routerlab.core import Runtime
from routerlab.core.serving import LocalPeers

SINK = """
import socket, sys
server = socket.create_server(("127.0.0.1", 0))
print(server.getsockname()[1], flush=True)
conn, _ = server.accept()
conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
buffer = bytearray(1 << 22)
while True:
    head = conn.recv(8, socket.MSG_WAITALL)
    if len(head) < 8:
        break
    left = int.from_bytes(head, "little")
    while left:
        got = conn.recv_into(buffer, min(left, len(buffer)))
        if not got:
            sys.exit(1)
        left -= got
    conn.sendall(b"k")
"""


class RawSend:
    """A raw loopback socket to a child process that reads every byte, then acknowledges."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", SINK], stdout=subprocess.PIPE,
                                        text=True)
        assert self.process.stdout is not None
        port = int(self.process.stdout.readline())
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, payload: bytes) -> None:
        self.sock.sendall(len(payload).to_bytes(8, "little"))
        self.sock.sendall(payload)
        if self.sock.recv(1) != b"k":
            raise RuntimeError("the sink did not acknowledge")

    def close(self) -> None:
        self.sock.close()
        self.process.wait(10)


def move_vs_raw(peers: dict[str, str], mi: int, rounds: int) -> dict[str, Any]:
    values = np.random.default_rng(0).standard_normal(mi << 20).astype(np.float32)
    raw = RawSend()
    with Runtime(peers=peers) as rt:
        tensor = rt.quantize(rt.tensor(values, device="peer1/cpu:0"), "q8s")
        payload = bytes(rt.read_quantized(tensor).to_bytes())
        where = {"tensor": tensor}

        def move() -> None:
            t = where["tensor"]
            there = "peer2/cpu:0" if str(t.device) == "peer1/cpu:0" else "peer1/cpu:0"
            where["tensor"] = rt.to_device(t, there, policy="native")

        result = paired(move, lambda: raw.send(payload), rounds=rounds)
    raw.close()
    return {"mi": mi, "bytes": len(payload), **result.to_dict()}


def small_step(peers: dict[str, str], steps: int, rounds: int) -> dict[str, Any]:
    with Runtime(peers=peers) as served:
        alone = Runtime()

        def steps_on(rt: Runtime, device: str) -> Any:
            a = rt.tensor([1.0, 2.0, 3.0, 4.0], device=device, dtype="f32")

            def run() -> None:
                x = rt.clone(a)
                for _ in range(steps):
                    x = rt.add(x, rt.clone(a))
                rt.drop(x)
            return run

        result = paired(steps_on(served, "peer1/cpu:0"), steps_on(alone, "cpu:0"), rounds=rounds)
    per_step = result.contender.to_dict()["wall_median_s"] / steps
    in_process = result.baseline.to_dict()["wall_median_s"] / steps
    return {"steps": steps, "served_us_per_step": per_step * 1e6,
            "in_process_us_per_step": in_process * 1e6, **result.to_dict()}


def run(mi: int, rounds: int, steps: int) -> dict[str, Any]:
    with LocalPeers(2, ["cpu:0"]) as local:
        moved = move_vs_raw(local.addresses, mi, rounds)
        step = small_step(local.addresses, steps, rounds)
    print(f"native q8s cross-peer move of {mi} Mi elements ({moved['bytes'] / 2**20:.1f} MiB): "
          f"{moved['ratio_median']:.2f}x a raw loopback send (median; min {moved['ratio_min']:.2f}"
          f"x; {moved['contender']['wall_median_s'] * 1e3:.0f} ms vs "
          f"{moved['baseline']['wall_median_s'] * 1e3:.0f} ms)")
    print(f"one small step on a served device: {step['served_us_per_step']:.0f} us "
          f"(in-process {step['in_process_us_per_step']:.0f} us; "
          f"{step['ratio_median']:.1f}x)")
    goals = [Goal(f"native q8s cross-peer move of {mi} Mi elements vs a raw loopback send",
                  moved["ratio_median"], 1.5, "<=", note=f"(min {moved['ratio_min']:.2f})")]
    return {"move": moved, "small_step": step, "goals": [g.to_dict() for g in goals]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="Mi elements moved (default 64)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=200, help="small steps per round")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    start = time.perf_counter()
    results = run(args.size, args.rounds, args.steps)
    print(f"({time.perf_counter() - start:.0f} s)")
    finish(results, args.json)


if __name__ == "__main__":
    main()
