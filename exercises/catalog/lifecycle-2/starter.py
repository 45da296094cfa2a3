# TODO: replace each `...` with your prediction.
COUNT_BEFORE_ADD = ...  # a whole number
DROP_OPS = ...  # e.g. [0, 1]
IDS_AFTER = ...  # e.g. [0]
