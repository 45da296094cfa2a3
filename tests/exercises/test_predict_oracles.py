"""The oracles of predict exercises measure what their statements ask, and the sealed worked
solutions say what the reference says. No plain answer is written here: the tests compare the
oracle with the model, and open the solutions with the oracle's answers (as `teacher lint` does).
"""

from __future__ import annotations

from routerlab.core.base.errors import RouterLabError
from routerlab.core.runtime import Runtime
from routerlab.exercises.answers import unlock_key, unseal
from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.checks import suite_for
from routerlab.exercises.checks.fix import POLICIES, _hops


def _bytes_of_the_hops(policy: str) -> int:
    """policy-1's experiment, counting only what the three `to_device` calls copy."""
    rt = Runtime(["cpu:0", "cpu:1"])
    q = rt.quantize(rt.tensor([[-0.9, 0.5, 0.2, 0.1]], "cpu:0", "f32"), "q2f")
    before = rt.bytes_copied()
    try:
        for target in ("cpu:1", "cpu:0", "cpu:1"):
            q = rt.to_device(q, target, policy=policy)
    except RouterLabError:
        pass
    return rt.bytes_copied() - before


def test_policy_1_oracle_counts_the_bytes_of_the_hops_not_its_own_check_read() -> None:
    # "the fewest bytes copied by the hops": the read that checks bit-identity copies bytes too,
    # and must not be added to them.
    for policy in POLICIES:
        assert _hops(policy)["bytes"] == _bytes_of_the_hops(policy), policy


def test_policy_1_solution_cites_cubecl_not_libtorch_as_the_backend_without_a_native_move() -> None:
    exercise = load_catalog().get("policy-1")
    suite = suite_for(exercise)
    sealed = exercise.sealed()
    assert sealed is not None
    text = unseal(sealed.solution, unlock_key(exercise.id, suite.canonical_answers(suite.oracle())))
    assert "CubeCL's q_to_device" in text
    assert "docs/burn.md, \"CubeCL's quantized to_device\"" in text
    assert "LibTorch's q_to_device" not in text  # tch has no quantization at all
