from typing import Any

# Read: crates/burn-remote/src/server/local_comm.rs:31-92 (LocalCommService) and, for what a
# session's close does, crates/burn-remote/src/server/worker.rs:140-151. `pending` is the
# service's map; `source` names the exposing session.
# The visible checks: an expose then a take, `ready` before and after, a purge among two
# sources, and a target-first move and a session's close in a real runtime.


def expose(pending: dict[int, Any], source: Any, transfer_id: int, tensor: Any) -> None:
    """The source session exposes `tensor` under `transfer_id` (LocalCommService::expose)."""
    # TODO
    raise NotImplementedError("expose")


def ready(pending: dict[int, Any], transfer_id: int) -> bool:
    """Whether a take of `transfer_id` would succeed now (the scheduler parks the target if not)."""
    # TODO
    raise NotImplementedError("ready")


def take(pending: dict[int, Any], transfer_id: int) -> Any:
    """The target session takes the exposed tensor (LocalCommService::take, once ready)."""
    # TODO
    raise NotImplementedError("take")


def purge(pending: dict[int, Any], source: Any) -> None:
    """`source` closed normally: drop what it exposed and no one took (purge_session)."""
    # TODO
    raise NotImplementedError("purge")
