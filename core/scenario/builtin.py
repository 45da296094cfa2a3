"""RouterLab's built-in step kinds: fields, inputs and run, and for a transfer the guard's plan.

docs/scenarios.md documents each kind for the people who write scenario files.
"""

from __future__ import annotations

import numpy as np

from ..base.devices import Path
from ..base.dtypes import is_quantized
from ..base.errors import ScenarioError
from ..base.policies import Policy
from ..base.request import TransferRequest
from ..fix.guard import TransferPlan
from ..router.tensor import RouterTensor
from . import fields as f
from .kinds import RunContext, Step, StepKind, StepKinds


def _define(ctx: RunContext, step: Step, tensor: RouterTensor) -> str:
    ctx.tensors[step["name"]] = tensor
    shape = list(tensor.shape)
    return f"{step['name']} = #{int(tensor.id)} {shape} {tensor.dtype} on {tensor.device}"


# --- tensor --------------------------------------------------------------------------------------


def _run_tensor(ctx: RunContext, step: Step) -> str:
    return _define(ctx, step, ctx.runtime.tensor(step["values"], step["device"], step.get("dtype")))


# --- clone, drop ---------------------------------------------------------------------------------


def _run_clone(ctx: RunContext, step: Step) -> str:
    clone = ctx.runtime.clone(ctx.tensor(step["tensor"]))
    ctx.tensors[step["name"]] = clone
    return f"{step['name']} = clone of {step['tensor']} (#{int(clone.id)}, count {clone.count})"


def _run_drop(ctx: RunContext, step: Step) -> str:
    tensor = ctx.tensor(step["tensor"])
    last = tensor.count <= 1
    ctx.runtime.drop(tensor)
    return f"drop {step['tensor']} (#{int(tensor.id)}): " + (
        "last reference, Drop(ReadWrite) sent" if last else "other clones remain, nothing sent")


# --- ops -----------------------------------------------------------------------------------------


def _op(ctx: RunContext, step: Step, out: RouterTensor, args: str) -> str:
    return f"{step['op']}({args}): " + _define(ctx, step, out)


def _run_binary(ctx: RunContext, step: Step) -> str:
    rt = ctx.runtime
    out = getattr(rt, step["op"])(ctx.tensor(step["lhs"]), ctx.tensor(step["rhs"]))
    return _op(ctx, step, out, f"{step['lhs']}, {step['rhs']}")


def _run_reshape(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.reshape(ctx.tensor(step["tensor"]), step["shape"])
    return _op(ctx, step, out, step["tensor"])


def _run_swap_dims(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.swap_dims(ctx.tensor(step["tensor"]), step["dim1"], step["dim2"])
    return _op(ctx, step, out, step["tensor"])


def _run_cast(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.cast(ctx.tensor(step["tensor"]), step["dtype"])
    return _op(ctx, step, out, step["tensor"])


def _run_custom(ctx: RunContext, step: Step) -> str:
    """A backend extension's custom op: the runtime's handler for its id (the example handlers
    the file names, core/router/custom_examples.py), or Burn's missing-handler panic."""
    inputs = [ctx.tensor(label) for label in step["inputs"]]
    (out,) = ctx.runtime.custom(step["id"], *inputs, outputs=[(step["shape"], step["dtype"])],
                                scalars=step.get("scalars", ()))
    return f"custom {step['id']!r}({', '.join(step['inputs'])}): " + _define(ctx, step, out)


# --- quantized tensors ---------------------------------------------------------------------------


def _run_quantize(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.quantize(ctx.tensor(step["tensor"]), step["scheme"],
                               scales=step.get("scales"), global_scale=step.get("global"),
                               calibration=step.get("calibration", "minmax"))
    return _op(ctx, step, out, f"{step['tensor']}, {step['scheme']}")


def _run_dequantize(ctx: RunContext, step: Step) -> str:
    out = ctx.runtime.dequantize(ctx.tensor(step["tensor"]), step.get("dtype", "f32"))
    return _op(ctx, step, out, step["tensor"])


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


# --- transfers -----------------------------------------------------------------------------------


def _request(step: Step, policy: Policy | None) -> TransferRequest:
    return TransferRequest.of(step["device"], policy=policy, path=step.get("path"),
                              transport=step.get("transport"), arrival=step.get("arrival"))


def _plan_to_device(ctx: RunContext, step: Step) -> TransferPlan:
    """The guard's plan for this move, from the tensor as it is now (nothing is submitted)."""
    tensor = ctx.tensor(step["tensor"])
    request = _request(step, ctx.policy_of(step))
    return ctx.runtime.plan_transfer(tensor, request.device, request.path, policy=request.policy,
                                     transport=request.transport)


def _run_to_device(ctx: RunContext, step: Step) -> str:
    tensor = ctx.tensor(step["tensor"])
    old = f"#{int(tensor.id)} on {tensor.device}"
    policy = ctx.policy_of(step)
    moved = ctx.runtime.transfer(tensor, _request(step, policy))
    how = ""
    if is_quantized(tensor.dtype):
        how = f" [policy {policy or ctx.runtime.policy}]"
    return f"to_device {step['tensor']} ({old}){how}: " + _define(ctx, step, moved)


def _steps() -> StepKinds:
    one, two = ("tensor",), ("lhs", "rhs")
    kinds = [
        StepKind("tensor", {"name": f.NAME, "values": f.TENSOR_VALUES, "device": f.DEVICE,
                            "dtype": f.OPT_DTYPE},
                 _run_tensor, defines="name", help="create a tensor from values"),
        StepKind("clone", {"tensor": f.TENSOR, "name": f.NAME}, _run_clone, reads=("tensor",),
                 defines="name", help="a second reference to the same tensor (count + 1)"),
        *(StepKind(op, {"lhs": f.TENSOR, "rhs": f.TENSOR, "name": f.NAME}, _run_binary,
                   consumes=two, defines="name", help=f"{op} two tensors (both consumed)")
          for op in ("add", "mul", "matmul")),
        StepKind("reshape", {"tensor": f.TENSOR, "shape": f.Field((list,), check=f.shape_problem),
                             "name": f.NAME}, _run_reshape, consumes=one, defines="name",
                 help="new shape, same elements"),
        StepKind("swap_dims", {"tensor": f.TENSOR, "dim1": f.Field((int,)),
                               "dim2": f.Field((int,)), "name": f.NAME}, _run_swap_dims,
                 consumes=one, defines="name", help="swap two dims"),
        StepKind("cast", {"tensor": f.TENSOR, "dtype": f.DTYPE, "name": f.NAME}, _run_cast,
                 consumes=one, defines="name", help="convert to another dtype"),
        StepKind("custom", {"id": f.Field((str,), help="the custom op's id (its handler's)"),
                            "inputs": f.TENSORS, "shape": f.Field((list,), help="the output's "
                                                                  "shape", check=f.shape_problem),
                            "dtype": f.DTYPE, "scalars": f.FLOATS, "name": f.NAME},
                 _run_custom, consumes=("inputs",), defines="name",
                 help="a backend extension's custom op (inputs consumed, one output)"),
        StepKind("drop", {"tensor": f.TENSOR}, _run_drop, consumes=("tensor",),
                 help="end one reference"),
        StepKind("read", {"tensor": f.TENSOR,
                          "expect": f.Field(f.VALUES, False, check=f.values_problem),
                          "consume": f.Field((bool,), False)}, _run_read, reads=("tensor",),
                 help="read values back (a clone unless consume = true)"),
        StepKind("to_device", {"tensor": f.TENSOR, "device": f.DEVICE, "name": f.NAME,
                               "path": f.Field((str,), False, check=f.parse_problem(Path.parse)),
                               "legacy": f.Field((bool,), False,
                                                 "the older spelling of policy = \"legacy\""),
                               "policy": f.POLICY, "arrival": f.ARRIVAL,
                               "transport": f.TRANSPORT},
                 _run_to_device, _plan_to_device, consumes=one, defines="name",
                 help="move to another device"),
        StepKind("quantize", {"tensor": f.TENSOR, "scheme": f.SCHEME, "name": f.NAME,
                              "scales": f.FLOATS,
                              "global": f.Field((float, int), False,
                                                "the global scale (two-level)"),
                              "calibration": f.CALIBRATION},
                 _run_quantize, consumes=one, defines="name",
                 help="quantize a float tensor on its device (calibrated unless scales are "
                      "given)"),
        StepKind("dequantize", {"tensor": f.TENSOR, "name": f.NAME, "dtype": f.OPT_DTYPE},
                 _run_dequantize, consumes=one, defines="name",
                 help="dequantize to a float dtype (default f32)"),
        StepKind("read_quantized", {"tensor": f.TENSOR,
                                    "expect_q": f.Field(f.VALUES, False, check=f.values_problem),
                                    "expect_scales": f.FLOATS},
                 _run_read_quantized, reads=("tensor",),
                 help="read a quantized tensor's q values and scales (a clone)"),
    ]
    return StepKinds({kind.name: kind for kind in kinds})


BUILTIN = _steps()
"""RouterLab's step kinds (docs/scenarios.md)."""
