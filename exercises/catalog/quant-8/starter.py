def block_grid(shape: list[int], block: list[int] | None) -> list[int]:
    """The number of blocks along each axis of `shape` (one scale each); [1] per tensor."""
    # TODO: line the block up with the shape, then count blocks per axis, rounding up.
    raise NotImplementedError("block_grid")
