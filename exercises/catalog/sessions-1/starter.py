# TODO: replace each `...` with your prediction.
TARGET_FIRST = ...  # e.g. ["cpu:0 expose", "cpu:1 take"]
SOURCE_FIRST = ...
NEVER_EXPOSED = ...  # "ok", "panic" or "hang"
LEGACY_U8_ENDED = ...  # e.g. ["cpu:0"], or [] for none
