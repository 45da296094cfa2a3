# TODO: replace each `...` with your prediction.
Y_ID = ...  # a whole number
HANDLES = ...  # a whole number
COUNT = ...  # a whole number
