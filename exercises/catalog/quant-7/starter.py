def unpack_u32(words: list[int], bits: int, length: int) -> list[int]:
    """The `length` signed `bits`-bit values of one row of u32 words, first value in the lowest
    bits (the inverse of quant-3's pack_u32).

    Read: crates/burn-std/src/tensor/quantization.rs:514-542 (unpack_q_to_i8s).
    The visible checks: 8-bit words, 4- and 2-bit words with negative fields, a `length` that
    ends inside the last word, and a packed Q4 tensor of the model read through your function.
    """
    # TODO
    raise NotImplementedError("unpack_u32")
