# TODO: replace each `...` with your answer.
HOST_BYTES = ...  # a whole number of bytes
SOURCE = ...  # "moved" or "copied"
LOCAL_DEVICE_BYTES = ...  # a whole number of bytes
