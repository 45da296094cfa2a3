"""What a router device *advertises* for a dtype, beside what it can really do.

Burn lets a program ask before it uses a dtype: `Backend::dtype_usage` (a set of `Storage`,
`Arithmetic`, `Accelerated`) and `supports_dtype` (whether that set holds both `Storage` and
`Arithmetic`, `crates/burn-backend/src/backend/base.rs:230-244,466-468`). A router device does not
answer for itself: it forwards the question to its server's backend
(`crates/burn-router/src/backend.rs:55-58`, `crates/burn-router/src/interpreter.rs:2189-2191`).
So a router device on a Flex server claims `Storage` for every quantizable `QFloat`, one on an
NdArray server claims general support for Q8, and one on a CubeCL (CUDA) server claims `Storage`
*and* `Arithmetic` for a packed or 8-bit `QFloat`, so `supports_dtype` is true: the false
advertisement Burn issue #5005 reports. Meanwhile every quantized method of the router itself is
`unimplemented!()` (`crates/burn-router/src/ops/qtensor.rs:11-62`). A guard that trusted the
advertisement would let a quantized move through to the panic; RouterLab's guard asks
`is_quantized_handle` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.devices import Device
from ..base.dtypes import AnyDType, DType, QFloat
from ..base.errors import BurnPanic
from ..base.profiles import Profile
from ..base.view import Cell, TableView, Viewable
from ..quant import QuantScheme, check_quantizable
from ..quant.scheme import QuantMode, QuantValue, StoreKind

STORAGE, ARITHMETIC = "storage", "arithmetic"
GENERAL = frozenset({STORAGE, ARITHMETIC})
"""`DTypeUsage::general()`: what `supports_dtype` requires."""

_NDARRAY_Q = {QuantValue.Q8F, QuantValue.Q8S}
_NDARRAY_TESTS_Q = _NDARRAY_Q | {QuantValue.Q4F, QuantValue.Q4S, QuantValue.Q2F, QuantValue.Q2S}

SOURCES = {
    Profile.FLEX: "crates/burn-flex/src/backend.rs:138-163",
    Profile.NDARRAY: "crates/burn-ndarray/src/backend.rs:83-120",
    Profile.NDARRAY_TESTS: "crates/burn-ndarray/src/backend.rs:83-120",
    Profile.CUBECL: "crates/burn-cubecl/src/backend.rs:167-200",
}

ISSUE_5005 = "https://github.com/tracel-ai/burn/issues/5005"
SRC_STORAGE_TYPE = "crates/burn-backend/src/cubecl.rs"
SRC_CUDA_TYPES = "cubecl:crates/cubecl-cpp/src/shared/base.rs:322-361"


def _quantizable(scheme: QuantScheme) -> bool:
    try:
        check_quantizable(scheme)
    except Exception:  # noqa: BLE001 - any refusal means "not quantizable"
        return False
    return True


def dtype_usage(profile: Profile, dtype: AnyDType) -> frozenset[str]:
    """The set the backend behind `profile` answers (empty: not usable at all).

    A CubeCL device answers from the `TypeUsage` of the scheme's *storage* type
    (`crates/burn-cubecl/src/backend.rs:167-200`): `Storage` when it is a buffer and conversion
    type, `Arithmetic` when it is an arithmetic one. RouterLab answers as a CUDA device does,
    whose u32 and i8 are full scalar types (`TypeUsage::all()`) and whose E4M3/E5M2 are buffer
    and conversion types only (`cubecl-cpp/src/shared/base.rs:322-361` at CubeCL's pin); FP4
    (`E2M1x2`) is left out (Blackwell only), and so is `Accelerated` (the MMA configurations).
    A storage type Burn cannot name panics, as Burn's `dtype_to_storage_type` does."""
    if isinstance(dtype, QFloat):
        scheme = dtype.scheme
        if not isinstance(scheme, QuantScheme) or not _quantizable(scheme):
            return frozenset()
        if profile.is_ndarray:
            values = _NDARRAY_TESTS_Q if profile is Profile.NDARRAY_TESTS else _NDARRAY_Q
            native = scheme.resolved_store().kind is StoreKind.NATIVE
            ok = scheme.mode is QuantMode.SYMMETRIC and scheme.value in values and native
            return GENERAL if ok else frozenset()
        if profile is Profile.CUBECL:
            return _cubecl_qfloat_usage(scheme)
        return frozenset({STORAGE})
    if profile.is_ndarray and dtype in (DType.F16, DType.BF16):
        return frozenset()
    return GENERAL


def _cubecl_qfloat_usage(scheme: QuantScheme) -> frozenset[str]:
    """`dtype_to_storage_type` (`crates/burn-backend/src/cubecl.rs:79-113`), then the CUDA
    `TypeUsage` of that type."""
    store = scheme.resolved_store().kind
    value = scheme.value
    if store is StoreKind.PACKED_U32:
        return GENERAL  # u32
    if store is StoreKind.NATIVE:
        if value in (QuantValue.Q8F, QuantValue.Q8S):
            return GENERAL  # i8
        if value in (QuantValue.E4M3, QuantValue.E5M2):
            return frozenset({STORAGE})  # Conversion | Buffer, no Arithmetic
        raise BurnPanic("Can't store native sub-byte values", f"{SRC_STORAGE_TYPE}:89")
    if value is QuantValue.E2M1:
        return frozenset()  # E2M1x2: registered on Blackwell (sm_100+) only
    raise BurnPanic(f"{value.name} doesn't support native packing", f"{SRC_STORAGE_TYPE}:95")


@dataclass(frozen=True)
class Advertisement(Viewable):
    """A router device's answer for one dtype, and what the router really does with it."""

    device: Device
    dtype: AnyDType
    usage: frozenset[str]
    panic: BurnPanic | None = None
    """The server backend's own panic while answering (CubeCL cannot name a native sub-byte
    storage type); through a router, that panic would end the session that asked."""

    @property
    def supports(self) -> bool:
        """`supports_dtype`: the usage holds `Storage` and `Arithmetic`."""
        return GENERAL <= self.usage

    @property
    def claims(self) -> bool:
        """Whether the answer suggests the dtype can be used (any usage at all)."""
        return bool(self.usage)

    @property
    def router_can(self) -> bool:
        """Whether the router at 2c06be3 can create, move or read a tensor of this dtype."""
        return not isinstance(self.dtype, QFloat)

    @property
    def false(self) -> bool:
        """The router claims a usage it cannot honour."""
        return self.claims and not self.router_can

    @property
    def issue_5005(self) -> bool:
        """`supports_dtype(QFloat)` true on a CubeCL device: the false advertisement of Burn
        issue #5005 (reported on CUDA)."""
        return (self.supports and isinstance(self.dtype, QFloat)
                and self.device.profile is Profile.CUBECL)

    def line(self) -> str:
        source = f"dtype_usage forwarded from its {self.device.profile} server, " \
                 f"{SOURCES[self.device.profile]}"
        if self.panic is not None:
            return (f"{self.device} cannot answer dtype_usage for {self.dtype}: its server "
                    f"panics {self.panic.message!r} ({self.panic.source}), which would end the "
                    f"session that asked ({source})")
        said = ", ".join(sorted(self.usage)) or "nothing"
        truth = ("every router quantized op is unimplemented!() at 2c06be3 "
                 "(crates/burn-router/src/ops/qtensor.rs:11-62)" if not self.router_can
                 else "the router honours it")
        issue = (f"; supports_dtype is true, the false advertisement of Burn issue #5005 "
                 f"({ISSUE_5005})" if self.issue_5005 else "")
        return f"{self.device} advertises {said} for {self.dtype} ({source}); {truth}{issue}"

    def view(self) -> TableView:
        rows: list[list[Cell]] = [["dtype", str(self.dtype)],
                ["dtype_usage (forwarded)", ", ".join(sorted(self.usage)) or "—"],
                ["supports_dtype", self.supports],
                ["router can use it at 2c06be3", self.router_can],
                ["backend's answer", SOURCES[self.device.profile]]]
        if self.panic is not None:
            rows.append(["server panics", f"{self.panic.message} ({self.panic.source})"])
        if self.issue_5005:
            rows.append(["Burn issue", f"#5005: supports_dtype(QFloat) is true on CUDA "
                                       f"({ISSUE_5005})"])
        return TableView(f"What {self.device} advertises", ["what", "value"], rows,
                         styles={3: "error"} if self.false else {})


def advertise(device: Device, dtype: AnyDType) -> Advertisement:
    """What `device` answers to `dtype_usage(dtype)` through the router (a backend panic is
    kept as data: nothing is asked of a session here)."""
    try:
        return Advertisement(device, dtype, dtype_usage(device.profile, dtype))
    except BurnPanic as panic:
        return Advertisement(device, dtype, frozenset(), panic)
