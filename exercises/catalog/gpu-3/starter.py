# TODO: replace each `...` with your prediction.
NATIVE_BYTES = ...  # a whole number of bytes
DEQUANTIZE_BYTES = ...
CPU_STORE = ...  # "native" or "packed-u32"
SAME_Q = ...  # True or False
