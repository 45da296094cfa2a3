"""Scenarios: TOML files that describe a run of the router, step by step, as pure data.

- `fields`, `kinds`: what a step kind declares (fields and checks, inputs, run, plan);
- `builtin`: RouterLab's step kinds;
- `load`: reading and validating a file (docs/scenarios.md);
- `run`: the one driver (`play`) and `simulate`, one `StepResult` per step;
- `predict`: `validate`, the same steps rehearsed on a twin before anything runs.
"""

from routerlab.core.scenario.builtin import BUILTIN
from routerlab.core.scenario.fields import Field
from routerlab.core.scenario.kinds import RunContext, StepKind, StepKinds, undefined_label
from routerlab.core.scenario.load import Scenario, load_scenario, parse_scenario
from routerlab.core.scenario.predict import FlowReport, FlowTransfer, validate_flow
from routerlab.core.scenario.run import (
    BEFORE_STEPS,
    ScenarioRunError,
    StepResult,
    run_scenario,
)

__all__ = [
    "BEFORE_STEPS", "BUILTIN", "Field", "FlowReport", "FlowTransfer", "RunContext", "Scenario",
    "ScenarioRunError", "StepKind", "StepKinds", "StepResult", "load_scenario", "parse_scenario",
    "run_scenario", "undefined_label", "validate_flow",
]
