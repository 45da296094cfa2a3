from typing import Any


def burn_arm(dtype: Any) -> str:
    """The arm Burn 2c06be3's get_tensor takes for `dtype`: "Float", "Int", "Bool", or "todo!"
    when it falls through (crates/burn-router/src/interpreter.rs:88-100)."""
    # TODO: the if-chain, asking burn-std's predicates in Burn's order.
    raise NotImplementedError("burn_arm")
