"""Scenarios: TOML files that describe a run of the router, step by step, as pure data."""

from routerlab.core.scenario.steps import (
    BEFORE_STEPS,
    STEP_KINDS,
    Field,
    Scenario,
    ScenarioRunError,
    StepKind,
    StepResult,
    load_scenario,
    parse_scenario,
    register_step,
    run_scenario,
    undefined_label,
)

__all__ = ["BEFORE_STEPS", "STEP_KINDS", "Field", "Scenario", "ScenarioRunError", "StepKind",
           "StepResult", "load_scenario", "parse_scenario", "register_step", "run_scenario",
           "undefined_label"]
