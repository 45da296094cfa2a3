"""The checks catch the mistakes students make: each mutant of a reference solution must fail,
and some only a hidden check catches (which is why hidden checks exist)."""

from __future__ import annotations

from pathlib import Path

import pytest

from routerlab.exercises.catalog import load_catalog
from routerlab.exercises.runner import Candidate, run_checks

MUTANTS = [
    # (exercise, original text, mutant text, a check that must fail, only hidden checks fail?)
    ("registry-1", "return handles[tensor_id]  #", "return handles.pop(tensor_id)  #",
     "ReadOnly get returns the handle", False),
    ("registry-1", "raise BurnPanic(f\"Cannot",
     "return handles[tensor_id]\n    raise BurnPanic(f\"Cannot",
     "NotInit status is refused", False),
    ("lifecycle-1", "count += 1  # so", "pass  # so", "into_ir of the last reference", False),
    ("lifecycle-1", "return count - 1, status_for(count)", "return count - 1, count <= 2",
     "drop: the last reference", False),
    ("transfer-1", "elif dtype.is_uint():", "elif False:", "a u8 tensor moves", False),
    ("transfer-1", "handles.get_tensor_handle(ir)",
     "handles.get(ir.id, __import__('routerlab.core.ir').core.ir.READ_WRITE)",
     "a shared tensor is copied", False),
    ("transfer-1", "handles.register(tensor_id, to_device(tensor.primitive))",
     "to_device; handles.register(tensor_id, tensor.primitive)",
     "a copy on the target device", False),
    ("quant-1", "max(abs(min(values)), abs(max(values)))", "max(values)",
     "the larger magnitude wins", False),
    ("quant-1", "return 2 * alpha / (b - a)", "return alpha / b", "an F value uses", False),
    ("quant-2", "return math.ceil(scale / spacing) * spacing", "pass",
     "the subnormal ladders", True),
    ("quant-3", "word |= (value & mask) << (k * bits)", "word |= value << (k * bits)",
     "negative Q4 value", False),
    ("fix-1", "return policy in MOVING_POLICIES", "return policy != 'reject'",
     "a quantized tensor moves under native", False),
    ("fix-1", "return not (policy == \"legacy\" and _kind(kind) is Kind.UINT)", "return True",
     "plain tensors move under every policy", False),
    ("fix-2", "HandleKind(Kind.QUANTIZED, handles.get_tensor_handle(ir))",
     "HandleKind(Kind.QUANTIZED, handles.get(ir.id, __import__('routerlab.core.ir').core.ir"
     ".READ_WRITE))", "a shared one is copied", False),
    ("fix-2", "backend.count_copy(scales.nbytes", "(scales.nbytes", "the scales travel", False),
    ("fix-2", "scales = np.array(tensor.scales, copy=True)", "scales = tensor.scales",
     "owns its values and its scales", True),
]


@pytest.mark.parametrize(("exercise_id", "original", "mutant", "failing", "hidden_only"), MUTANTS,
                         ids=[f"{m[0]}:{m[3][:24]}" for m in MUTANTS])
def test_a_mutant_of_the_solution_fails(tmp_path: Path, exercise_id: str, original: str,
                                         mutant: str, failing: str, hidden_only: bool) -> None:
    exercise = load_catalog().get(exercise_id)
    source = exercise.solution_source()
    assert original in source, "the mutant no longer applies to the solution"
    path = tmp_path / exercise.file_name
    path.write_text(source.replace(original, mutant, 1), encoding="utf-8")
    report = run_checks(exercise, [Candidate(path, exercise.file_name)]).reports[0]
    assert not report.passed
    failed = [o for o in report.outcomes if not o.ok]
    assert any(failing in o.name for o in failed), [o.name for o in failed]
    if hidden_only:
        assert all(o.hidden for o in failed), "the visible checks should not see this mistake"
