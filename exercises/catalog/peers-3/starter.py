# TODO: replace each `...` with your prediction.
WAIT_S = ...  # seconds, e.g. 1.5
FIX_SOURCE_KEEPS = ...  # True or False
LEGACY_TARGET_HAS = ...  # True or False
