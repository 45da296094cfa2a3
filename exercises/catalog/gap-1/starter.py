from typing import Any


def burn_arm(dtype: Any) -> str:
    """The arm Burn 2c06be3's get_tensor takes for `dtype`: "Float", "Int", "Bool", or "todo!"
    when it falls through.

    Read: crates/burn-router/src/interpreter.rs:88-100, and burn-std's predicates
    (crates/burn-std/src/tensor/dtype.rs:78-95): `dtype` answers the same `is_…()` questions.
    The visible checks: your float, int and bool dtypes, your unsigned int and its signed twin,
    your quantized dtypes, and a legacy move of each in a real runtime.
    """
    # TODO
    raise NotImplementedError("burn_arm")
