# TODO: replace each `...` with your prediction.
LOCAL_FIRST = ...  # a function name, e.g. "read_tensor_async"
BYTES_FIRST = ...
TARGET_ARM_REACHED = ...  # True or False
