# TODO: replace each `...` with your prediction.
READ_THEN_DROP = ...  # the values the read returns, e.g. [0.0, 0.0], or "panic"
DROP_THEN_READ = ...
SESSION_AFTER = ...  # "alive" or "ended"
