"""How Burn prints a `QuantScheme` in its panic messages, so a replayed panic reads like Burn's.

The scheme types derive `Debug`, which prints every field in declaration order (`value`, `store`,
`mode`, `tensor`, `block`: [cubecl-common scheme.rs:31-46 at Burn's cubecl pin](https://github.com/tracel-ai/cubecl/blob/48348968468e433235be3db6e7c344c34bc446c0/crates/cubecl-common/src/quant/scheme.rs#L31));
`BlockSize` has a hand-written `Debug` that prints `BlockSize([..])` (:508-512).
"""

from __future__ import annotations

from .scheme import QuantScheme, StoreKind

_STORE = {StoreKind.NATIVE: "Native", StoreKind.PACKED_U32: "PackedU32",
          StoreKind.PACKED_NATIVE: "PackedNative"}


def scheme_debug(scheme: QuantScheme) -> str:
    """`{:?}` of a resolved `QuantScheme` (its store must be known)."""
    store = scheme.resolved_store()
    store_text = _STORE[store.kind] if store.kind is StoreKind.NATIVE else \
        f"{_STORE[store.kind]}({store.dim})"
    tensor = "None" if scheme.tensor is None else f"Some({scheme.tensor.name})"
    block = "None" if scheme.block is None else (
        f"Some(BlockScale {{ size: BlockSize({list(scheme.block.size.dims)}), "
        f"dtype: {scheme.block.dtype.name} }})")
    return (f"QuantScheme {{ value: {scheme.value.name}, store: {store_text}, mode: "
            f"{scheme.mode.name.capitalize()}, tensor: {tensor}, block: {block} }}")
