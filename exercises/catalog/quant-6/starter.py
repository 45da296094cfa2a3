# TODO: run the experiment, then replace each `...` with what you found.
Q4_BLOCK32_BYTES = ...  # bytes per value
Q4_LARGEST_BLOCK_BEATING_Q8 = ...  # 16, 32, 64, 128, or 0 for none
BEST_UNDER_0_6 = ...  # a scheme, e.g. "q2s:block=32"
