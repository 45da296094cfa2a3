def leaves(kind: str, queued: int, queued_bytes: int, nbytes: int) -> str | None:
    """Why the batch leaves when a task of `kind` is submitted, or None if it waits.

    Read: crates/burn-remote/src/client/service.rs:386-474 (which calls flush right after they
    push), 484-566 (the calls that wait for an answer: submit_request, submit_blocking),
    crates/burn-remote/src/client/service/batch.rs:52-56 (OutgoingBatch::push: when the batch is
    full) and crates/burn-std/src/config/remote.rs:38-44 (its two thresholds). Take the task
    names, the reasons' order and the thresholds from there.
    The visible checks: the buffered task of your variant four times in a row (when does the
    batch fill?), a ReadTensor pushed to a batch that already holds tasks, an upload of several
    MiB and a transfer task (do they wait?).
    """
    # TODO
    raise NotImplementedError("leaves")
