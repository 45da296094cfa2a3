"""quant-1 reference solution: MinMax calibration to one per-tensor scale (compute_q_params)."""

RANGES = {"q8s": (-127, 127), "q8f": (-128, 127), "q4s": (-7, 7), "q4f": (-8, 7),
          "q2s": (-1, 1), "q2f": (-2, 1)}


def compute_scale(values: list[float], value: str) -> float:
    """The per-tensor MinMax scale of `values` for the value type `value` (e.g. "q8s")."""
    a, b = RANGES[value]
    alpha = max(abs(min(values)), abs(max(values)))  # the largest magnitude, whatever its sign
    return 2 * alpha / (b - a)
