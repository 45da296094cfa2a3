"""How Burn prints things in its panic messages, so a replayed panic reads exactly like Burn's.

Burn's `todo!("Local transfer of {dtype:?} tensors is not supported yet")`
(`crates/burn-router/src/interpreter.rs:98`) formats the dtype with Rust's derived `Debug`, which
for a quantized dtype prints the whole `QuantScheme` struct
(`cubecl-common/src/quant/scheme.rs`: `value`, `store`, `mode`, `tensor`, `block`, in that order;
`BlockSize` prints as `BlockSize([..])`).
"""

from __future__ import annotations

from typing import Any

from routerlab.core.quant import QuantScheme, StoreKind

_STORE = {StoreKind.NATIVE: "Native", StoreKind.PACKED_U32: "PackedU32",
          StoreKind.PACKED_NATIVE: "PackedNative"}


def scheme_debug(scheme: Any) -> str:
    """`{:?}` of a `QuantScheme`; anything else (a test's stand-in scheme) prints as `repr`."""
    if not isinstance(scheme, QuantScheme):
        return repr(scheme)
    store = scheme.resolved_store()
    store_text = _STORE[store.kind] if store.kind is StoreKind.NATIVE else \
        f"{_STORE[store.kind]}({store.dim})"
    tensor = "None" if scheme.tensor is None else f"Some({scheme.tensor.name})"
    block = "None" if scheme.block is None else (
        f"Some(BlockScale {{ size: BlockSize({list(scheme.block.size.dims)}), "
        f"dtype: {scheme.block.dtype.name} }})")
    return (f"QuantScheme {{ value: {scheme.value.name}, store: {store_text}, mode: "
            f"{scheme.mode.name.capitalize()}, tensor: {tensor}, block: {block} }}")
