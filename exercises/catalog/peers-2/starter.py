# TODO: replace each `...` with your prediction.
FIX_ERROR = ...  # an error class name, e.g. "DeadlockError"
FIX_PEER2_IDS = ...  # e.g. [1, 2]
FIX_LOST = ...  # e.g. [0], or [] for none
LEGACY_STEP = ...  # "ok", "error" or "panic"
LEGACY_FIRST_READ = ...  # "ok", "error" or "panic"
