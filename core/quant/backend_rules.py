"""What each backend profile accepts, and the scheme its quantized primitive ends up carrying.

The three Burn backends agree on the formula but not on which schemes they take or keep:
- NdArray quantizes only the Native store, and only Q8F/Q8S/Q2S per tensor and Q8F/Q8S per block
  (`crates/burn-ndarray/src/ops/qtensor.rs:104-169`); anything else is
  `unimplemented!("Quantization not supported for scheme {scheme:?}")` (:169). Built with the
  test-only `export_tests` feature (profile `ndarray-tests`) it also takes Q4F/Q4S/Q2F per tensor
  and any Q4/Q2 per block (:115-122, :143-150), held one i8 per value: the reference Burn's
  backend tests compare GPU results against. Either build's `q_from_data` reads only Q8F/Q8S
  (:36-72), so a Q4/Q2 or minifloat tensor cannot arrive on it (`accepts_arrival`).
- Flex quantizes any integer value and rewrites the store to Native on the primitive, silently,
  whatever store was asked for, PackedU32 or PackedNative (`crates/burn-flex/src/ops/qtensor.rs:62,
  141, 200`): the dtype that comes back can differ from the scheme asked for.
- CubeCL packs into u32 words along the last axis, which must be a multiple of the values per word
  ("Can't store in u32", `crates/burn-cubecl/src/ops/qtensor.rs:86-89`); with blocks, the packed
  kernel also needs the innermost block extent to be a multiple of it, so no word straddles two
  blocks (`check_block_size_compat`, cubek-quant). Native sub-byte values cannot be stored
  (:97-103), and only E2M1 packs natively ("{value:?} doesn't support native packing", :105-107).
"""
from __future__ import annotations

from ..base.errors import BurnUnimplemented, QuantizationError
from ..base.profiles import Profile
from .debug import scheme_debug
from .scheme import QuantScheme, QuantStore, QuantValue, StoreKind

NDARRAY_QTENSOR = "crates/burn-ndarray/src/ops/qtensor.rs"

_NDARRAY_PER_TENSOR = frozenset({QuantValue.Q8F, QuantValue.Q8S, QuantValue.Q2S})
_NDARRAY_PER_BLOCK = frozenset({QuantValue.Q8F, QuantValue.Q8S})
_NDARRAY_TESTS_VALUES = frozenset({QuantValue.Q8F, QuantValue.Q8S, QuantValue.Q4F, QuantValue.Q4S,
                                   QuantValue.Q2F, QuantValue.Q2S})
_NDARRAY_ARRIVALS = frozenset({QuantValue.Q8F, QuantValue.Q8S})


class BackendUnsupported(BurnUnimplemented, QuantizationError):
    """A backend's own `unimplemented!` for a scheme it does not handle: Burn's text, and still a
    `QuantizationError` for the callers that refuse a layout before anything is submitted."""


def ndarray_quantizes(scheme: QuantScheme, profile: Profile) -> bool:
    """Whether NdArray's `quantize` has an arm for `scheme` (`qtensor.rs:104-169`): Symmetric,
    Native, and a value its build lists per tensor or per block."""
    if scheme.resolved_store().kind is not StoreKind.NATIVE:
        return False
    if profile is Profile.NDARRAY_TESTS:
        return scheme.value in _NDARRAY_TESTS_VALUES
    allowed = _NDARRAY_PER_TENSOR if scheme.block is None else _NDARRAY_PER_BLOCK
    return scheme.value in allowed


def accepts_arrival(profile: Profile, scheme: QuantScheme) -> bool:
    """Whether `q_from_data` on `profile` reads a tensor quantized in `scheme`.

    NdArray (both builds) reads only Q8F/Q8S; every sub-byte or minifloat value is
    `unimplemented!("from_data not supported for scheme …")` (`qtensor.rs:36-72`). Dispatch's
    cross-backend `q_to_device` ends in exactly this call (`crates/burn-dispatch/src/ops/
    qtensor.rs:36-50`). Flex reads whatever the byte reader reads (`crates/burn-flex/src/ops/
    qtensor.rs:43-65`); CubeCL's layout limits are `stored_scheme`'s.
    """
    return scheme.value in _NDARRAY_ARRIVALS if profile.is_ndarray else True


def check_arrival(profile: Profile, scheme: QuantScheme) -> None:
    """`accepts_arrival`, or the backend's own panic text for the scheme it refuses."""
    if profile.is_ndarray and not accepts_arrival(profile, scheme):
        raise BackendUnsupported(f"{NDARRAY_QTENSOR}:72",
                                 f"from_data not supported for scheme {scheme_debug(scheme)}")


def e_value_refusal(scheme: QuantScheme) -> str:
    """Why RouterLab does not quantize minifloat (E4M3, E5M2, E2M1) values, true to the store:
    Burn's byte reader reads Native E-values as i8 (`crates/burn-std/src/tensor/quantization.rs:
    330`); only packed ones are its `unimplemented!` (:344-348)."""
    reader = ("Burn's byte reader would read them back as i8 integers "
              "(crates/burn-std/src/tensor/quantization.rs:330)"
              if scheme.resolved_store().kind is StoreKind.NATIVE else
              "Burn's byte reader leaves packed E-values unimplemented! "
              "(crates/burn-std/src/tensor/quantization.rs:344-348)")
    return (f"{scheme.value.name} values are part of Burn's scheme space but not quantized here: "
            "NdArray refuses them, Flex would round them to integers and saturate them into i8 "
            f"(crates/burn-flex/src/ops/qtensor.rs:97-113), and {reader}")


def stored_scheme(scheme: QuantScheme, profile: Profile, shape: tuple[int, ...]) -> QuantScheme:
    """The scheme a quantize on `profile` stores, or the error Burn raises for it.

    `scheme` must already be resolved against `profile` (it has a store).
    """
    if not shape:
        raise QuantizationError("a quantized tensor needs at least one dimension")
    if profile.is_ndarray and not ndarray_quantizes(scheme, profile):
        raise BackendUnsupported(f"{NDARRAY_QTENSOR}:169",
                                 f"Quantization not supported for scheme {scheme_debug(scheme)}")
    if scheme.value.is_float:
        raise QuantizationError(e_value_refusal(scheme))
    store = scheme.resolved_store()
    if profile is Profile.FLEX:
        return scheme.with_store(QuantStore.native())
    if profile.is_ndarray:
        return scheme
    return _cubecl_scheme(scheme, store, shape)


def _cubecl_scheme(scheme: QuantScheme, store: QuantStore, shape: tuple[int, ...]) -> QuantScheme:
    if store.kind is StoreKind.NATIVE:
        if scheme.value.bits < 8:
            raise QuantizationError(
                f"{scheme}: Can't store native sub-byte values (burn-cubecl ops/qtensor.rs); "
                "use store=packed-u32"
            )
        return scheme
    if store.kind is not StoreKind.PACKED_U32:
        raise QuantizationError(f"{scheme}: {scheme.value.name} doesn't support native packing")
    if store.dim != 0:
        raise QuantizationError(
            f"{scheme}: a fresh quantize packs along the innermost axis; PackedU32({store.dim}) "
            "only arises from permuting a PackedU32(0) tensor (CubeCL always divides the last dim)"
        )
    per_word = scheme.num_quants()
    if shape[-1] % per_word:
        raise QuantizationError(
            f"Can't store in u32: the last dim {shape[-1]} of shape {list(shape)} is not a "
            f"multiple of {per_word} {scheme.value.bits}-bit values per word "
            "(burn-cubecl ops/qtensor.rs new_quantized)"
        )
    block = scheme.block_size()
    if block is not None:
        innermost = block.dims[-1] if block.dims else 1
        if innermost % per_word:
            raise QuantizationError(
                f"Block size must be divisible by {per_word}, got block_size={innermost}: a block "
                f"of {innermost} cannot hold a whole u32 word of {per_word} "
                f"{scheme.value.bits}-bit "
                "values (cubek-quant check_block_size_compat)"
            )
    return scheme
