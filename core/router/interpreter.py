"""`TensorInterpreter`: the server side of one device, its handle container and its backend.

Every op arm follows Burn's pattern (`crates/burn-router/src/interpreter.rs:216-2135`): get each
input with the status its IR carries, run the backend op, register the output under the id the
client minted. The transfer entry points dispatch on Burn's dtype predicates, and that is where
two behaviours exist, chosen by the transfer's policy (`routerlab.core.base.policies`):

* `legacy` replays Burn at 2c06be3 exactly: unsigned ints and `QFloat` fall through the
  `if is_float / is_int / is_bool` chains into `todo!()`, `unimplemented!()`, or (for
  `register_tensor_data_id` with a uint) into silently registering nothing
  (`interpreter.rs:88-178`, `2139-2176`; docs/burn.md section 7), and an int-to-int cast
  reaches the int arm's `unreachable!()` (`interpreter.rs:536`).
* every other policy is RouterLab's fix: uint has its own arm everywhere, and every `QFloat` arm
  calls the quantized extension (`QuantizedExtension`) the interpreter was built with.

Extensions are values the owner passes in, never module state: the quantized extension, any
extra op arms and the custom-op handlers come from the `Runtime` that builds the interpreter, as
Burn's `CustomOpRegistry` is handed to the server that owns it (`crates/burn-router/src/
custom_op.rs:15-67`, core/router/custom_op.py). Without a quantized extension the `QFloat` arms
raise `ExtensionMissingError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..base.data import TensorData
from ..base.dtypes import AnyDType, DType, QFloat
from ..base.errors import (
    BurnPanic,
    BurnTodo,
    BurnUnimplemented,
    ExtensionMissingError,
    RouterLabError,
)
from ..base.policies import DEFAULT_POLICY, Policy
from ..base.trace import Trace
from .backend import Backend, HandleKind, Kind, Primitive, kind_of
from .custom_op import CustomHandler, CustomOp, run_custom
from .handles import HandleContainer
from .ir import (
    AddOp,
    CastOp,
    DequantizeOp,
    DropOp,
    InitOp,
    MatmulOp,
    MulOp,
    OperationIr,
    QuantizeOp,
    ReshapeOp,
    SwapDimsOp,
    TensorId,
    TensorIr,
)

if TYPE_CHECKING:
    from ..base.request import TransferRequest

SRC = "crates/burn-router/src/interpreter.rs"
SRC_GET_TENSOR = f"{SRC}:98"
SRC_TO_DEVICE = f"{SRC}:124"
SRC_FROM_DATA = f"{SRC}:176"
SRC_READ_QFLOAT = f"{SRC}:2161"
SRC_READ_OTHER = f"{SRC}:2163"
SRC_QUANTIZE = f"{SRC}:1390-1391"
SRC_INT_CAST = f"{SRC}:536"
UNREACHABLE = "internal error: entered unreachable code"
"""What Rust's `unreachable!()` prints."""
_INT_KINDS = (Kind.INT, Kind.UINT)
SRC_ALIAS = f"{SRC}:151-159"


class QuantizedExtension(Protocol):
    """What the core asks of the quantization package for `QFloat` tensors (fixed behaviour).

    Each hook receives the interpreter, so it can reach `interp.handles` and `interp.backend`,
    and (for transfers) the transfer's policy, which only the extension interprets.
    """

    def get_tensor(self, interp: TensorInterpreter, ir: TensorIr,
                   policy: Policy) -> HandleKind: ...

    def register_tensor_to_device(self, interp: TensorInterpreter, id: TensorId,
                                  tensor: HandleKind, policy: Policy) -> None: ...

    def read_tensor(self, interp: TensorInterpreter, ir: TensorIr,
                    policy: Policy) -> TensorData: ...

    def register_tensor_data(self, interp: TensorInterpreter, id: TensorId, data: TensorData,
                             policy: Policy) -> None: ...

    def quantize(self, interp: TensorInterpreter, op: QuantizeOp) -> None: ...

    def dequantize(self, interp: TensorInterpreter, op: DequantizeOp) -> None: ...

    def change_backend(self, source: TensorInterpreter, target: TensorInterpreter, handle: Any,
                       policy: Policy) -> Any:
        """The bridge's missing `change_backend_quantized` (bridge/base.rs:31): return a handle
        for `target`'s backend."""


Arm = Callable[["TensorInterpreter", Any], None]
"""An interpreter arm for an op class defined outside the core: `arm(interp, op)` gets its
inputs from `interp.handles` (with each input's status) and registers its outputs there."""


def burn_debug(dtype: AnyDType) -> str:
    """A dtype as Rust's `{:?}` prints it inside Burn's todo! text: `U8`, `QFloat(…)`."""
    if isinstance(dtype, QFloat):
        # Here: only a quantized dtype's text needs the quant package (start-up cost only; no
        # loop, as the contracts of tests/packaging/test_contracts.py check).
        from ..quant.debug import scheme_debug
        from ..quant.scheme import QuantScheme

        scheme = dtype.scheme  # a test's stand-in scheme prints as its repr
        text = scheme_debug(scheme) if isinstance(scheme, QuantScheme) else repr(scheme)
        return f"QFloat({text})"
    return "Flex32" if dtype is DType.FLEX32 else dtype.name


class TensorInterpreter:
    """Executes ops for one device; single owner, like Burn's (every method mutates)."""

    container: type[HandleContainer] = HandleContainer
    """The registry's class: a subclass passed as `Runtime(interpreter=...)` may name another
    (how an exercise reads the registry through a student's `get_handle`)."""

    def __init__(self, backend: Backend, trace: Trace | None = None, *,
                 policy: Policy = DEFAULT_POLICY, quantized: QuantizedExtension | None = None,
                 arms: Mapping[type, Arm] | None = None,
                 custom_ops: Mapping[str, CustomHandler] | None = None) -> None:
        """`policy` is the one a transfer follows when it names none (`legacy` also turns
        Burn's quantize/dequantize and uint arms on); `quantized`, `arms` and `custom_ops` (the
        server's `CustomOpRegistry`, core/router/custom_op.py) are the owner's extensions."""
        self.backend = backend
        self.device = backend.device
        self.trace = trace if trace is not None else Trace()
        self.handles = self.container(str(backend.device), self.trace)
        self.policy = policy
        self.quantized = quantized
        self._arms: dict[type, Callable[[Any], None]] = {
            InitOp: self._init, DropOp: self._drop, AddOp: self._add, MulOp: self._mul,
            MatmulOp: self._matmul, ReshapeOp: self._reshape, SwapDimsOp: self._swap_dims,
            CastOp: self._cast, QuantizeOp: self._quantize, DequantizeOp: self._dequantize,
            CustomOp: self._custom,
        }
        self.custom_ops = custom_ops
        self._extra_arms = dict(arms or {})

    @property
    def legacy(self) -> bool:
        """Whether this interpreter replays Burn 2c06be3 for what names no policy."""
        return self.policy is Policy.LEGACY

    def policy_for(self, request: TransferRequest | None) -> Policy:
        """One transfer's policy: the one it asked for, else this interpreter's. A read that is
        no transfer (`request` None) hands the tensor over as it is (`native`), or meets Burn's
        arms under `legacy`."""
        if request is None:
            return Policy.LEGACY if self.legacy else Policy.NATIVE
        return request.policy or self.policy

    def _backend_arm(self, kind: Kind, action: str) -> Callable[[Any], Any]:
        """Burn's per-kind backend call, `B::{kind}_{action}` (`float_from_data`,
        `uint_to_device`, …). The quantized kind never gets here: the extension serves it."""
        return getattr(self.backend, f"{kind.value}_{action}")  # type: ignore[no-any-return]

    def extension(self, what: str) -> QuantizedExtension:
        if self.quantized is None:
            raise ExtensionMissingError(
                f"{what} on {self.device} needs the quantization extension, and none is "
                "was given (Runtime(quantized=...))"
            )
        return self.quantized

    # --- ops ---------------------------------------------------------------------------------

    def register_op(self, op: OperationIr) -> None:
        """Run one op: one arm per op type (interpreter.rs:216), then the owner's extra arms."""
        arm = self._arms.get(type(op))
        if arm is not None:
            arm(op)
            return
        extra = self._extra_arms.get(type(op))
        if extra is None:
            raise RouterLabError(f"no interpreter arm for op {op.name!r}; pass one to the "
                                 "Runtime: Runtime(arms={OpClass: arm})")
        extra(self, op)

    def _custom(self, op: CustomOp) -> None:
        """`OperationIr::Custom`: the registered handler, or Burn's panic (interpreter.rs:
        2107-2114)."""
        run_custom(self, self.custom_ops, op)

    def _init(self, op: InitOp) -> None:
        """Nothing to do: the data was registered by its own task (interpreter.rs:2115-2117)."""

    def _drop(self, op: DropOp) -> None:
        self.handles.remove_handle(op.tensor.id)

    def _add(self, op: AddOp) -> None:
        """`binary_float_ops!`: get lhs, get rhs, compute, register (ops/binary.rs:1-13)."""
        self._binary(op, self.backend.add)

    def _mul(self, op: MulOp) -> None:
        self._binary(op, self.backend.mul)

    def _matmul(self, op: MatmulOp) -> None:
        self._binary(op, self.backend.matmul)

    def _binary(self, op: AddOp | MulOp | MatmulOp,
                compute: Callable[[Primitive, Primitive], Primitive]) -> None:
        lhs = self.handles.get_tensor_handle(op.lhs)
        rhs = self.handles.get_tensor_handle(op.rhs)
        self.handles.register(op.out.id, compute(lhs, rhs))

    def _reshape(self, op: ReshapeOp) -> None:
        tensor = self.handles.get_tensor_handle(op.input)
        self.handles.register(op.out.id, self.backend.reshape(tensor, op.out.shape))

    def _swap_dims(self, op: SwapDimsOp) -> None:
        tensor = self.handles.get_tensor_handle(op.input)
        self.handles.register(op.out.id, self.backend.swap_dims(tensor, op.dim1, op.dim2))

    def _cast(self, op: CastOp) -> None:
        """Under `legacy`, an int-to-int cast is Burn's `int_cast`, which the router sends as
        `BaseInt(Cast)` (`crates/burn-router/src/ops/int_tensor.rs:1162-1171`) and the
        interpreter's int arm answers with `unreachable!()` (interpreter.rs:536): the session
        panics. (Burn's `Tensor::cast` to the dtype it already has submits nothing.) Float and
        bool casts have arms of their own and work; RouterLab's fix casts ints too."""
        if (self.legacy and op.input.dtype != op.out.dtype
                and kind_of(op.input.dtype) in _INT_KINDS and kind_of(op.out.dtype) in _INT_KINDS):
            raise BurnPanic(UNREACHABLE, SRC_INT_CAST)
        tensor = self.handles.get_tensor_handle(op.input)
        self.handles.register(op.out.id, self.backend.cast(tensor, op.out.dtype))

    def _quantize(self, op: QuantizeOp) -> None:
        if self.legacy:
            raise BurnTodo(SRC_QUANTIZE)
        self.extension("quantize").quantize(self, op)

    def _dequantize(self, op: DequantizeOp) -> None:
        if self.legacy:
            raise BurnTodo(SRC_QUANTIZE)
        self.extension("dequantize").dequantize(self, op)

    # --- transfer entry points ---------------------------------------------------------------

    def get_tensor_handle(self, tensor: TensorIr) -> Any:
        """The opaque handle, following the status rules (interpreter.rs:77-80)."""
        return self.handles.get_tensor_handle(tensor)

    def get_tensor(self, tensor: TensorIr,
                   request: TransferRequest | None = None) -> HandleKind:
        """Take the typed primitive for a same-peer transfer (interpreter.rs:88-100)."""
        policy = self.policy_for(request)
        kind = kind_of(tensor.dtype)
        if policy is Policy.LEGACY and kind in (Kind.UINT, Kind.QUANTIZED):
            raise BurnTodo(SRC_GET_TENSOR, f"Local transfer of {burn_debug(tensor.dtype)} "
                                           "tensors is not supported yet")
        if kind is Kind.QUANTIZED:
            return self.extension("get_tensor of a quantized tensor").get_tensor(
                self, tensor, policy)
        return HandleKind(kind, self.handles.get_tensor_handle(tensor))

    def register_tensor_to_device(self, id: TensorId, tensor: HandleKind,
                                  request: TransferRequest | None = None) -> None:
        """Move a primitive from another interpreter onto this device, register it
        (interpreter.rs:108-127)."""
        policy = self.policy_for(request)
        if tensor.kind is Kind.QUANTIZED:
            if policy is Policy.LEGACY:
                raise BurnTodo(SRC_TO_DEVICE,
                               "Local transfer of quantized tensors is not supported yet")
            self.extension("register_tensor_to_device of a quantized tensor") \
                .register_tensor_to_device(self, id, tensor, policy)
            return
        primitive = tensor.primitive
        moved = self._backend_arm(tensor.kind, "to_device")(primitive)
        if moved is not primitive:
            self.trace.record("copy", str(self.device), id, None, moved.nbytes,
                              f"{primitive.device} -> {self.device}")
        self.handles.register(id, moved)

    def register_tensor_data(self, id: TensorId, data: TensorData,
                             request: TransferRequest | None = None) -> None:
        """`register_tensor_data_id` (interpreter.rs:162-178): upload host bytes under `id`."""
        policy = self.policy_for(request)
        kind = kind_of(data.dtype)
        if policy is Policy.LEGACY and kind is Kind.UINT:
            self.trace.record("note", str(self.device), id, None, 0,
                              "legacy: uint data matches no branch; nothing registered "
                              f"({SRC}:162-178)")
            return
        if kind is Kind.QUANTIZED:
            if policy is Policy.LEGACY:
                raise BurnTodo(SRC_FROM_DATA)
            self.extension("register_tensor_data of quantized data").register_tensor_data(
                self, id, data, policy)
            return
        self.handles.register(id, self._backend_arm(kind, "from_data")(data))

    def read_tensor(self, tensor: TensorIr,
                    request: TransferRequest | None = None) -> TensorData:
        """`read_tensor_async` (interpreter.rs:2139-2176): take the primitive, read it back."""
        policy = self.policy_for(request)
        kind = kind_of(tensor.dtype)
        if kind is Kind.QUANTIZED:
            if policy is Policy.LEGACY:
                raise BurnTodo(SRC_READ_QFLOAT)
            return self.extension("read_tensor of a quantized tensor").read_tensor(
                self, tensor, policy)
        if kind is Kind.UINT and policy is Policy.LEGACY:
            raise BurnUnimplemented(SRC_READ_OTHER)
        into_data: Callable[[Primitive], TensorData] = self._backend_arm(kind, "into_data")
        return into_data(self.handles.get_tensor_handle(tensor))

    def register_alias(self, new_id: TensorId, src_id: TensorId) -> None:
        """A second id over the same handle; it lives until both are freed (interpreter.rs:151)."""
        handle = self.handles.get_handle_ref(src_id)
        if handle is None:
            raise BurnPanic("alias source tensor must be materialized before it is aliased",
                            SRC_ALIAS)
        self.handles.register(new_id, handle)

