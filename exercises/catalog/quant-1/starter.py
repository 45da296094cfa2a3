def compute_scale(values: list[float], value: str) -> float:
    """The per-tensor MinMax scale of `values` for the value type `value` (e.g. "q8s").

    Read: crates/burn-backend/src/quantization/scheme.rs:75-104 (compute_q_params), and the
    integer range each value type has (`QuantValue::range`, cubecl-quant's scheme.rs).
    The visible checks: Burn's own test tensor in Q8S, a negative minimum, the full-range (F)
    value types, and your scale fed to the model's static quantize.
    """
    # TODO
    raise NotImplementedError("compute_scale")
