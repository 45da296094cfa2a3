# TODO: replace each `...` with your prediction.
TARGET_FIRST = ...  # e.g. ["{{pair.0}} expose", "{{pair.1}} take"]
SOURCE_FIRST = ...
NEVER_EXPOSED = ...  # "ok", "panic" or "hang"
LEGACY_U8_ENDED = ...  # e.g. ["{{pair.0}}"], or [] for none
