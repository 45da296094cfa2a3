"""RouterLab's built-in step kinds, each one's run beside its prediction.

Every pair calls the same checks in the same order as the client does: the prediction of an op is
its `infer`, of a quantize `check_quantize`, of a transfer `plan_transfer`, so the two agree by
construction wherever the values do not matter (`tests/core/test_scenario_agreement.py` checks
that on thousands of generated scenarios).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from routerlab.core.data import TensorData
from routerlab.core.devices import Device, Path, parse_device
from routerlab.core.dtypes import AnyDType, DType, QFloat, is_quantized
from routerlab.core.errors import (
    BurnPanic,
    BurnTodo,
    BurnUnimplemented,
    DeviceError,
    DTypeError,
    ScenarioError,
    TransferRejected,
)
from routerlab.core.fix.guard import Outcome, plan_transfer
from routerlab.core.interpreter import SRC_QUANTIZE
from routerlab.core.ir import AddOp, CastOp, DequantizeOp, MatmulOp, MulOp, ReshapeOp, SwapDimsOp
from routerlab.core.moves import check_quantize
from routerlab.core.policies import Policy
from routerlab.core.request import TransferRequest
from routerlab.core.scenario import fields as f
from routerlab.core.scenario.kinds import (
    Meta,
    Prediction,
    RunContext,
    Step,
    StepKind,
    StepKinds,
    World,
)
from routerlab.core.tensor import RouterTensor

_F32_MAX = float(np.finfo(np.float32).max)
_FLOAT_MAX = {DType.F64: float(np.finfo(np.float64).max), DType.F32: _F32_MAX,
              DType.FLEX32: _F32_MAX, DType.F16: 65504.0, DType.BF16: 3.3895313892515355e38}
_QUANT_MAX = 448.0
"""The largest |q| any quantized value type holds (E4M3's 448; Q8 stops at 127)."""


def _within(bound: float, dtype: AnyDType) -> float:
    """`bound` if every value up to it is finite in `dtype`, else inf (unknown)."""
    limit = _FLOAT_MAX.get(dtype, math.inf) if isinstance(dtype, DType) else math.inf
    return bound if bound <= limit else math.inf


def _magnitude(data: TensorData) -> float:
    if is_quantized(data.dtype):
        return math.inf
    values = np.abs(data.to_numpy().astype(np.float64, copy=False))
    return float(values.max()) if values.size and np.isfinite(values).all() else (
        0.0 if not values.size else math.inf)


def _define(ctx: RunContext, step: Step, tensor: RouterTensor) -> str:
    ctx.tensors[step["name"]] = tensor
    shape = list(tensor.shape)
    return f"{step['name']} = #{int(tensor.id)} {shape} {tensor.dtype} on {tensor.device}"


# --- tensor --------------------------------------------------------------------------------------


def _run_tensor(ctx: RunContext, step: Step) -> str:
    return _define(ctx, step, ctx.runtime.tensor(step["values"], step["device"], step.get("dtype")))


def _predict_tensor(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    device = parse_device(step["device"])
    data = TensorData.from_array(step["values"], DType.parse(step["dtype"]) if "dtype" in step
                                 else None)
    world.alive(device)
    return Prediction(world.new(device, data.dtype, data.shape, _magnitude(data)))


# --- clone, drop ---------------------------------------------------------------------------------


def _run_clone(ctx: RunContext, step: Step) -> str:
    clone = ctx.runtime.clone(ctx.tensor(step["tensor"]))
    ctx.tensors[step["name"]] = clone
    return f"{step['name']} = clone of {step['tensor']} (#{int(clone.id)}, count {clone.count})"


def _predict_clone(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    (meta,) = inputs
    if meta is not None:
        world.counts[meta.group] += 1
    return Prediction(meta)


def _run_drop(ctx: RunContext, step: Step) -> str:
    tensor = ctx.tensor(step["tensor"])
    last = tensor.count <= 1
    ctx.runtime.drop(tensor)
    return f"drop {step['tensor']} (#{int(tensor.id)}): " + (
        "last reference, Drop(ReadWrite) sent" if last else "other clones remain, nothing sent")


def _predict_drop(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    (meta,) = inputs
    if meta is not None and world.counts[meta.group] <= 1:  # only the last one sends a Drop
        world.alive(meta.device)
    return Prediction()


# --- ops -----------------------------------------------------------------------------------------


def _op(ctx: RunContext, step: Step, out: RouterTensor, args: str) -> str:
    return f"{step['op']}({args}): " + _define(ctx, step, out)


def _run_binary(ctx: RunContext, step: Step) -> str:
    rt = ctx.runtime
    out = getattr(rt, step["op"])(ctx.tensor(step["lhs"]), ctx.tensor(step["rhs"]))
    return _op(ctx, step, out, f"{step['lhs']}, {step['rhs']}")


_BINARY: dict[str, tuple[Any, Callable[[Meta, Meta], float]]] = {
    "add": (AddOp, lambda a, b: a.bound + b.bound),
    "mul": (MulOp, lambda a, b: a.bound * b.bound),
    "matmul": (MatmulOp, lambda a, b: a.bound * b.bound * (a.shape[-1] if a.shape else 1)),
}


def _predict_binary(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    lhs, rhs = inputs
    if lhs is None or rhs is None:
        return Prediction()
    if lhs.device != rhs.device:
        raise DeviceError(f"an op's inputs must be on one device, got {lhs.device} and "
                          f"{rhs.device}; move them first")
    op, bound = _BINARY[step["op"]]
    shape, dtype = op.infer(lhs, rhs)
    world.alive(lhs.device)
    return Prediction(world.new(lhs.device, dtype, shape, _within(bound(lhs, rhs), dtype)))


def _unary(infer: Callable[..., tuple[tuple[int, ...], AnyDType]],
           params: Callable[[Step], tuple[Any, ...]]
           ) -> Callable[[World, Step, list[Meta | None]], Prediction]:
    """The prediction of an op with one input: its `infer`, then the session's liveness."""
    def predict(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
        (meta,) = inputs
        if meta is None:
            return Prediction()
        shape, dtype = infer(meta, *params(step))
        world.alive(meta.device)
        return Prediction(world.new(meta.device, dtype, shape, _within(meta.bound, dtype)))
    return predict


def _run_reshape(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.reshape(ctx.tensor(step["tensor"]), step["shape"])
    return _op(ctx, step, out, step["tensor"])


def _run_swap_dims(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.swap_dims(ctx.tensor(step["tensor"]), step["dim1"], step["dim2"])
    return _op(ctx, step, out, step["tensor"])


def _run_cast(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.cast(ctx.tensor(step["tensor"]), step["dtype"])
    return _op(ctx, step, out, step["tensor"])


# --- quantized tensors ---------------------------------------------------------------------------


def _run_quantize(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.quantize(ctx.tensor(step["tensor"]), step["scheme"],
                               scales=step.get("scales"), global_scale=step.get("global"),
                               calibration=step.get("calibration", "minmax"))
    return _op(ctx, step, out, f"{step['tensor']}, {step['scheme']}")


def _predict_quantize(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    (meta,) = inputs
    if meta is None:
        return Prediction()
    stored, params = check_quantize(meta.dtype, meta.shape, meta.device.profile, step["scheme"],
                                    step.get("scales"), step.get("global"),
                                    step.get("calibration", "minmax"))
    world.alive(meta.device)
    if world.policy is Policy.LEGACY:  # `Quantize(_) => todo!()`: the session panics and ends
        raise _session_panic(world, BurnTodo(SRC_QUANTIZE), meta.device)
    dtype = QFloat(stored)
    if params.scales is not None:
        bound = _QUANT_MAX * max(params.scales) * (params.global_scale or 1.0)
        return Prediction(world.new(meta.device, dtype, meta.shape, _within(bound, DType.F32)))
    out = world.new(meta.device, dtype, meta.shape, meta.bound * 1.01)
    if math.isinf(meta.bound):
        return Prediction(out, unchecked=f"quantize of {step['tensor']!r}: calibration refuses "
                                         "NaN or infinite values, and its values are not known")
    return Prediction(out)


def _run_dequantize(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.dequantize(ctx.tensor(step["tensor"]), step.get("dtype", "f32"))
    return _op(ctx, step, out, step["tensor"])


def _predict_dequantize(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    (meta,) = inputs
    if meta is None:
        return Prediction()
    shape, dtype = DequantizeOp.infer(meta, DType.parse(step.get("dtype", "f32")))
    world.alive(meta.device)
    if world.policy is Policy.LEGACY:  # `Dequantize(_) => todo!()`
        raise _session_panic(world, BurnTodo(SRC_QUANTIZE), meta.device)
    return Prediction(world.new(meta.device, dtype, shape, _within(meta.bound, dtype)))


# --- reads ---------------------------------------------------------------------------------------


def _run_read(ctx: RunContext, step: Step) -> str:
    value = ctx.runtime.read(ctx.tensor(step["tensor"]), consume=step.get("consume", False))
    if "expect" in step:
        expected = np.asarray(step["expect"])
        same = expected.shape == value.shape and np.allclose(
            value.astype(np.float64), expected, equal_nan=True)
        if not same:
            raise ScenarioError(f"read {step['tensor']}: got {value.tolist()}, expected "
                                f"{expected.tolist()}")
    return f"read {step['tensor']} = {value.tolist()}"


def _predict_read(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    (meta,) = inputs
    consumed = (step["tensor"],) if step.get("consume", False) else ()
    if meta is not None:
        if is_quantized(meta.dtype):
            raise DTypeError("quantized TensorData has no plain array view; use read_quantized "
                             "or dequantize")
        world.alive(meta.device)
    return Prediction(consumed=consumed)


def _run_read_quantized(ctx: RunContext, step: Step) -> str:
    tensor = ctx.runtime.read_quantized(ctx.tensor(step["tensor"]))
    q = np.asarray(tensor.q()).tolist()
    scales = tensor.scales_f32().reshape(-1).tolist()
    if "expect_q" in step and np.asarray(step["expect_q"]).tolist() != q:
        raise ScenarioError(f"read_quantized {step['tensor']}: q is {q}, expected "
                            f"{step['expect_q']}")
    if "expect_scales" in step and not np.allclose(
            scales, np.asarray(step["expect_scales"], dtype=np.float64), rtol=1e-5, atol=0):
        raise ScenarioError(f"read_quantized {step['tensor']}: scales are {scales}, expected "
                            f"{step['expect_scales']}")
    glob = "" if tensor.global_scale is None else f", global {float(tensor.global_scale):.6g}"
    shown = ", ".join(f"{s:.6g}" for s in scales)
    return f"read {step['tensor']} ({tensor.scheme}): q = {q}, scales = [{shown}]{glob}"


def _predict_read_quantized(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    (meta,) = inputs
    if meta is not None:
        if not is_quantized(meta.dtype):
            raise DTypeError(f"read_quantized reads quantized tensors, not {meta.dtype}; use "
                             "read")
        world.alive(meta.device)
    return Prediction()


# --- transfers -----------------------------------------------------------------------------------


def _request(step: Step, policy: Policy | None) -> TransferRequest:
    return TransferRequest.of(step["device"], policy=policy, path=step.get("path"),
                              transport=step.get("transport"), arrival=step.get("arrival"))


def _run_to_device(ctx: RunContext, step: Step) -> str:
    tensor = ctx.tensor(step["tensor"])
    old = f"#{int(tensor.id)} on {tensor.device}"
    policy = ctx.policy_of(step)
    moved = ctx.runtime.transfer(tensor, _request(step, policy))
    how = ""
    if is_quantized(tensor.dtype):
        how = f" [policy {policy or ctx.runtime.policy}]"
    return f"to_device {step['tensor']} ({old}){how}: " + _define(ctx, step, moved)


def _predict_to_device(world: World, step: Step, inputs: list[Meta | None]) -> Prediction:
    """The guard's plan, and what its outcome does: a refusal before anything is submitted, a
    legacy wall after the sessions are reached (ending the sessions a session-side panic ends:
    Burn's worker has no `catch_unwind`, `crates/burn-remote/src/server/worker.rs:119-134`)."""
    (meta,) = inputs
    if meta is None:
        return Prediction(unchecked=f"to_device of {step['tensor']!r} (made by an unchecked step)")
    request = _request(step, world.policy_of(step))
    plan = plan_transfer(meta.dtype, meta.shape, meta.device, request.device, request.path,
                         request.policy or world.policy)
    if plan.outcome is Outcome.REFUSED:
        raise PlannedFailure(TransferRejected(plan.refusal or plan.action), plan)
    if plan.path is not Path.SAME:
        try:
            world.alive(plan.source, plan.target)
        except ScenarioError as error:
            raise PlannedFailure(error, plan) from None
    if plan.outcome is Outcome.PANIC:
        wall = plan.channel_wall
        assert wall is not None
        panic = _panic_of(wall.message, wall.source)
        if wall.layer.endswith("session"):  # the source panics; a same-peer target waits forever
            _session_panic(world, panic, plan.source)
            world.dead.add(plan.target)
        raise PlannedFailure(panic, plan)
    if plan.path is Path.SAME:  # the router returns the input itself
        return Prediction(consumed=(), alias=step["tensor"], plan=plan)
    bound = meta.bound if plan.policy is Policy.NATIVE or not is_quantized(meta.dtype) \
        else meta.bound * 1.01
    return Prediction(world.new(plan.target, plan.arrival_dtype, plan.shape, bound), plan=plan)


def _session_panic(world: World, panic: BurnPanic, device: Device) -> BurnPanic:
    """A panic inside `device`'s session: it ends the session for good."""
    world.dead.add(device)
    panic.session = str(device)
    return panic


def _panic_of(message: str, source: str) -> BurnTodo | BurnUnimplemented:
    """The panic a wall's text stands for: `todo!()` or `unimplemented!()`, with its detail."""
    for kind, head in ((BurnTodo, "not yet implemented"), (BurnUnimplemented, "not implemented")):
        if message == head or message.startswith(head + ": "):
            return kind(source, message[len(head) + 2:] or None)
    raise AssertionError(f"a wall that is no panic: {message!r}")


class PlannedFailure(Exception):
    """A transfer predicted to fail: the error the run would raise, and the guard's plan that
    says why (validate shows it in its table)."""

    def __init__(self, error: Exception, plan: Any) -> None:
        super().__init__(str(error))
        self.error = error
        self.plan = plan


def _read_only(step: Step) -> bool:
    return not any(k in step for k in ("expect", "expect_q", "expect_scales"))


def _steps() -> StepKinds:
    kinds = [
        StepKind("tensor", {"name": f.NAME, "values": f.TENSOR_VALUES, "device": f.DEVICE,
                            "dtype": f.OPT_DTYPE},
                 _run_tensor, _predict_tensor, defines="name", help="create a tensor from values"),
        StepKind("clone", {"tensor": f.TENSOR, "name": f.NAME}, _run_clone, _predict_clone,
                 reads=("tensor",), defines="name",
                 help="a second reference to the same tensor (count + 1)"),
        *(StepKind(op, {"lhs": f.TENSOR, "rhs": f.TENSOR, "name": f.NAME}, _run_binary,
                   _predict_binary, consumes=("lhs", "rhs"), defines="name",
                   help=f"{op} two tensors (both consumed)") for op in _BINARY),
        StepKind("reshape", {"tensor": f.TENSOR, "shape": f.Field((list,), check=f.shape_problem),
                             "name": f.NAME}, _run_reshape,
                 _unary(ReshapeOp.infer, lambda step: (tuple(step["shape"]),)),
                 consumes=("tensor",), defines="name", help="new shape, same elements"),
        StepKind("swap_dims", {"tensor": f.TENSOR, "dim1": f.Field((int,)),
                               "dim2": f.Field((int,)), "name": f.NAME}, _run_swap_dims,
                 _unary(SwapDimsOp.infer, lambda step: (step["dim1"], step["dim2"])),
                 consumes=("tensor",), defines="name", help="swap two dims"),
        StepKind("cast", {"tensor": f.TENSOR, "dtype": f.DTYPE, "name": f.NAME}, _run_cast,
                 _unary(CastOp.infer, lambda step: (DType.parse(step["dtype"]),)),
                 consumes=("tensor",), defines="name", help="convert to another dtype"),
        StepKind("drop", {"tensor": f.TENSOR}, _run_drop, _predict_drop, consumes=("tensor",),
                 help="end one reference"),
        StepKind("read", {"tensor": f.TENSOR,
                          "expect": f.Field(f.VALUES, False, check=f.values_problem),
                          "consume": f.Field((bool,), False)}, _run_read, _predict_read,
                 reads=("tensor",), judged=_read_only,
                 help="read values back (a clone unless consume = true)"),
        StepKind("to_device", {"tensor": f.TENSOR, "device": f.DEVICE, "name": f.NAME,
                               "path": f.Field((str,), False, check=f.parse_problem(Path.parse)),
                               "legacy": f.Field((bool,), False,
                                                 "the older spelling of policy = \"legacy\""),
                               "policy": f.POLICY, "arrival": f.ARRIVAL,
                               "transport": f.TRANSPORT},
                 _run_to_device, _predict_to_device, consumes=("tensor",), defines="name",
                 help="move to another device"),
        StepKind("quantize", {"tensor": f.TENSOR, "scheme": f.SCHEME, "name": f.NAME,
                              "scales": f.FLOATS,
                              "global": f.Field((float, int), False,
                                                "the global scale (two-level)"),
                              "calibration": f.CALIBRATION},
                 _run_quantize, _predict_quantize, consumes=("tensor",), defines="name",
                 help="quantize a float tensor on its device (calibrated unless scales are "
                      "given)"),
        StepKind("dequantize", {"tensor": f.TENSOR, "name": f.NAME, "dtype": f.OPT_DTYPE},
                 _run_dequantize, _predict_dequantize, consumes=("tensor",), defines="name",
                 help="dequantize to a float dtype (default f32)"),
        StepKind("read_quantized", {"tensor": f.TENSOR,
                                    "expect_q": f.Field(f.VALUES, False, check=f.values_problem),
                                    "expect_scales": f.FLOATS},
                 _run_read_quantized, _predict_read_quantized, reads=("tensor",),
                 judged=_read_only,
                 help="read a quantized tensor's q values and scales (a clone)"),
    ]
    return StepKinds({kind.name: kind for kind in kinds})


BUILTIN = _steps()
"""RouterLab's step kinds (docs/scenarios.md)."""

