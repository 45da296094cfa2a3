# TODO: replace each `...` with your prediction.
ADD_STATUSES = ...  # e.g. ["ReadOnly", "ReadOnly"]
MUL_STATUSES = ...  # e.g. ["ReadOnly", "ReadOnly"]
IDS_AFTER = ...  # e.g. [0, 1, 2, 3]
READ_A = ...  # "panic" or "ok"
