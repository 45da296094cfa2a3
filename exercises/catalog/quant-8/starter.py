def block_grid(shape: list[int], block: list[int] | None) -> list[int]:
    """The number of blocks along each axis of `shape` (one scale each); [1] per tensor.

    Read: crates/burn-std/src/tensor/quantization.rs:141-146 (params_shape), and
    `BlockSize::num_blocks` / `to_dim_vec` in cubecl-quant's scheme.rs.
    The visible checks: per tensor, a block that divides the shape, a partial block, a block
    with fewer extents than the shape (and leading 1s), one with more, and the model's
    quantizer storing one scale per block of your grid.
    """
    # TODO
    raise NotImplementedError("block_grid")
