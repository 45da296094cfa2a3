"""Scenarios: TOML files that describe a run of the router, step by step, as pure data.

- `fields`, `kinds`: what a step kind declares (fields and checks, inputs, run, plan);
- `builtin`: RouterLab's step kinds;
- `load`: reading and validating a file (docs/scenarios.md);
- `run`: the one driver (`play`) and `simulate`, one `StepResult` per step;
- `predict`: `validate`, the same steps rehearsed on a twin before anything runs;
- `simulation`: `simulate`, a scenario file run with a command line's options (peers, faults,
  a policy), loaded on first use since it reaches the served peers' parsers.
"""

from typing import Any

from .builtin import BUILTIN
from .fields import Field
from .kinds import RunContext, StepKind, StepKinds, undefined_label
from .load import Scenario, load_scenario, parse_scenario
from .predict import FlowReport, FlowTransfer, validate_flow
from .run import (
    BEFORE_STEPS,
    ScenarioRunError,
    StepResult,
    run_scenario,
)

__all__ = [
    "BEFORE_STEPS", "BUILTIN", "Field", "FlowReport", "FlowTransfer", "RunContext", "Scenario",
    "ScenarioRunError", "StepKind", "StepKinds", "StepResult", "load_scenario", "parse_scenario",
    "run_scenario", "simulate", "undefined_label", "validate_flow",
]


def __getattr__(name: str) -> Any:
    """`simulate` loads on first use (PEP 562), with the peers' and faults' parsers it needs."""
    if name in ("simulate", "Simulation"):
        from . import simulation

        return getattr(simulation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
