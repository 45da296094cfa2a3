"""The legend of a trace table: what each column and each kind of event means.

A trace (`routerlab.core.Trace.view()`) is the densest table RouterLab shows, and its words
(`expose`, `take`, `ReadWrite`) are Burn's. Every renderer (`html`, `rich`, `text`) shows this
legend under a trace table, for the kinds of event the table holds, so the notebook and the
terminal explain a trace in the same words. A trace is recognised by its columns; a test keeps
them and the kinds the model records in step with this module.
"""

from __future__ import annotations

from ..core import TableView

COLUMNS: dict[str, str] = {
    "step": "the program's call that caused the event (one step per operation you ran)",
    "event": "what happened (below)",
    "device": "where: the device's registry or session",
    "tensor": "the tensor id (the handle's key in the registry)",
    "status": "how the operation used the handle: ReadOnly keeps it, ReadWrite takes it out "
              "(its last use)",
    "bytes": "bytes read, copied or sent",
    "detail": "what the model adds: the op, the transfer, the reason",
}
"""The columns of `Trace.view()`, in order, with what each holds."""

EVENTS: dict[str, str] = {
    "op": "a session ran an operation the client sent",
    "register": "a handle entered the device's registry",
    "get": "an operation looked a handle up (ReadWrite takes it out)",
    "remove": "a handle left the registry: its memory is freed",
    "drop": "a session ran the Drop the client sent for a tensor it no longer uses",
    "clone": "the client cloned a tensor: its reference count grew, nothing was sent",
    "read": "the tensor's bytes were read back to the client",
    "expose": "the source session offered a handle to a session on the same peer",
    "take": "the target session took the exposed handle (no bytes moved)",
    "publish": "the source session published the tensor as host bytes",
    "download": "the target session downloaded the published bytes",
    "wait": "the target session is parked until the source's task runs",
    "copy": "the backend copied the tensor onto this device",
    "bridge": "the tensor changed backend on the client, through host data",
    "dispatch": "into_data on the source, from_data on the target, through the client",
    "timeout": "a target gave up waiting for a transfer; the tensor was never registered",
    "panic": "Burn panics here: the session ends",
    "lost": "a served peer went away: its sessions ended, and the tensors it held are lost",
    "failed": "the operation failed; its events and registry changes were rolled back",
    "drain": "the device runner ran the client's queued closures, handing their tasks to the "
             "service: why now",
    "batch": "the client's outgoing batch left for the server: its tasks, bytes and why now",
    "note": "a remark of the model, not an event of Burn's",
}
"""Every kind of event the model records (`routerlab.core` calls `Trace.record(kind, ...)`)."""


def trace_legend(view: TableView) -> list[tuple[str, str]]:
    """(term, meaning) for a trace table: its columns, then the kinds of event it holds, in the
    order of `EVENTS`; `[]` for any other table (or an empty trace)."""
    if tuple(view.columns) != tuple(COLUMNS) or not view.rows:
        return []
    shown = {row[1] for row in view.rows}
    return [*COLUMNS.items(), *((kind, text) for kind, text in EVENTS.items() if kind in shown)]


def legend_lines(view: TableView) -> list[str]:
    """The legend as plain lines (`term: meaning`), a header first; `[]` for other tables."""
    terms = trace_legend(view)
    if not terms:
        return []
    return ["How to read this trace:", *(f"  {term}: {text}" for term, text in terms)]
