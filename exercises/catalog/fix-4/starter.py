# TODO: run the experiment, then replace each `...` with what you found.
DRIFTING = ...  # a list of value types, e.g. ["q8s"]; [] for none
Q2F_HOPS_TO_DOUBLE = ...  # a whole number of hops
LARGEST_ERROR = ...  # one value type
