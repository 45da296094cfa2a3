"""`routerlab simulate` in one call: a scenario file with the command line's settings in place of
the file's, loaded, checked and started.

The command parses its options and draws what this returns; reading the `--peer` and `--fault`
texts, loading the file and starting the run are one job, so they live here, beside the driver
(`run.run_scenario`), and a notebook or a test gets the same run from the same call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.policies import Policy
from ..remote import parse_peers
from ..serving import parse_fault
from .load import Scenario, load_scenario
from .run import StepResult, run_scenario


@dataclass(frozen=True)
class Simulation:
    """The scenario as it runs (overrides applied) and its steps, produced as they run: a step
    that fails unexpectedly raises `ScenarioRunError` while they are read."""

    scenario: Scenario
    steps: Iterator[StepResult]


def simulate(path: Path, *, fusion: bool = False, transport: str | None = None,
             peers: Sequence[str] = (), faults: Sequence[str] = (),
             policy: Policy | str | None = None, wire: bool = False) -> Simulation:
    """Load `path` with `--fusion`, `--transport`, `--peer NAME=URL` and `--fault k=v,...`
    applied, and start it under `policy` (every transfer's, when given); `wire` replays
    burn-remote's outgoing batch so each step's events say which batches left and why. A bad
    file, peer or fault is refused here, before any step runs."""
    loaded = load_scenario(path).overridden(fusion=fusion, transport=transport,
                                            peers=parse_peers(peers),
                                            faults=[parse_fault(f) for f in faults])
    return Simulation(loaded, run_scenario(loaded, policy=policy, wire=wire))
