# TODO: replace each `...` with what the experiment shows.
PANICS_SHARED = ...  # a whole number
PANICS_ALIASED = ...  # a whole number
BUFFERS_LEFT_ALIASED = ...  # a whole number
