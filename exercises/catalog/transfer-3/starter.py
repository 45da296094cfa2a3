from typing import Any


def expose(pending: dict[int, Any], source: Any, transfer_id: int, tensor: Any) -> None:
    """The source session exposes `tensor` under `transfer_id` (LocalCommService::expose)."""
    # TODO
    raise NotImplementedError("expose")


def ready(pending: dict[int, Any], transfer_id: int) -> bool:
    """Whether a take of `transfer_id` would succeed now (the scheduler parks the target if not)."""
    # TODO: asking changes nothing.
    raise NotImplementedError("ready")


def take(pending: dict[int, Any], transfer_id: int) -> Any:
    """The target session takes the exposed tensor (LocalCommService::take, once ready)."""
    # TODO
    raise NotImplementedError("take")


def purge(pending: dict[int, Any], source: Any) -> None:
    """`source` closed normally: drop what it exposed and no one took (purge_session)."""
    # TODO
    raise NotImplementedError("purge")
