# TODO: replace each `...` with what your runs of the changed programs show.
PANICS_ALIASED = ...  # a whole number
ORDERS_HANDED_EARLY = ...  # a whole number
PANICS_HANDED_EARLY = ...  # a whole number
