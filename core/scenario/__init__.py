"""Scenarios: TOML files that describe a run of the router, step by step, as pure data.

- `fields`, `kinds`: what a step kind declares (fields and checks, inputs, run, predict);
- `builtin`: RouterLab's step kinds, each run beside its prediction;
- `load`: reading and validating a file (docs/scenarios.md);
- `run`: `simulate`, one `StepResult` per step;
- `predict`: `validate`, the same steps judged before anything runs.
"""

from routerlab.core.scenario.builtin import BUILTIN
from routerlab.core.scenario.fields import Field
from routerlab.core.scenario.kinds import (
    Meta,
    Prediction,
    RunContext,
    StepKind,
    StepKinds,
    World,
    undefined_label,
)
from routerlab.core.scenario.load import Scenario, load_scenario, parse_scenario
from routerlab.core.scenario.predict import FlowReport, FlowTransfer, validate_flow
from routerlab.core.scenario.run import (
    BEFORE_STEPS,
    ScenarioRunError,
    StepResult,
    run_scenario,
)

__all__ = [
    "BEFORE_STEPS", "BUILTIN", "Field", "FlowReport", "FlowTransfer", "Meta", "Prediction",
    "RunContext", "Scenario", "ScenarioRunError", "StepKind", "StepKinds", "StepResult", "World",
    "load_scenario", "parse_scenario", "run_scenario", "undefined_label", "validate_flow",
]
