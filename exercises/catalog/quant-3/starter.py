def pack_u32(values: list[int], bits: int) -> list[int]:
    """Pack one row of signed `bits`-bit values into u32 words, first value in the lowest bits."""
    # TODO: build each word from up to 32 // bits values; pad the last word with zeros.
    raise NotImplementedError("pack_u32")
