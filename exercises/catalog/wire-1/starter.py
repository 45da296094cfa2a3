ANSWERED = ("ReadTensor", "SyncBackend", "DTypeUsage")
TRANSFERS = ("ExposeTensorLocal", "RegisterTensorLocal", "ExposeTensorRemote",
             "RegisterTensorRemote")
FLUSH_THRESHOLD = 4
FLUSH_BYTES_THRESHOLD = 1024 * 1024


def leaves(kind: str, queued: int, queued_bytes: int, nbytes: int) -> str | None:
    """Why the batch leaves when a task of `kind` is submitted, or None if it waits."""
    # TODO: answered calls, uploads and transfers leave at once; any other task fills the batch.
    raise NotImplementedError("leaves")
