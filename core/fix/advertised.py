"""What a router device *advertises* for a dtype, beside what it can really do.

Burn lets a program ask before it uses a dtype: `Backend::dtype_usage` (a set of `Storage`,
`Arithmetic`, `Accelerated`) and `supports_dtype` (whether that set holds both `Storage` and
`Arithmetic`, `crates/burn-backend/src/backend/base.rs:230-244,466-468`). A router device does not
answer for itself: it forwards the question to its server's backend
(`crates/burn-router/src/backend.rs:54-57`, `crates/burn-router/src/interpreter.rs:2189-2191`).
So a router device on a Flex server claims `Storage` for every quantizable `QFloat` and one on an
NdArray server claims general support for Q8, while every quantized method of the router itself is
`unimplemented!()` (`crates/burn-router/src/ops/qtensor.rs:11-62`). Burn issue #5005 reports the
same false advertisement on CubeCL. A guard that trusted the advertisement would let a quantized
move through to the panic; RouterLab's guard asks `is_quantized_handle` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..devices import Device
from ..dtypes import AnyDType, DType, QFloat
from ..profiles import Profile
from ..quant import QuantScheme, check_quantizable
from ..quant.scheme import QuantMode, QuantValue, StoreKind
from ..view import Cell, TableView, Viewable

STORAGE, ARITHMETIC = "storage", "arithmetic"
GENERAL = frozenset({STORAGE, ARITHMETIC})
"""`DTypeUsage::general()`: what `supports_dtype` requires."""

_NDARRAY_Q = {QuantValue.Q8F, QuantValue.Q8S}
_NDARRAY_TESTS_Q = _NDARRAY_Q | {QuantValue.Q4F, QuantValue.Q4S, QuantValue.Q2F, QuantValue.Q2S}

SOURCES = {
    Profile.FLEX: "crates/burn-flex/src/backend.rs:138-163",
    Profile.NDARRAY: "crates/burn-ndarray/src/backend.rs:83-120",
    Profile.NDARRAY_TESTS: "crates/burn-ndarray/src/backend.rs:83-120",
    Profile.CUBECL: "crates/burn-cubecl/src/backend.rs:167-190",
}


def _quantizable(scheme: QuantScheme) -> bool:
    try:
        check_quantizable(scheme)
    except Exception:  # noqa: BLE001 - any refusal means "not quantizable"
        return False
    return True


def dtype_usage(profile: Profile, dtype: AnyDType) -> frozenset[str]:
    """The set the backend behind `profile` answers (empty: not usable at all).

    CubeCL asks the device's properties; RouterLab answers as for a GPU whose properties allow
    the scheme's storage type (`Storage` only for `QFloat`, as Flex does)."""
    if isinstance(dtype, QFloat):
        scheme = dtype.scheme
        if not isinstance(scheme, QuantScheme) or not _quantizable(scheme):
            return frozenset()
        if profile.is_ndarray:
            values = _NDARRAY_TESTS_Q if profile is Profile.NDARRAY_TESTS else _NDARRAY_Q
            native = scheme.resolved_store().kind is StoreKind.NATIVE
            ok = scheme.mode is QuantMode.SYMMETRIC and scheme.value in values and native
            return GENERAL if ok else frozenset()
        return frozenset({STORAGE})
    if profile.is_ndarray and dtype in (DType.F16, DType.BF16):
        return frozenset()
    return GENERAL


@dataclass(frozen=True)
class Advertisement(Viewable):
    """A router device's answer for one dtype, and what the router really does with it."""

    device: Device
    dtype: AnyDType
    usage: frozenset[str]

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

    def line(self) -> str:
        said = ", ".join(sorted(self.usage)) or "nothing"
        truth = ("every router quantized op is unimplemented!() at 2c06be3 "
                 "(crates/burn-router/src/ops/qtensor.rs:11-62)" if not self.router_can
                 else "the router honours it")
        return (f"{self.device} advertises {said} for {self.dtype} (dtype_usage forwarded from "
                f"its {self.device.profile} server, {SOURCES[self.device.profile]}); {truth}")

    def view(self) -> TableView:
        rows: list[list[Cell]] = [["dtype", str(self.dtype)],
                ["dtype_usage (forwarded)", ", ".join(sorted(self.usage)) or "—"],
                ["supports_dtype", self.supports],
                ["router can use it at 2c06be3", self.router_can],
                ["backend's answer", SOURCES[self.device.profile]]]
        return TableView(f"What {self.device} advertises", ["what", "value"], rows,
                         styles={3: "error"} if self.false else {})


def advertise(device: Device, dtype: AnyDType) -> Advertisement:
    """What `device` answers to `dtype_usage(dtype)` through the router."""
    return Advertisement(device, dtype, dtype_usage(device.profile, dtype))
