# TODO: replace each `...` with your prediction.
PANIC_STEP = ...  # a step number
SEEN_STEP = ...  # a step number, or "never"
SEEN_WITHOUT_READ = ...  # a step number, or "never"
