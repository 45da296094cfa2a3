# TODO: replace each `...` with your answer.
SERVERS = ...  # a whole number
SESSIONS = ...  # a whole number
REFUSED = ...  # e.g. ["B"], or [] for none
