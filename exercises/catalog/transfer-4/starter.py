# TODO: replace each `...` with your answer.
HOST_BYTES_PER_VALUE = ...  # a whole number of bytes per value
LOCAL_BYTES_PER_VALUE = ...  # a whole number of bytes per value
SOURCE = ...  # "moved" or "copied"
CROSSING_N = ...  # a whole number of values
