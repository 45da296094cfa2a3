def pack_u32(values: list[int], bits: int) -> list[int]:
    """Pack one row of signed `bits`-bit values into u32 words, first value in the lowest bits.

    Read: crates/burn-std/src/tensor/quantization.rs:475-511 (pack_i8s_to_u32s) and its test.
    The visible checks: Burn's unit test word, a negative Q4 value, a row that does not fill
    its last word, the model's unpack reading your Q2 words, and the cubecl profile's words.
    """
    # TODO
    raise NotImplementedError("pack_u32")
