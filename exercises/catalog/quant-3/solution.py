"""quant-3 reference solution: PackedU32 packing, as Burn's `pack_q` does it."""


def pack_u32(values: list[int], bits: int) -> list[int]:
    """Pack one row of signed `bits`-bit values into u32 words, first value in the lowest bits."""
    per_word = 32 // bits
    mask = (1 << bits) - 1
    words = []
    for start in range(0, len(values), per_word):
        word = 0
        for k, value in enumerate(values[start:start + per_word]):
            word |= (value & mask) << (k * bits)  # two's complement, cut to `bits` bits
        words.append(word)
    return words
