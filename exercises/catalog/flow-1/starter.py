# TODO: replace each `...` with your answer.
SERVERS = ...  # a whole number
SESSIONS = ...  # a whole number
NEIGHBOURS = ...  # e.g. ["cpu:1"], or [] for none
