"""Every error a user of RouterLab can cause, in one hierarchy.

The CLI catches `RouterLabError` and prints `str(error)` as one line; anything else is a bug in
RouterLab and is allowed to show a traceback. `BurnPanic` and its children replay a panic that Burn
itself raises at commit 2c06be3: their text is Burn's text, so a learner can search Burn's source
(or its issue tracker) for it.
"""

from __future__ import annotations


class RouterLabError(Exception):
    """Base of every expected, user-facing error. Its message is one readable line."""


class BurnPanic(RouterLabError):
    """A replay of a Rust panic in Burn.

    `message` is exactly what Burn's panic prints; `source` is the Burn file (and line) that
    raises it, so the learner can go and read it. What the panic does to the deployment is kept
    apart, as data: `session`, the session it ended (a panic on the client ends none), and
    `effects`, what followed (a target left waiting forever). `str()` composes the three, here
    and nowhere else, so every face prints Burn's text and the model's notes the same way.
    """

    def __init__(self, message: str, source: str) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.session: str | None = None
        self.effects: tuple[str, ...] = ()

    @property
    def notes(self) -> str:
        """What RouterLab adds to Burn's text: the session that ended and what followed."""
        return str(self)[len(self.message):].lstrip("; ").strip()

    def __str__(self) -> str:
        ended = "" if self.session is None else (
            f" (session {self.session} panicked and has ended: Burn's session worker has no "
            "catch_unwind)")
        return self.message + ended + "".join(f"; {effect}" for effect in self.effects)


class BurnTodo(BurnPanic):
    """Rust's `todo!()`: prints `not yet implemented` (with `: msg` when a message is given)."""

    def __init__(self, source: str, detail: str | None = None) -> None:
        text = "not yet implemented" if detail is None else f"not yet implemented: {detail}"
        super().__init__(text, source)


class BurnUnimplemented(BurnPanic):
    """Rust's `unimplemented!()`: prints `not implemented` (with `: msg` when given)."""

    def __init__(self, source: str, detail: str | None = None) -> None:
        text = "not implemented" if detail is None else f"not implemented: {detail}"
        super().__init__(text, source)


class MissingHandleError(BurnPanic):
    """`HandleContainer::get_handle` on an id that is not registered (read after its last use)."""

    def __init__(self, tensor_id: int) -> None:
        """`tensor_id`: a plain int or a `TensorId` (an int whose str is `TensorId(N)`): the
        text is built from its number, so either gives Burn's `{id:?}`."""
        super().__init__(
            f"Should have handle for tensor TensorId {{ value: {int(tensor_id)} }}",
            "crates/burn-ir/src/handle.rs:97",
        )
        self.tensor_id = tensor_id


class DeviceError(RouterLabError):
    """A device string that does not parse, or names a device that does not exist."""


class GpuUnavailableError(DeviceError):
    """A `cuda:N` device was asked for, but CuPy or a usable GPU is missing; says which and why."""


class DTypeError(RouterLabError):
    """A dtype that an operation cannot take (for example an int tensor given to matmul)."""


class ShapeError(RouterLabError):
    """Shapes that an operation cannot combine (add, matmul, reshape element counts)."""


class UseAfterDropError(RouterLabError):
    """A client-side tensor used after it was dropped or consumed (Rust's borrow checker stops
    this at compile time; Python needs a run-time check)."""


class InputError(RouterLabError):
    """A user's file or text refused before it is used: not a regular file, too large, not
    UTF-8, nested too deep, or holding a number too large (`routerlab.core.base.safe_io`)."""


class LimitError(RouterLabError):
    """Work beyond a documented limit (`routerlab.core.base.limits`), refused before it starts."""


class ScenarioError(RouterLabError):
    """A scenario file that is not TOML, misses fields, has wrong types or names unknown things."""


class QuantizationError(RouterLabError):
    """A scheme, scale or layout that quantization cannot take (with the reason)."""


class TransferRejected(RouterLabError):
    """A transfer refused before anything was submitted (policy `reject`, or an unsafe layout)."""


class DeadlockError(RouterLabError):
    """A session would wait forever (Burn would hang; RouterLab detects it and says so)."""


class SessionEnded(RouterLabError):
    """A task sent to a server session that a panic already ended (Burn's session worker is a
    plain OS thread without `catch_unwind`: crates/burn-remote/src/server/worker.rs:119-134)."""


class UnknownTensorError(RouterLabError):
    """A tensor id or scenario label that this runtime never created."""


class ExtensionMissingError(RouterLabError):
    """A quantized tensor reached a core arm whose behaviour the quantization extension supplies,
    and no extension is installed."""


class MessageLost(RouterLabError):
    """A served peer received fewer of a step's tasks than the client sent (one was lost on the
    way): the step is undone on every peer before anything it did is kept."""


class TransferTimedOut(RouterLabError):
    """A cross-peer download gave up waiting (Iroh's timeout): Burn logs it and loses the tensor;
    RouterLab's fix undoes the step on every peer instead."""


class DeviceOutOfMemory(RouterLabError):
    """An allocation over a device's memory limit, refused before anything is registered."""


class StaleHandle(RouterLabError):
    """A tensor id that a served peer held before it restarted: the fresh peer never had it."""
