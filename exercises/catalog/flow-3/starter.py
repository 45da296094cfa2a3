# TODO: replace each `...` with your prediction.
Z_ID = ...  # a whole number
W_ID = ...  # a whole number
CPU0_IDS = ...  # e.g. [0]
CPU1_IDS = ...  # e.g. []
