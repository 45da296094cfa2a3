"""What each backend profile accepts, and the scheme its quantized primitive ends up carrying.

The three Burn backends agree on the formula but not on which schemes they take or keep:
- NdArray quantizes only the Native store (everything else, PackedNative included, is
  `unimplemented!`, `crates/burn-ndarray/src/ops/qtensor.rs:82-169`); Q4/Q2 values are the
  `export_tests` reference that Burn's backend tests compare GPU results against, held one i8 per
  value.
- Flex quantizes any integer value and rewrites the store to Native on the primitive, silently,
  whatever store was asked for, PackedU32 or PackedNative (`crates/burn-flex/src/ops/qtensor.rs:62,
  141, 200`): the dtype that comes back can differ from the scheme asked for.
- CubeCL packs into u32 words along the last axis, which must be a multiple of the values per word
  ("Can't store in u32", `crates/burn-cubecl/src/ops/qtensor.rs:70-216`); with blocks, the packed
  kernel also needs the innermost block extent to be a multiple of it, so no word straddles two
  blocks (`check_block_size_compat`, cubek-quant). Native sub-byte values cannot be stored, and
  only E2M1 packs natively ("{value:?} doesn't support native packing",
  `crates/burn-cubecl/src/ops/qtensor.rs:105-107`).
"""

from __future__ import annotations

from routerlab.core.errors import QuantizationError
from routerlab.core.profiles import Profile
from routerlab.core.quant.scheme import QuantScheme, QuantStore, StoreKind


def stored_scheme(scheme: QuantScheme, profile: Profile, shape: tuple[int, ...]) -> QuantScheme:
    """The scheme a quantize on `profile` stores, or the error Burn raises for it.

    `scheme` must already be resolved against `profile` (it has a store).
    """
    if not shape:
        raise QuantizationError("a quantized tensor needs at least one dimension")
    if scheme.value.is_float:
        raise QuantizationError(
            f"{scheme.value.name} values are part of Burn's scheme space but not quantized here: "
            "NdArray refuses them, Flex would saturate them into i8, and Burn's byte readers "
            "leave them unimplemented!"
        )
    store = scheme.resolved_store()
    if profile is Profile.FLEX:
        return scheme.with_store(QuantStore.native())
    if profile is Profile.NDARRAY:
        if store.kind is not StoreKind.NATIVE:
            raise QuantizationError(
                f"the ndarray profile quantizes only the Native store, not {scheme} (Burn: "
                'unimplemented!("Quantization not supported for scheme ...") in burn-ndarray '
                "ops/qtensor.rs)"
            )
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
