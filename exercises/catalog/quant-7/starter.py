def unpack_u32(words: list[int], bits: int, length: int) -> list[int]:
    """The `length` signed `bits`-bit values of one row of u32 words, first value in the lowest
    bits (the inverse of quant-3's pack_u32)."""
    # TODO: every field of every word, sign-extended; then drop the last word's padding.
    raise NotImplementedError("unpack_u32")
