RANGES = {"q8s": (-127, 127), "q8f": (-128, 127), "q4s": (-7, 7), "q4f": (-8, 7),
          "q2s": (-1, 1), "q2f": (-2, 1)}


def compute_scale(values: list[float], value: str) -> float:
    """The per-tensor MinMax scale of `values` for the value type `value` (e.g. "q8s")."""
    # TODO: alpha from the min and max, then the range of the value type.
    raise NotImplementedError("compute_scale")
