# TODO: replace each `...` with your prediction.
DATA_SOCKET = ...  # e.g. "client -> peer1 /session"
CLIENT_SEES_BYTES = ...  # True or False
SOURCE_AFTER = ...  # e.g. [0], or [] for none
