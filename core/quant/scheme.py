"""The quantization scheme space, as Burn spells it (docs/burn.md section 12).

Burn re-exports these types from cubecl-common (`crates/burn-std/src/tensor/quantization.rs:3-6`,
`cubecl@4834896:crates/cubecl-common/src/quant/scheme.rs`). The model keeps their shape: a
`QuantScheme` is a value type, a store, a mode and two optional scale *levels* (per tensor,
per block); a scheme with no level resolves to one f32 per-tensor scale, and a scheme with both is
*two-level* (block scales normalised by an f32 global). Every class here is frozen and hashable so
that `QFloat(scheme)` can be a dtype and a dictionary key, as `DType::QFloat(QuantScheme)` is.

One deliberate extension: `store` may be `None`, meaning "the device default". Burn's schemes
always carry a store, but the scheme a user writes (`q8s`) is completed by the device's
`QuantConfig` (Native on Flex/NdArray, `PackedU32(0)` elsewhere); `QuantScheme.resolve(profile)`
performs that completion.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..base.choices import IdentityHashEnum
from ..base.errors import QuantizationError

if TYPE_CHECKING:
    from ..base.profiles import Profile

MAX_BLOCK_DIMS = 5
"""`BlockSize` stores at most five extents (`MAX_DIMS` in cubecl-common's scheme.rs)."""
MAX_BLOCK_EXTENT = 255
"""Each extent is a `u8`, so no block is longer than 255 along any axis."""
F16_MAX = 65504.0


class QuantValue(IdentityHashEnum):
    """The logical type of a quantized value: bits and the integer range `[a, b]` it clamps to."""

    Q8F = "q8f"
    Q8S = "q8s"
    Q4F = "q4f"
    Q4S = "q4s"
    Q2F = "q2f"
    Q2S = "q2s"
    E4M3 = "e4m3"
    E5M2 = "e5m2"
    E2M1 = "e2m1"

    @property
    def bits(self) -> int:
        """`QuantValue::size_bits`."""
        return _VALUE_BITS[self]

    @property
    def range(self) -> tuple[float, float]:
        """`QuantValue::range`: `(a, b)`; the "S" values drop the most negative code."""
        return _VALUE_RANGE[self]

    @property
    def is_float(self) -> bool:
        """Minifloat codes (E4M3, E5M2, E2M1): representable in a scheme, never quantized here."""
        return self in (QuantValue.E4M3, QuantValue.E5M2, QuantValue.E2M1)

    @property
    def native_packing(self) -> int:
        """Values per native element: 2 for E2M1 (`e2m1x2`), otherwise 1."""
        return 2 if self is QuantValue.E2M1 else 1


_VALUE_BITS = {
    QuantValue.Q8F: 8,
    QuantValue.Q8S: 8,
    QuantValue.E4M3: 8,
    QuantValue.E5M2: 8,
    QuantValue.Q4F: 4,
    QuantValue.Q4S: 4,
    QuantValue.E2M1: 4,
    QuantValue.Q2F: 2,
    QuantValue.Q2S: 2,
}
_VALUE_RANGE = {
    QuantValue.Q8F: (-128.0, 127.0),
    QuantValue.Q8S: (-127.0, 127.0),
    QuantValue.Q4F: (-8.0, 7.0),
    QuantValue.Q4S: (-7.0, 7.0),
    QuantValue.Q2F: (-2.0, 1.0),
    QuantValue.Q2S: (-1.0, 1.0),
    QuantValue.E4M3: (-448.0, 448.0),
    QuantValue.E5M2: (-57344.0, 57344.0),
    QuantValue.E2M1: (-6.0, 6.0),
}


class StoreKind(IdentityHashEnum):
    NATIVE = "native"
    PACKED_U32 = "packed-u32"
    PACKED_NATIVE = "packed-native"


@dataclass(frozen=True)
class QuantStore:
    """How values are stored: one per element (`Native`), packed into u32 words along `dim`
    (`PackedU32(dim)`), or in a hardware pack such as e2m1x2 (`PackedNative(dim)`).

    `dim` counts from the innermost dimension: 0 is the last axis of the tensor.
    """

    kind: StoreKind
    dim: int = 0

    def __post_init__(self) -> None:
        if self.kind is StoreKind.NATIVE and self.dim != 0:
            raise QuantizationError("a Native store has no packing dimension")
        if self.dim < 0:
            raise QuantizationError(f"packing dimension must be >= 0, got {self.dim}")

    @classmethod
    def native(cls) -> QuantStore:
        return cls(StoreKind.NATIVE)

    @classmethod
    def packed_u32(cls, dim: int = 0) -> QuantStore:
        return cls(StoreKind.PACKED_U32, dim)

    @classmethod
    def packed_native(cls, dim: int = 0) -> QuantStore:
        return cls(StoreKind.PACKED_NATIVE, dim)

    @property
    def is_packed(self) -> bool:
        return self.kind is not StoreKind.NATIVE

    def size_bits(self, value: QuantValue) -> int:
        """`QuantStore::size_bits`: bits of one storage element."""
        if self.kind is StoreKind.NATIVE:
            return value.bits
        if self.kind is StoreKind.PACKED_NATIVE:
            return value.bits * value.native_packing
        return 32


class QuantMode(IdentityHashEnum):
    """Only symmetric quantization is modelled (`Lookup` codebooks never travel as QFloat)."""

    SYMMETRIC = "symmetric"


class ScaleDtype(IdentityHashEnum):
    """The dtype a scale level stores its scales in (`ScaleDtype`)."""

    F32 = "f32"
    F16 = "f16"
    BF16 = "bf16"
    UE8M0 = "ue8m0"
    UE4M3 = "ue4m3"

    @property
    def size(self) -> int:
        """Bytes per stored scale (`scale_size` in burn-std quantization.rs)."""
        return {ScaleDtype.F32: 4, ScaleDtype.F16: 2, ScaleDtype.BF16: 2}.get(self, 1)

    @property
    def max_representable(self) -> float:
        """`ScaleDtype::max_representable` (cubecl-common scheme.rs), exactly as f32 holds it."""
        return _SCALE_MAX[self]


_SCALE_MAX = {
    ScaleDtype.F32: 3.4028234663852886e38,
    ScaleDtype.F16: F16_MAX,
    ScaleDtype.BF16: 3.3895313892515355e38,
    ScaleDtype.UE8M0: 2.0**127,
    ScaleDtype.UE4M3: 448.0,
}


@dataclass(frozen=True)
class BlockSize:
    """A rank-relative rectangular block, canonical as Burn's `BlockSize::new` makes it.

    Leading 1s are dropped (`[1, 32] == [32]`); missing leading dims read as 1
    (`dims_for(rank)`, Burn's `to_dim_vec`). Each extent is 1..=255, at most five of them.
    """

    dims: tuple[int, ...]

    def __post_init__(self) -> None:
        dims = tuple(int(d) for d in self.dims)
        for extent in dims:
            if not 1 <= extent <= MAX_BLOCK_EXTENT:
                raise QuantizationError(
                    f"block extent {extent} is out of range: each extent is a u8 in "
                    f"1..={MAX_BLOCK_EXTENT}"
                )
        skip = next((i for i, d in enumerate(dims) if d != 1), len(dims))
        dims = dims[skip:]
        if len(dims) > MAX_BLOCK_DIMS:
            raise QuantizationError(
                f"block {list(dims)} has {len(dims)} dims; Burn's BlockSize holds at most "
                f"{MAX_BLOCK_DIMS}"
            )
        object.__setattr__(self, "dims", dims)

    def dims_for(self, rank: int) -> tuple[int, ...]:
        """The block as `rank` extents: leading dims filled with 1; a block with more extents than
        `rank` keeps its *first* `rank` (Burn's `to_dim_vec` copies `storage[..len]`, cubecl-common
        quant/scheme.rs:568-574 at Burn's cubecl pin): `[4, 32]` at rank 1 is `[4]`."""
        kept = self.dims[: min(rank, len(self.dims))]
        return (1,) * (rank - len(kept)) + kept

    def num_blocks(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """`ceil(dim / extent)` per axis: a partial block still gets a scale."""
        return tuple(
            -(-dim // extent) for dim, extent in zip(shape, self.dims_for(len(shape)), strict=True)
        )

    def divides(self, shape: tuple[int, ...]) -> bool:
        """Whether every axis is a whole number of blocks (`BlockLayout::divides`)."""
        return all(
            dim % extent == 0 for dim, extent in zip(shape, self.dims_for(len(shape)), strict=True)
        )


@dataclass(frozen=True)
class BlockScale:
    """The per-block level: one scale per block, stored as `dtype`."""

    size: BlockSize
    dtype: ScaleDtype


@dataclass(frozen=True)
class QuantScheme:
    """`QuantScheme {value, store, mode, tensor, block}`; `store=None` means "device default".

    `tensor` and `block` are the two optional levels, set in any order. Like Burn, a scheme with
    no level at all *resolves* to a per-tensor F32 scale without storing it, so
    `QuantScheme(v) != QuantScheme(v).per_tensor(F32)`.
    """

    value: QuantValue = QuantValue.Q8F
    store: QuantStore | None = None
    mode: QuantMode = QuantMode.SYMMETRIC
    tensor: ScaleDtype | None = None
    block: BlockScale | None = None

    # --- builders (Burn's with_* / per_* ) ---
    def with_store(self, store: QuantStore | None) -> QuantScheme:
        """This scheme in `store`; itself when it already is (an arrival asks on every move,
        and a later `==` against the same object is an identity check)."""
        return self if store == self.store else replace(self, store=store)

    def per_tensor(self, dtype: ScaleDtype) -> QuantScheme:
        return replace(self, tensor=dtype)

    def per_block(
        self, block: BlockSize | tuple[int, ...] | list[int] | int, dtype: ScaleDtype
    ) -> QuantScheme:
        size = (
            block
            if isinstance(block, BlockSize)
            else BlockSize((block,) if isinstance(block, int) else tuple(block))
        )
        return replace(self, block=BlockScale(size, dtype))

    def resolve(self, profile: Profile) -> QuantScheme:
        """Fill an omitted store with the profile's default, as a device's `QuantConfig` does
        (`crates/burn-flex/src/backend.rs:47-57`: Native on Flex/NdArray; `PackedU32(0)` is the
        `QuantScheme::default()` store every other backend keeps)."""
        if self.store is not None:
            return self
        default = profile.spec.default_store
        return self.with_store(
            QuantStore.native() if default == "native" else QuantStore.packed_u32(0)
        )

    # --- level resolution (cubecl-common scheme.rs:96-130) ---
    def tensor_scale(self) -> ScaleDtype | None:
        """The per-tensor level; a scheme with no level at all resolves to F32 here."""
        if self.tensor is None and self.block is None:
            return ScaleDtype.F32
        return self.tensor

    def block_size(self) -> BlockSize | None:
        return None if self.block is None else self.block.size

    def scale_dtype(self) -> ScaleDtype:
        """The innermost level's dtype: the dtype of the scales stored per position."""
        if self.block is not None:
            return self.block.dtype
        return self.tensor if self.tensor is not None else ScaleDtype.F32

    def num_levels(self) -> int:
        return (self.block is not None) + (self.tensor_scale() is not None)

    def global_scale_dtype(self) -> ScaleDtype | None:
        """The dtype of the global scale block scales are normalised by, for a two-level scheme
        (`global_scale_dtype` in burn-std quantization.rs)."""
        return self.tensor if self.block is not None else None

    @property
    def is_two_level(self) -> bool:
        return self.global_scale_dtype() is not None

    # --- storage quantities (cubecl-common scheme.rs:150-170) ---
    def resolved_store(self) -> QuantStore:
        if self.store is None:
            raise QuantizationError(
                f"scheme {self} has no store yet; resolve it against a backend profile first"
            )
        return self.store

    def size_bits_stored(self) -> int:
        return self.resolved_store().size_bits(self.value)

    def num_quants(self) -> int:
        """Values per storage element: Q8/Q4/Q2 in PackedU32 hold 4/8/16; Native holds 1."""
        return self.size_bits_stored() // self.value.bits

    def __str__(self) -> str:
        """The canonical string, which `notation.parse_scheme` reads back."""
        parts = [self.value.value]
        if self.block is not None:
            dims = self.block.size.dims or (1,)
            parts.append("block=" + "x".join(str(d) for d in dims))
            if self.block.dtype is not ScaleDtype.F32:
                parts.append(f"scale={self.block.dtype.value}")
            if self.tensor is not None:
                parts.append(f"global={self.tensor.value}")
        elif self.tensor is not None:
            parts.append(f"scale={self.tensor.value}")
        if self.store is not None:
            store = self.store.kind.value
            if self.store.is_packed and self.store.dim:
                store += f"@{self.store.dim}"
            parts.append(f"store={store}")
        return ":".join(parts)


def check_quantizable(scheme: QuantScheme) -> None:
    """Raise the specific reason Burn's `quantizable` would answer false
    (`crates/burn-std/src/tensor/quantization.rs:113-131`)."""
    if scheme.scale_dtype() is ScaleDtype.UE8M0:
        raise QuantizationError(
            "UE8M0 scales are not yet supported: Burn has no round-up rule for them, so it cannot "
            "store the scale it divides by (burn-std quantization.rs scale_to_dtype)"
        )
    global_dtype = scheme.global_scale_dtype()
    if scheme.block is not None and global_dtype is not None:
        if scheme.block.dtype.max_representable > F16_MAX:
            raise QuantizationError(
                f"two-level scheme {scheme}: block scales in {scheme.block.dtype.value} reach "
                "f32's range, which a per-tensor scale cannot absorb (block dtype max must be "
                "<= f16::MAX)"
            )
        if global_dtype is not ScaleDtype.F32:
            raise QuantizationError(
                f"two-level scheme {scheme}: a two-level scheme stores its per-tensor scale as "
                f"f32, got {global_dtype.value}"
            )


def check_global_scale(scheme: QuantScheme, given: bool) -> None:
    """A two-level scheme takes a per-tensor global scale and every other scheme takes none."""
    if scheme.is_two_level != given:
        need = "requires" if scheme.is_two_level else "does not take"
        raise QuantizationError(f"scheme {scheme} {need} a per-tensor global scale")


def quantizable(scheme: QuantScheme) -> bool:
    """Burn's `quantizable(scheme)`: what a backend answers through `supports_dtype`."""
    try:
        check_quantizable(scheme)
    except QuantizationError:
        return False
    return True
