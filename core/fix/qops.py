"""The router's quantized op set: what Burn's router does with each `q_*` op at the pin, what
RouterLab's fix does, and where a default requantizes.

Burn's router implements ten `QTensorOps`, every one `unimplemented!()`
(`crates/burn-router/src/ops/qtensor.rs:11-62`). Every other `q_*` op takes the trait's default
(`crates/burn-backend/src/backend/ops/qtensor.rs`), which dequantizes, runs the float op, and
then either requantizes (`dequant_op_quant!`, qtensor.rs:16-48, and `q_cat`) or, for the
`dequant_op_flow!` ops (qtensor.rs:55-98), returns a float unless the device's quantization
propagation is `Propagate` (its default is `Inhibit`, `crates/burn-std/src/tensor/
quantization.rs:67-75`). On the router the default's first step is the router's own
`dequantize`, which is one of the ten: so at the pin every quantized op fails on the client with
`not implemented`, the ten directly, the rest inside their default.

RouterLab's fix gives the router `quantize`, `quantize_dynamic`, `dequantize` and the transfer
ops (`core/fix/arms.py`, `core/fix/qtensor.py`); the layout ops stay walls. With `dequantize`
working, the defaults run: a `dequant_op_flow!` op returns a float (no drift), and a requantizing
default calibrates new scales for its result (`quantize_dynamic`), so its values drift from the
input's grid (`requantizes`). The Runtime follows this table for the ops it has (`OPS`,
`Runtime.add`, `mul`, `matmul`, `reshape`, `swap_dims`, the quantize and transfer calls).
"""

from __future__ import annotations

from dataclasses import dataclass

ROUTER = "crates/burn-router/src/ops/qtensor.rs"
TRAIT = "crates/burn-backend/src/backend/ops/qtensor.rs"


@dataclass(frozen=True)
class QOp:
    """One quantized op: Burn's router at the pin (`burn`, with its lines), RouterLab's fix, and
    whether the op requantizes its result under the fix (`drift`)."""

    name: str
    burn: str
    source: str
    fix: str
    drift: bool = False
    runtime: str | None = None
    """The `Runtime` call that reaches it, if RouterLab has one."""


WALL = "unimplemented!() on the client"
DEFAULT = "the trait's default: dequantize (the router's unimplemented!()) first"

OPS: tuple[QOp, ...] = (
    QOp("q_from_data", WALL, f"{ROUTER}:11-12", "q_from_data arm (core/fix/qtensor.py)",
        runtime="from_data"),
    QOp("quantize", WALL, f"{ROUTER}:15-20", "the interpreter's Quantize arm",
        runtime="quantize(scales=...)"),
    QOp("quantize_dynamic", WALL, f"{ROUTER}:23-27", "calibrated Quantize arm",
        runtime="quantize"),
    QOp("dequantize", WALL, f"{ROUTER}:30-31", "the interpreter's Dequantize arm",
        runtime="dequantize"),
    QOp("q_to_device", WALL, f"{ROUTER}:34-38", "q_to_device arm, under the guard's policy",
        runtime="to_device"),
    QOp("q_reshape", WALL, f"{ROUTER}:41-42", "not fixed: the same wall", runtime="reshape"),
    QOp("q_into_data", WALL, f"{ROUTER}:45-46", "q_into_data arm (canonical bytes)",
        runtime="read_quantized"),
    QOp("q_swap_dims", WALL, f"{ROUTER}:49-54", "not fixed: the same wall",
        runtime="swap_dims"),
    QOp("q_permute", WALL, f"{ROUTER}:57-58", "not fixed: the same wall"),
    QOp("q_flip", WALL, f"{ROUTER}:61-62", "not fixed: the same wall"),
    QOp("q_add, q_mul (dequant_op_flow!)", DEFAULT, f"{TRAIT}:352-354, 442-444",
        "dequantize both, the float op, a float result (Inhibit)", runtime="add, mul"),
    QOp("q_matmul", DEFAULT, f"{TRAIT}:498-545",
        "dequantize (to a float operand's dtype), matmul, a float result (Inhibit)",
        runtime="matmul"),
    QOp("the other dequant_op_flow! ops (q_sub, q_div, q_neg, q_exp, q_sum, ...)", DEFAULT,
        f"{TRAIT}:55-98", "dequantize, the float op, a float (Inhibit); requantized only under "
        "Propagate"),
    QOp("q_expand, q_select, q_slice, q_gather, q_repeat_dim, q_abs, q_topk, q_sort "
        "(dequant_op_quant!), q_cat", DEFAULT, f"{TRAIT}:16-48, 921-935",
        "dequantize, the float op, then quantize_dynamic with the input's scheme: new scales",
        drift=True),
    QOp("q_transpose, q_max, q_min, q_max_abs (through q_swap_dims or q_reshape)", DEFAULT,
        f"{TRAIT}:224-227, 1052-1057", "not fixed: they reach a wall of the ten"),
)
"""Every quantized op, in the order of docs/burn.md's table (section 7)."""


def by_runtime_call(call: str) -> QOp:
    """The row a `Runtime` call follows (`"add"`, `"reshape"`, ...)."""
    for op in OPS:
        if op.runtime is not None and call in (c.strip() for c in op.runtime.split(",")):
            return op
    raise KeyError(call)
