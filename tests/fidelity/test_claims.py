"""The claims suite: one row per Burn behaviour the model reproduces.

Each row names the claim, the line of Burn (commit 2c06be3; CubeCL at Burn's pin 4834896) that
makes it so, and a probe that runs RouterLab's public API or CLI and fails if the model says
otherwise. docs/burn.md lists, under each section, the rows that check it; the tests at the end
keep the two in step.

A row built with `pending(...)` asserts Burn's behaviour before RouterLab models it: it is a
strict expected failure, so it turns into a failure (and must lose its mark) the day the model
gets it right.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.core import (
    NOT_INIT,
    READ_ONLY,
    READ_WRITE,
    BurnPanic,
    BurnTodo,
    BurnUnimplemented,
    DeviceError,
    DType,
    HandleContainer,
    MissingHandleError,
    Policy,
    Profile,
    QFloat,
    RouterLabError,
    Runtime,
    TensorId,
    TensorIr,
)
from routerlab.core.base.errors import TransferRejected
from routerlab.core.quant import (
    BlockSize,
    QuantValue,
    ScaleDtype,
    compute_q_params,
    compute_range,
    from_bytes,
    pack_u32,
    parse_scheme,
    quantizable,
    quantize,
    quantize_dynamic,
)
from routerlab.core.quant.backend_rules import accepts_arrival
from routerlab.core.quant.calibration import Calibration
from routerlab.core.quant.scale_dtype import round_up
from routerlab.core.router.interpreter import burn_debug

ROOT = Path(__file__).resolve().parents[2]
F32 = np.float32
PIN = "2c06be3"


@dataclass(frozen=True)
class Row:
    id: str
    claim: str
    burn: str
    """Burn's file:line(s) at the pin; `cubecl:` marks CubeCL at Burn's pin."""
    probe: Callable[[], None]
    pending: str | None = None
    """Why the model does not reproduce it yet (the row is then a strict xfail)."""


ROWS: list[Row] = []


def row(id: str, claim: str, burn: str, pending: str | None = None
        ) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def add(probe: Callable[[], None]) -> Callable[[], None]:
        ROWS.append(Row(id, claim, burn, probe, pending))
        return probe
    return add


PART_B = "issue 10 part B: "


def _ended(rt: Runtime, device: str) -> bool:
    return rt.session(device).ended is not None


def _kinds(rt: Runtime, mark: int, *kinds: str) -> list[str]:
    return [e.kind for e in rt.trace.read(mark) if e.kind in kinds]


def _q8(rt: Runtime, device: str = "cpu:0", scheme: str = "q8s") -> Any:
    return rt.quantize(rt.tensor([1.0, -2.0, 3.0, 4.0], device, "f32"), scheme)


def _text(path: str) -> str:
    """A shipped file's text with its whitespace folded (a notebook: its cells' sources)."""
    raw = (ROOT / path).read_text("utf-8")
    if path.endswith(".ipynb"):
        import json

        raw = "\n".join("".join(cell["source"]) for cell in json.loads(raw)["cells"])
    return " ".join(raw.split())


def _says(path: str, right: str, wrong: str) -> None:
    """`path` states `right` and no longer states `wrong` (a corrected line of the docs)."""
    text = _text(path)
    assert wrong not in text and right in text, path


def _transfer_ids(rt: Runtime, kind: str) -> list[int]:
    """The transfer ids of the trace's `kind` events (`expose`: same peer, `publish`: bytes)."""
    return [int(re.search(r"transfer (\d+)", e.detail).group(1))  # type: ignore[union-attr]
            for e in rt.trace.read() if e.kind == kind]


# --- 1. the picture --------------------------------------------------------------------------

@row("picture-one-primitive", "float, int, bool and quantized router tensors are one type",
     "crates/burn-router/src/backend.rs:29-38")
def _() -> None:
    rt = Runtime(["cpu:0"])
    kinds = {type(rt.tensor([1], "cpu:0", d)) for d in ("f32", "i32", "bool")} | {type(_q8(rt))}
    assert len(kinds) == 1


# --- 2. handles ------------------------------------------------------------------------------

@row("handles-missing-id-text", "a missing id panics with TensorId's Debug text",
     "crates/burn-ir/src/handle.rs:93-97")
def _() -> None:
    with pytest.raises(MissingHandleError) as info:
        HandleContainer().get(TensorId(26037), READ_ONLY)
    assert str(info.value) == "Should have handle for tensor TensorId { value: 26037 }"
    assert info.value.source == "crates/burn-ir/src/handle.rs:97"


@row("handles-read-only-keeps", "a ReadOnly get puts a clone back",
     "crates/burn-ir/src/handle.rs:100-104")
def _() -> None:
    c = HandleContainer()
    c.register(1, "h")
    assert c.get(1, READ_ONLY) == "h" and c.has_handle(1)


@row("handles-read-write-moves", "a ReadWrite get moves the handle out; a second get panics",
     "crates/burn-ir/src/handle.rs:105")
def _() -> None:
    c = HandleContainer()
    c.register(1, "h")
    assert c.get(1, READ_WRITE) == "h" and not c.has_handle(1)
    with pytest.raises(MissingHandleError):
        c.get(1, READ_ONLY)


@row("handles-not-init-text", "a NotInit get panics 'Cannot get uninitialized tensor …'",
     "crates/burn-ir/src/handle.rs:106-108")
def _() -> None:
    c = HandleContainer()
    c.register(2, "h")
    with pytest.raises(BurnPanic, match=re.escape(
            "Cannot get uninitialized tensor TensorId { value: 2 }. Tensor exist but with wrong "
            "status")) as info:
        c.get(2, NOT_INIT)
    assert info.value.source == "crates/burn-ir/src/handle.rs:106-108"


@row("handles-register-overwrites", "register silently overwrites",
     "crates/burn-ir/src/handle.rs:66-68")
def _() -> None:
    c = HandleContainer()
    c.register(1, "a")
    c.register(1, "b")
    assert c.get_handle_ref(1) == "b" and c.num_handles() == 1


@row("handles-remove-and-free", "remove_handle is unconditional; free removes only ReadWrite",
     "crates/burn-ir/src/handle.rs:198-211")
def _() -> None:
    c = HandleContainer()
    c.register(1, "a")
    c.register(2, "b")
    c.free(TensorIr(TensorId(1), (1,), READ_ONLY, DType.F32))
    assert c.has_handle(1)
    c.free(TensorIr(TensorId(1), (1,), READ_WRITE, DType.F32))
    assert not c.has_handle(1)
    assert c.remove_handle(2) == "b" and c.remove_handle(2) is None


@row("handles-fork-independent", "fork is an independent copy",
     "crates/burn-ir/src/handle.rs:24-35")
def _() -> None:
    c = HandleContainer()
    c.register(1, "a")
    f = c.fork()
    f.register(2, "b")
    f.remove_handle(1)
    assert [int(i) for i in c.handle_ids()] == [1] and [int(i) for i in f.handle_ids()] == [2]


@row("handles-no-uninit-insert", "no public method inserts an uninitialised entry",
     "crates/burn-ir/src/handle.rs:58-68")
def _() -> None:
    public = {name for name in dir(HandleContainer) if not name.startswith("_")}
    assert not {"create_tensor_uninit", "register_uninit"} & public
    assert "register" in public


# --- 3. router tensors -----------------------------------------------------------------------

@row("life-clone-shares-count", "clone keeps the id and bumps one shared count, sending nothing",
     "crates/burn-router/src/tensor.rs:122-134")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    mark = len(rt.trace)
    y = x.clone()
    assert (x.id, x.count, y.count) == (y.id, 2, 2)
    assert _kinds(rt, mark, "op", "drop") == []


@row("life-status-rule", "ReadWrite iff the count is at most 1",
     "crates/burn-router/src/tensor.rs:98-104")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    y = x.clone()
    assert y.into_ir().status is READ_ONLY
    assert x.into_ir().status is READ_WRITE


@row("life-last-use-no-drop", "a last use in an op never also sends Drop",
     "crates/burn-router/src/tensor.rs:67-87")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0, 2.0], "cpu:0")
    rt.add(x, rt.clone(x))
    assert [e for e in rt.trace.read() if e.kind == "drop"] == []
    assert int(x.id) not in rt.handle_ids("cpu:0")


@row("life-drop-sends-one", "dropping the last reference sends one Drop(ReadWrite), "
     "which removes the handle", "crates/burn-router/src/tensor.rs:136-157")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    y = rt.clone(x)
    rt.drop(x)
    assert [e for e in rt.trace.read() if e.kind == "drop"] == []
    rt.drop(y)
    drops = [e.detail for e in rt.trace.read() if e.kind == "drop"]
    assert drops == [f"drop(#{int(y.id)} ReadWrite)"] and rt.handle_ids("cpu:0") == []


@row("life-from-data-then-init", "from_data registers the data, then sends Init",
     "crates/burn-router/src/ops/tensor.rs:20-31")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    ops = [e.detail for e in rt.trace.read() if e.kind == "op"]
    assert ops == [f"register_data() -> #{int(x.id)}", f"init() -> #{int(x.id)}"]


@row("life-register-builds-outputs", "register returns fresh count-1 tensors for the op outputs",
     "crates/burn-router/src/client/base.rs:30-40")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    y = rt.add(x, rt.clone(x))
    assert y.count == 1 and y.id != x.id and rt.handle_ids("cpu:0") == [int(y.id)]


# --- 4. ids ----------------------------------------------------------------------------------

@row("ids-one-counter", "tensor ids come from one process-wide counter starting at 0",
     "crates/burn-remote/src/client/service/registry.rs:16-20")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    ids = [int(rt.tensor([1.0], d).id) for d in ("cpu:0", "peer2/cpu:0", "cpu:1")]
    assert ids == [0, 1, 2]


@row("ids-transfer-from-zero", "same-peer transfer ids start at 0, then count up",
     "crates/burn-remote/src/client/runner.rs:384-397")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    rt.to_device(rt.tensor([1.0], "cpu:0"), "cpu:1")
    rt.to_device(rt.tensor([2.0], "cpu:0"), "cpu:1")
    exposes = [e.detail for e in rt.trace.read() if e.kind == "expose"]
    assert [re.search(r"transfer (\d+)", d).group(1) for d in exposes] == ["0", "1"]  # type: ignore[union-attr]


@row("ids-dtype-predicates", "is_float excludes QFloat, is_int excludes unsigned",
     "crates/burn-std/src/tensor/dtype.rs:78-96")
def _() -> None:
    q = QFloat(parse_scheme("q8s:store=native"))
    assert not (q.is_float() or q.is_int() or q.is_uint() or q.is_bool())
    assert DType.FLEX32.is_float() and not DType.U8.is_int() and DType.U8.is_uint()


@row("ids-transfer-local-own-counter", "same-peer transfer ids come from a counter of their own: "
     "cross-peer moves in between do not advance it",
     "crates/burn-remote/src/client/runner.rs:373-397")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    for target in ("cpu:1", "peer2/cpu:0", "peer2/cpu:0", "cpu:1"):
        rt.to_device(rt.tensor([1.0], "cpu:0"), target)
    assert _transfer_ids(rt, "expose") == [0, 1]


@row("ids-capability-random", "a cross-peer move carries a random TransferCapability, not a "
     "counted id", "crates/burn-remote/src/client/runner.rs:458")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0"])
    for _hop in range(3):
        rt.to_device(rt.tensor([1.0], "cpu:0"), "peer2/cpu:0")
    ids = _transfer_ids(rt, "publish")
    assert len(set(ids)) == 3 and min(ids) >= 2 ** 47  # never 0, 1, 2: no counter


@row("ids-capability-docs", "docs/burn.md says a cross-peer id is a random stand-in for Burn's "
     "TransferCapability, not the client's counter; served peers get one too",
     "crates/burn-remote/src/shared/task.rs:43-49")
def _() -> None:
    _says("docs/burn.md", "seeded random stand-in for Burn's random `TransferCapability`",
          "the transfer id is the client's counter")
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    rt.to_device(rt.tensor([1.0], "cpu:0"), "cpu:1")
    rt.to_device(rt.tensor([1.0], "cpu:0"), "peer2/cpu:0")
    assert _transfer_ids(rt, "expose") == [0] and min(_transfer_ids(rt, "publish")) >= 2 ** 47


# --- 5. sessions -----------------------------------------------------------------------------

@row("sess-fifo", "a session runs its tasks in submission order",
     "crates/burn-remote/src/server/worker.rs:9-18")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    y = rt.add(rt.clone(x), x)
    ops = [e.detail for e in rt.trace.read() if e.kind == "op"]
    assert ops[-1] == f"add(#{int(x.id)} ReadOnly, #{int(x.id)} ReadWrite) -> #{int(y.id)}"


@row("sess-alias", "an alias keeps the buffer until both ids are freed",
     "crates/burn-router/src/interpreter.rs:145-159")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0, 2.0], "cpu:0")
    interp = rt.session("cpu:0").interpreter
    interp.register_alias(TensorId(99), x.id)
    interp.handles.remove_handle(x.id)
    assert interp.handles.get_handle_ref(TensorId(99)) is not None


# --- 6. moving tensors -----------------------------------------------------------------------

@row("path-same-device", "to_device to the same device returns the input",
     "crates/burn-router/src/ops/tensor.rs:89-94")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    assert rt.to_device(x, "cpu:0") is x and x.alive


@row("path-same-peer-local", "same peer: expose on the source, take and register on the target",
     "crates/burn-remote/src/client/runner.rs:422-447")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    x = rt.tensor([1.0], "cpu:0")
    mark = len(rt.trace)
    rt.to_device(x, "cpu:1")
    assert _kinds(rt, mark, "expose", "take", "publish", "download") == ["expose", "take"]


@row("path-unique-moves", "a unique tensor moves: the source entry goes, the target has a new id",
     "crates/burn-ir/src/handle.rs:105")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    x = rt.tensor([1.0], "cpu:0")
    y = rt.to_device(x, "cpu:1")
    assert rt.handle_ids("cpu:0") == [] and rt.handle_ids("cpu:1") == [int(y.id)] != [int(x.id)]


@row("path-shared-copies", "a shared tensor is read ReadOnly and copied",
     "crates/burn-ir/src/handle.rs:100-104")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    x = rt.tensor([1.0], "cpu:0")
    keep = rt.clone(x)
    y = rt.to_device(x, "cpu:1")
    assert rt.handle_ids("cpu:0") == [int(keep.id)] and rt.handle_ids("cpu:1") == [int(y.id)]


@row("path-cross-peer-bytes", "another peer: read back to TensorData, download, register",
     "crates/burn-remote/src/server/worker.rs:250-279, 311-364")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0"])
    x = rt.tensor([1.0, 2.0], "cpu:0")
    mark = len(rt.trace)
    y = rt.to_device(x, "peer2/cpu:0")
    assert _kinds(rt, mark, "expose", "publish", "download", "bridge") == ["publish", "download"]
    assert rt.read(y).tolist() == [1.0, 2.0]


@row("path-cross-peer-any-backend-bytes", "a cross-peer move takes bytes whatever the backends",
     "crates/burn-remote/src/client/runner.rs:406-417")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0@ndarray"])
    x = rt.tensor([1.0], "cpu:0")
    assert rt.plan_transfer(x, "peer2/cpu:0@ndarray").path.value == "bytes"


@row("path-one-backend-per-peer", "a peer hosts one backend: two backends on one peer is refused",
     "crates/burn-remote/src/server/builder.rs:77-89")
def _() -> None:
    with pytest.raises(DeviceError):
        rt = Runtime(["cpu:0", "cpu:1@ndarray"])
        rt.to_device(rt.tensor([1.0], "cpu:0"), "cpu:1@ndarray")


@row("path-dispatch-remote-to-remote", "Dispatch moves a tensor between two router (Remote) "
     "devices with the router's own to_device: RouterLab's forced dispatch path between them has "
     "no Burn counterpart, and its plan says so", "crates/burn-dispatch/src/macros.rs:168-179")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0@ndarray"])
    x = rt.tensor([1.0], "cpu:0")
    assert rt.plan_transfer(x, "peer2/cpu:0@ndarray").path.value == "bytes"  # what Burn does
    forced = rt.plan_transfer(x, "peer2/cpu:0@ndarray", "dispatch")
    assert any(note.startswith("RouterLab's own") and "macros.rs:168-179" in note
               for note in forced.notes)
    assert "macros.rs:168-179" in (ROOT / "docs" / "transfers.md").read_text("utf-8")


@row("path-capture-default-bridge", "CaptureChannel keeps the default change_client_backend, so "
     "the README and ARCHITECTURE name it as the one channel that uses it",
     "crates/burn-capture/src/capture.rs:338-368")
def _() -> None:
    from routerlab.core.base.devices import Path as TransferPath

    for doc in ("README.md", "docs/ARCHITECTURE.md", "notebooks/03-moving-tensors.ipynb"):
        text = _text(doc)
        assert "CaptureChannel" in text and "capture.rs:338-368" in text, doc
        assert "no channel of the pin uses" not in text, doc
    said = " ".join((TransferPath.__doc__ or "").split())
    assert "only `CaptureChannel` keeps" in said and "no channel of the pin uses" not in said


@row("wall-bridge-registers-through-channel", "the default change_client_backend registers "
     "through the channel, which panics on a remote channel",
     "crates/burn-remote/src/client/channel.rs:33-43")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0@ndarray"], legacy=True)
    with pytest.raises(BurnPanic) as info:
        rt.to_device(rt.tensor([1.0], "cpu:0"), "peer2/cpu:0@ndarray", path="bridge")
    assert info.value.message == "Can't register manually a tensor on a remote channel."


# --- 7. quantized walls ----------------------------------------------------------------------

@row("wall-q-to-device-router", "the router's q_to_device is unimplemented!, even to the same "
     "device", "crates/burn-router/src/ops/qtensor.rs:34-39")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = _q8(rt)
    for target in ("cpu:0", "cpu:1"):
        with pytest.raises(BurnUnimplemented) as info:
            rt.q_to_device(q, target, legacy=True)
        assert info.value.message == "not implemented"
        assert info.value.source == "crates/burn-router/src/ops/qtensor.rs:34-39"
    assert q.alive and not _ended(rt, "cpu:0")


@row("wall-quantize-bare-router", "on a bare router, quantize is a client-side unimplemented!: "
     "nothing submitted, no session dies", "crates/burn-router/src/ops/qtensor.rs:15-28")
def _() -> None:
    rt = Runtime(["cpu:0"], legacy=True)
    x = rt.tensor([1.0, 2.0], "cpu:0")
    with pytest.raises(BurnUnimplemented) as info:
        rt.quantize(x, "q8s")
    assert "burn-router/src/ops/qtensor.rs" in info.value.source
    assert x.alive and not _ended(rt, "cpu:0")


@row("wall-quantize-fusion", "with fusion the Quantize op reaches the server's todo!() and the "
     "session dies", "crates/burn-router/src/fusion.rs:223-238")
def _() -> None:
    rt = Runtime(["cpu:0"], legacy=True, fusion=True)
    with pytest.raises(BurnTodo):
        rt.quantize(rt.tensor([1.0], "cpu:0"), "q8s")
    assert _ended(rt, "cpu:0")


def _lone_quantize() -> tuple[Runtime, Any]:
    """Legacy with fusion: x read (a sync point: the stream is drained, x is materialized), then
    quantized alone with scales already there, so the Quantize waits in the stream; and y, on
    the same device, to use after it."""
    rt = Runtime(["cpu:0"], legacy=True, fusion=True)
    x, y = rt.tensor([1.0, 2.0], "cpu:0"), rt.tensor([3.0], "cpu:0")
    rt.read(rt.clone(x))
    rt.quantize(x, "q8s", scales=[0.1])
    return rt, y


@row("wall-quantize-fusion-graph-size", "with fusion a router graph is ready only with more than "
     "one op: a lone Quantize runs op by op on the client (unimplemented!), a larger graph reaches "
     "the server's todo!()", "crates/burn-router/src/fusion.rs:254-259")
def _() -> None:
    rt, y = _lone_quantize()
    with pytest.raises(BurnUnimplemented) as lone:  # the read drains it, alone: op by op
        rt.read(rt.clone(y))
    assert lone.value.source == "crates/burn-router/src/ops/qtensor.rs:20"
    assert not _ended(rt, "cpu:0")
    calibrated = Runtime(["cpu:0"], legacy=True, fusion=True)
    x = calibrated.tensor([1.0, 2.0], "cpu:0")
    calibrated.read(calibrated.clone(x))
    with pytest.raises(BurnTodo):  # calibrated: the range ops and Quantize make one graph
        calibrated.quantize(x, "q8s")
    assert _ended(calibrated, "cpu:0")
    unsynced = Runtime(["cpu:0"], legacy=True, fusion=True)
    with pytest.raises(BurnTodo):  # Init(x) is still in the stream: a graph of two ops
        unsynced.quantize(unsynced.tensor([1.0], "cpu:0"), "q8s", scales=[0.1])


@row("wall-quantize-fusion-joined-until-read", "with fusion nothing runs before a sync point: the "
     "ops after a lone Quantize, up to the next read, join its graph, and the server's todo!() "
     "fires at that read", "crates/burn-router/src/fusion.rs:154-159")
def _() -> None:
    rt, y = _lone_quantize()
    z = rt.add(rt.clone(y), y)  # joins it: a graph of two ops
    assert not _ended(rt, "cpu:0")
    with pytest.raises(BurnTodo) as joined:
        rt.read(z)
    assert joined.value.source == "crates/burn-router/src/interpreter.rs:1390-1391"
    assert _ended(rt, "cpu:0")


@row("wall-int-cast-unreachable", "int_cast goes to the server as BaseInt(Cast), whose arm is "
     "unreachable!(): the session panics; float casts work",
     "crates/burn-router/src/interpreter.rs:536")
def _() -> None:
    rt = Runtime(["cpu:0"], legacy=True)
    f = rt.cast(rt.tensor([1.5], "cpu:0", "f32"), "f64")  # BaseFloat(Cast) has an arm
    assert rt.read(f).tolist() == [1.5]
    with pytest.raises(BurnPanic) as info:
        rt.cast(rt.tensor([1, 2], "cpu:0", "i32"), "i64")
    assert (info.value.message, info.value.source) == (
        "internal error: entered unreachable code", "crates/burn-router/src/interpreter.rs:536")
    assert _ended(rt, "cpu:0")
    fixed = Runtime(["cpu:0"])  # RouterLab's fix casts ints
    assert fixed.read(fixed.cast(fixed.tensor([1, 2], "cpu:0", "i32"), "i64")).tolist() == [1, 2]


@row("wall-quantize-arms-todo", "the interpreter's Quantize/Dequantize arms are todo!()",
     "crates/burn-router/src/interpreter.rs:1390-1391")
def _() -> None:
    from routerlab.core import QuantizeOp
    rt = Runtime(["cpu:0"], legacy=True)
    scheme = parse_scheme("q8s:store=native")
    with pytest.raises(BurnTodo) as info:
        rt.op(QuantizeOp, rt.tensor([1.0], "cpu:0"), params=(scheme,))
    assert info.value.message == "not yet implemented"
    assert info.value.source == "crates/burn-router/src/interpreter.rs:1390-1391"


@row("wall-get-tensor-text", "get_tensor's todo! prints the QFloat dtype with Debug",
     "crates/burn-router/src/interpreter.rs:98")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = rt.quantize(rt.tensor([-0.9, 0.5, 0.2], "cpu:0", "f32"), "q2f")
    with pytest.raises(BurnTodo) as info:
        rt.to_device(q, "cpu:1", legacy=True)
    assert info.value.message == (
        "not yet implemented: Local transfer of QFloat(QuantScheme { value: Q2F, store: Native, "
        "mode: Symmetric, tensor: None, block: None }) tensors is not supported yet")
    assert info.value.source == "crates/burn-router/src/interpreter.rs:98"


@row("wall-get-tensor-uint-text", "an unsigned tensor meets the same todo!: '… of U32 tensors …'",
     "crates/burn-router/src/interpreter.rs:88-100")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"], legacy=True)
    with pytest.raises(BurnTodo, match=re.escape("Local transfer of U32 tensors is not supported")):
        rt.to_device(rt.tensor([1, 2], "cpu:0", "u32"), "cpu:1")


@row("wall-register-to-device-quantized", "register_tensor_to_device's quantized arm is todo!",
     "crates/burn-router/src/interpreter.rs:123-125")
def _() -> None:
    from routerlab.core import (
        HandleKind,
        Kind,
        Primitive,
        TensorInterpreter,
        make_backend,
        parse_device,
    )
    interp = TensorInterpreter(make_backend(parse_device("cpu:1")), policy=Policy.LEGACY)
    dtype = QFloat(parse_scheme("q8s:store=native"))
    kind = HandleKind(Kind.QUANTIZED, Primitive(np.zeros(2, np.int8), dtype, parse_device("cpu:0")))
    with pytest.raises(BurnTodo, match="^not yet implemented: Local transfer of quantized tensors "
                                       "is not supported yet$"):
        interp.register_tensor_to_device(0, kind)


@row("wall-read-tensor", "read_tensor_async: QFloat todo!(), unsigned unimplemented!()",
     "crates/burn-router/src/interpreter.rs:2160-2164")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0"])
    with pytest.raises(BurnTodo) as todo:
        rt.to_device(_q8(rt), "peer2/cpu:0", legacy=True)
    assert todo.value.source == "crates/burn-router/src/interpreter.rs:2161"
    legacy = Runtime(["cpu:0"], legacy=True)
    with pytest.raises(BurnUnimplemented) as unimpl:
        legacy.read(legacy.tensor([1, 2], "cpu:0", "u32"))
    assert unimpl.value.source == "crates/burn-router/src/interpreter.rs:2163"


@row("wall-register-data", "register_tensor_data_id: QFloat todo!(), unsigned silently nothing",
     "crates/burn-router/src/interpreter.rs:162-178")
def _() -> None:
    from routerlab.core import TensorData, TensorInterpreter, make_backend, parse_device
    interp = TensorInterpreter(make_backend(parse_device("cpu:0")), policy=Policy.LEGACY)
    dtype = QFloat(parse_scheme("q8s:store=native"))
    with pytest.raises(BurnTodo, match="^not yet implemented$"):
        interp.register_tensor_data(0, TensorData(b"\0\0", (2,), dtype))
    interp.register_tensor_data(1, TensorData(np.array([1, 2], np.uint32).tobytes(), (2,),
                                              DType.U32))
    assert not interp.handles.has_handle(1)


@row("wall-bridge-unimplemented", "the default change_client_backend: unimplemented!() for "
     "anything not float/int/bool", "crates/burn-router/src/channel/base.rs:51-58")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:1@ndarray"])
    x = rt.tensor([1, 2], "cpu:0", "u32")
    with pytest.raises(BurnUnimplemented) as info:
        rt.to_device(x, "peer2/cpu:1@ndarray", path="bridge", legacy=True)
    assert info.value.source == "crates/burn-router/src/channel/base.rs:58"


@row("quant-client-dtype-requested", "a quantize output's client dtype is the requested scheme; "
     "only the server primitive carries Flex's store rewrite",
     "crates/burn-ir/src/builder.rs:1348-1356")
def _() -> None:
    rt = Runtime(["cpu:0"])
    q = rt.quantize(rt.tensor([float(i) for i in range(8)], "cpu:0", "f32"),
                    "q4s:store=packed-u32")
    assert q.dtype == QFloat(parse_scheme("q4s:store=packed-u32"))
    assert "store: PackedU32(0)" in burn_debug(q.dtype)


@row("readme-quantize-comment", "the README's first example says a bare router stops rt.quantize "
     "at the client's unimplemented!()", "crates/burn-router/src/ops/qtensor.rs:15-28")
def _() -> None:
    text = (ROOT / "README.md").read_text("utf-8")
    line = next(line for line in text.splitlines() if line.startswith("q = rt.quantize(y"))
    assert "unimplemented!()" in line and "todo!()" not in line
    rt = Runtime(["cpu:0"], legacy=True)
    with pytest.raises(BurnUnimplemented) as info:
        rt.quantize(rt.tensor([1.0], "cpu:0"), "q8s")
    assert info.value.source.startswith("crates/burn-router/src/ops/qtensor.rs:")


@row("docs-dispatch-one-builder", "docs/burn.md cites Dispatch's one RemoteServerBuilder per "
     "device family where the code is", "crates/burn-dispatch/src/remote_server.rs:138-144")
def _() -> None:
    text = DOC.read_text("utf-8")
    assert "remote_server.rs#L138-L144" in text and "remote_server.rs#L49-L58" not in text


# --- 8. transports ---------------------------------------------------------------------------

@row("transport-websocket-hangs", "over WebSocket the bytes-path target waits forever",
     "crates/burn-communication/src/external_comm.rs:203-227")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0"], transport="websocket")
    with pytest.raises(BurnTodo, match="wait forever"):
        rt.to_device(_q8(rt), "peer2/cpu:0", legacy=True)
    assert _ended(rt, "peer2/cpu:0")


@row("transport-iroh-gives-up", "over Iroh the wait gives up after 300 s: the error is logged "
     "and the target session goes on", "crates/burn-remote/src/transport/iroh/transfer.rs:138")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0"])
    with pytest.raises(BurnTodo) as info:
        rt.to_device(_q8(rt), "peer2/cpu:0", legacy=True)
    assert "wait forever" not in str(info.value) and "300" in str(info.value)
    assert not _ended(rt, "peer2/cpu:0")


@row("transport-plan-iroh-gives-up", "the guard and `validate` say what the bytes-path target "
     "does: over Iroh it gives up after 300 s and goes on, over WebSocket it would wait forever",
     "crates/burn-remote/src/transport/iroh/transfer.rs:78-110, 138")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    q = _q8(rt)
    iroh = rt.plan_transfer(q, "peer2/cpu:0", policy="legacy")
    assert not iroh.hangs and iroh.transport.value == "iroh"
    assert not any("wait forever" in n for n in iroh.notes)
    assert any("gives up after 300 s" in n and "goes on" in n for n in iroh.notes)
    websocket = rt.plan_transfer(q, "peer2/cpu:0", policy="legacy", transport="websocket")
    assert websocket.hangs and any("wait forever" in n for n in websocket.notes)
    assert rt.plan_transfer(q, "cpu:1", policy="legacy").hangs  # take has no timeout
    result = CliRunner().invoke(app, ["validate", str(ROOT / "scenarios" / "quantized-legacy.toml"),
                                      "--plain"])
    step6 = [line for line in result.output.replace("\n", " ").split("step 6 ")
             if line.startswith("note")]
    assert any("gives up after 300 s" in n for n in step6)
    assert not any("wait forever" in n for n in step6)


@row("transport-kill-before-iroh-logs", "a download that cannot reach its source: over Iroh "
     "the error is logged, None returned and the tensor lost; only WebSocket panics 'Failed to "
     "open remote 'data' channel'", "crates/burn-remote/src/transport/iroh/transfer.rs:177-186")
def _() -> None:
    from routerlab.core.serving import LocalPeers
    from routerlab.core.serving.faults import BURN, parse_fault

    assert "crates/burn-remote/src/transport/iroh/transfer.rs:177-186" in \
        BURN["kill before"].sources and BURN["kill before"].outcome == "lost tensor"
    for transport in ("iroh", "websocket"):
        with LocalPeers(2) as peers, Runtime(peers=peers.addresses, policy="legacy",
                                             transport=transport) as rt:
            x = rt.tensor([1.0, 2.0], "peer1/cpu:0", "f32")
            rt.server.inject(parse_fault("step=1,kind=kill,peer=peer1,when=before"))  # type: ignore[attr-defined]
            if transport == "websocket":
                with pytest.raises(BurnPanic, match="Failed to open remote 'data' channel"):
                    rt.to_device(x, "peer2/cpu:0")
                continue
            moved = rt.to_device(x, "peer2/cpu:0")  # logged; the session goes on
            with pytest.raises(MissingHandleError):
                rt.read(moved)
    assert "| kill before | **lost tensor** over Iroh (RouterLab's default)" in \
        _text("docs/faults.md")


@row("transport-bytes-wait-taught", "notebook 05 asks how a bytes-path target's wait ends "
     "(Iroh gives up after 300 s), not which session hangs",
     "crates/burn-remote/src/transport/iroh/transfer.rs:138")
def _() -> None:
    _says("notebooks/05-the-gap.ipynb", "how does the wait end over Iroh",
          "which session would hang if the source's read panicked")
    rt = Runtime(["cpu:0", "peer2/cpu:0"])
    with pytest.raises(BurnTodo) as info:
        rt.to_device(_q8(rt), "peer2/cpu:0", legacy=True)
    assert any("gave up waiting" in effect and "300 s" in effect for effect in info.value.effects)


# --- 9. panics and dead sessions -------------------------------------------------------------

@row("sess-panic-ends-session", "a panic ends the session (no catch_unwind)",
     "crates/burn-remote/src/server/worker.rs:118-127")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = _q8(rt)
    with pytest.raises(BurnTodo):
        rt.to_device(q, "cpu:1", legacy=True)
    assert _ended(rt, "cpu:0")
    with pytest.raises(RouterLabError, match="has ended"):
        rt.tensor([1.0], "cpu:0")


@row("sess-target-hangs", "the same-peer target parked in take waits forever",
     "crates/burn-remote/src/server/local_comm.rs:64-79")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"], arrival="target-first")
    with pytest.raises(BurnTodo, match="target session cpu:1 would wait forever"):
        rt.to_device(_q8(rt), "cpu:1", legacy=True)
    assert _ended(rt, "cpu:1")


@row("sess-panic-frees-handles", "a panicked session's handles are all freed (the unwinding "
     "drops the handler its thread owns; the teardown at 149-181 runs only on a normal close)",
     "crates/burn-remote/src/server/worker.rs:123-125")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    q = _q8(rt)
    rt.tensor([5.0], "cpu:0")
    with pytest.raises(BurnTodo):
        rt.to_device(q, "cpu:1", legacy=True)
    assert rt.handle_ids("cpu:0") == []


@row("sess-task-error-keeps-session", "a task that fails with an error (not a panic) is logged "
     "and the session goes on: an op no arm knows, a download that gave up",
     "crates/burn-remote/src/server/worker.rs:140-146")
def _() -> None:
    from routerlab.core import CastOp

    class UnknownOp(CastOp):  # an op the server's interpreter has no arm for
        name = "unknown"

    rt = Runtime(["cpu:0", "peer2/cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    with pytest.raises(RouterLabError, match="no interpreter arm for op 'unknown'"):
        rt.op(UnknownOp, x, params=(DType.F32,))
    assert not _ended(rt, "cpu:0") and x.alive
    with pytest.raises(BurnTodo):  # the source panics; over Iroh the target gives up, and lives
        rt.to_device(_q8(rt), "peer2/cpu:0", legacy=True)
    assert not _ended(rt, "peer2/cpu:0")
    assert rt.read(rt.tensor([2.0], "peer2/cpu:0")).tolist() == [2.0]


@row("sess-panic-keeps-exposed", "a panic unwinds the worker before purge_session: what the "
     "session exposed stays, and its target takes it; a normal close purges it",
     "crates/burn-remote/src/server/worker.rs:140-151")
def _() -> None:
    from routerlab.core.router.ir import ExposeLocalOp, RegisterLocalOp

    rt = Runtime(["cpu:0", "cpu:1"])
    a = rt.tensor([1.0, 2.0], "cpu:0", "f32")
    source, target = rt.session("cpu:0"), rt.session("cpu:1")

    def expose_panic_take() -> None:
        source.submit(ExposeLocalOp(TensorIr(a.id, (2,), READ_ONLY, DType.F32), 77))
        source.submit(ExposeLocalOp(TensorIr(TensorId(999), (1,), READ_ONLY, DType.F32), 78))
        target.submit(RegisterLocalOp(77, TensorIr(TensorId(500), (2,), NOT_INIT, DType.F32)))

    with pytest.raises(MissingHandleError) as info:  # the second expose has no handle
        rt.atomic("expose, panic, take", expose_panic_take)
    assert _ended(rt, "cpu:0") and not _ended(rt, "cpu:1")
    assert not any("wait forever" in effect for effect in info.value.effects)  # it took #77
    closing = Runtime(["cpu:0", "cpu:1"])
    b = closing.tensor([3.0], "cpu:0", "f32")
    exposer = closing.session("cpu:0")
    closing.atomic("expose", lambda: exposer.submit(
        ExposeLocalOp(TensorIr(b.id, (1,), READ_ONLY, DType.F32), 5)))
    assert closing.server.pending_transfers() == 1
    closing.close()  # the task channel closes: purge_session
    assert closing.server.pending_transfers() == 0


@row("sess-panic-names-freed", "a u8 to_device under legacy panics in get_tensor's todo!; the "
     "unwinding frees every tensor of the source session, and the error names them",
     "crates/burn-router/src/interpreter.rs:88-98")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    kept = rt.tensor([7.0], "cpu:0", "f32")
    u = rt.tensor([1, 2, 3], "cpu:0", "u8")
    with pytest.raises(BurnTodo) as info:
        rt.to_device(u, "cpu:1", policy="legacy")
    assert info.value.message == "not yet implemented: Local transfer of U8 tensors is not " \
                                 "supported yet"
    ids = f"#{int(kept.id)}, #{int(u.id)}"
    assert f"the unwinding freed all that cpu:0 held ({ids}): its registry is empty" in \
        str(info.value)
    assert rt.handle_ids("cpu:0") == [] and _ended(rt, "cpu:0")


@row("sess-worker-file", "the session worker with no catch_unwind is server/worker.rs (notebook "
     "05 says so, not session.rs)", "crates/burn-remote/src/server/worker.rs:120-127")
def _() -> None:
    _says("notebooks/05-the-gap.ipynb", "`crates/burn-remote/src/server/worker.rs` (the session "
          "worker", "`crates/burn-remote/src/server/session.rs` (the session worker")


@row("sess-peer-keeps-connection", "docs/burn.md: after a panic a served peer keeps the "
     "connection; only a message outside the protocol gets `Error` and a close",
     "crates/burn-remote/src/server/pump.rs:95-105")
def _() -> None:
    _says("docs/burn.md", "its served peer keeps the connection",
          "answers an `Error` message instead of dropping the connection")


@row("sess-oom-cubecl-text", "an allocation past the device's memory panics with CubeCL's text, "
     "'failed to reserve N bytes of device memory: out of device memory allocating N bytes'",
     "cubecl:crates/cubecl-cuda/src/compute/server.rs:242-244")
def _() -> None:
    from routerlab.core.base.data import TensorData
    from routerlab.core.serving.faults import LimitedBackend, cubecl_oom_text

    backend = LimitedBackend(Runtime(["cpu:0"]).devices[0], np)
    backend.limit, backend.legacy = 8, True
    backend.from_data(TensorData.from_array(np.zeros(4, F32)))
    assert cubecl_oom_text(16) == ("failed to reserve 16 bytes of device memory: out of device "
                                   "memory allocating 16 bytes")
    assert [cubecl_oom_text(16) in line for line in backend.logged] == [True]
    assert "OutOfMemory {" not in backend.logged[0]


@row("sess-oom-logged-never-initialized", "initialize_memory runs in a closure submitted to "
     "CubeCL's device runner, which catches and logs its panic: the session goes on with a handle "
     "never initialised, whose first later use fails 'Memory location was never initialized'",
     "cubecl:crates/cubecl-common/src/device/handle/channel.rs:713-715, 727-729")
def _() -> None:
    from routerlab.core.base.data import TensorData
    from routerlab.core.serving.faults import (
        LimitedBackend,
        MemoryNeverInitialized,
        NeverInitialized,
    )

    backend = LimitedBackend(Runtime(["cpu:0"]).devices[0], np)
    backend.limit, backend.legacy = 8, True
    made = backend.from_data(TensorData.from_array(np.zeros(4, F32)))  # no raise: logged
    assert isinstance(made, NeverInitialized) and made.shape == (4,)
    with pytest.raises(MemoryNeverInitialized, match="^Memory location was never initialized"):
        backend.into_data(made)  # memory_manage.rs:979-983
    assert not issubclass(MemoryNeverInitialized, BurnPanic)  # no worker panic: no session ends
    backend.limit = None
    assert backend.into_data(backend.from_data(TensorData.from_array(np.ones(2, F32)))).num_bytes


# --- 10. what a device advertises -----------------------------------------------------------

@row("advertise-flex-storage", "a router device forwards its Flex server's dtype_usage: Storage "
     "for a quantizable QFloat, so supports_dtype is false",
     "crates/burn-flex/src/backend.rs:158-162")
def _() -> None:
    rt = Runtime(["cpu:0"])
    said = rt.dtype_usage("cpu:0", _q8(rt).dtype)
    assert said.usage == {"storage"} and not said.supports and said.false


@row("advertise-cubecl-storage-arithmetic", "a CubeCL (CUDA) server answers Storage and "
     "Arithmetic from the storage type's TypeUsage: supports_dtype(QFloat) is true, Burn issue "
     "#5005's false advertisement", "crates/burn-cubecl/src/backend.rs:167-200")
def _() -> None:
    rt = Runtime()  # nothing is created: a plan needs no GPU

    def said(scheme: str) -> Any:
        return rt.dtype_usage("cuda:0", QFloat(parse_scheme(scheme)))

    packed = said("q8f:store=packed-u32")  # QuantScheme::default(): u32 words
    assert packed.usage == {"storage", "arithmetic"} and packed.supports and packed.issue_5005
    assert "#5005" in packed.line() and packed.false
    assert said("q8s:store=native").supports  # i8
    assert said("e4m3:store=native").usage == {"storage"}  # fp8: conversion and buffer only
    native4 = said("q4s:store=native")  # dtype_to_storage_type panics
    assert native4.panic is not None and native4.panic.message == (
        "Can't store native sub-byte values")
    assert native4.panic.source == "crates/burn-backend/src/cubecl.rs:89"


@row("advertise-router-forwards", "a router device's dtype_usage is its server's, forwarded; "
     "every citation of it and of NotInit's panic names the right lines",
     "crates/burn-router/src/backend.rs:55-58")
def _() -> None:
    rt = Runtime(["cpu:0"])
    assert "backend.rs:55-58" in (Runtime.dtype_usage.__doc__ or "")
    assert rt.dtype_usage("cpu:0", "f32").supports
    shipped = [p for folder in ("core", "teaching", "notebooks", "docs", "exercises")
               for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".ipynb", ".toml")]
    for path in (*shipped, ROOT / "README.md"):
        text = path.read_text("utf-8")
        assert "backend.rs:54-57" not in text and "handle.rs:104-106" not in text, path


# --- 11. protocol ----------------------------------------------------------------------------

@row("protocol-task-kinds", "a move is two tasks on two sessions: Expose* on the source, "
     "Register*Local/Remote on the target", "crates/burn-remote/src/shared/task.rs:184-214")
def _() -> None:
    rt = Runtime(["cpu:0", "cpu:1", "peer2/cpu:0"])
    seen = []
    for target in ("cpu:1", "peer2/cpu:0"):
        mark = len(rt.trace)
        rt.to_device(rt.tensor([1.0], "cpu:0"), target)
        seen += [(e.kind, e.device) for e in rt.trace.read(mark)
                 if e.kind in ("expose", "take", "publish", "download")]
    assert seen == [("expose", "cpu:0"), ("take", "cpu:1"),
                    ("publish", "cpu:0"), ("download", "peer2/cpu:0")]


# --- 12. schemes -----------------------------------------------------------------------------

@row("scheme-ranges", "value ranges", "cubecl:crates/cubecl-common/src/quant/scheme.rs:398-411")
def _() -> None:
    assert {v.name: v.range for v in QuantValue} == {
        "Q8F": (-128, 127), "Q8S": (-127, 127), "Q4F": (-8, 7), "Q4S": (-7, 7), "Q2F": (-2, 1),
        "Q2S": (-1, 1), "E4M3": (-448, 448), "E5M2": (-57344, 57344), "E2M1": (-6, 6)}


@row("scheme-default-stores", "Flex and NdArray default to Native, the others to PackedU32(0)",
     "crates/burn-flex/src/backend.rs:46-57")
def _() -> None:
    stores = {p: str(parse_scheme("q8s").resolve(p)) for p in Profile}
    assert stores[Profile.FLEX] == stores[Profile.NDARRAY] == "q8s:store=native"
    assert stores[Profile.CUBECL] == "q8s:store=packed-u32"


@row("scheme-block-canonical", "BlockSize: u8 extents, at most 5, leading 1s dropped",
     "cubecl:crates/cubecl-common/src/quant/scheme.rs:524-545")
def _() -> None:
    assert BlockSize((1, 32)) == BlockSize((32,))
    for bad in ((256,), (2,) * 6):
        with pytest.raises(RouterLabError):
            BlockSize(bad)


@row("scheme-to-dim-vec", "to_dim_vec keeps the first extents",
     "cubecl:crates/cubecl-common/src/quant/scheme.rs:566-574")
def _() -> None:
    assert BlockSize((4, 32)).dims_for(1) == (4,) and BlockSize((32,)).dims_for(2) == (1, 32)


@row("scheme-quantizable", "quantizable: no UE8M0; two-level needs a block dtype within f16 and "
     "an F32 global", "crates/burn-std/src/tensor/quantization.rs:113-128")
def _() -> None:
    assert quantizable(parse_scheme("q8s:block=4:scale=ue4m3:global=f32"))
    assert not quantizable(parse_scheme("q8s:scale=ue8m0"))
    assert not quantizable(parse_scheme("q8s:block=4:scale=f32:global=f32"))


# --- 13. arithmetic --------------------------------------------------------------------------

@row("round-scale-formula", "scale = 2·max(|min|,|max|)/(b − a)",
     "crates/burn-backend/src/quantization/scheme.rs:75-104")
def _() -> None:
    x = np.array([-1.8, -1.0, 0.0, 0.5], F32)
    t = quantize_dynamic(x, "q8s", profile=Profile.NDARRAY)
    assert t.scales_f32().tolist() == [F32(2) * F32(1.8) / F32(254)]
    assert np.asarray(t.q()).tolist() == [-127, -71, 0, 35]


@row("round-two-level-global", "two-level: global = max(block)/dtype max, at least "
     "f32::MIN_POSITIVE", "crates/burn-backend/src/quantization/scheme.rs:109-134")
def _() -> None:
    scheme = parse_scheme("q8s:block=4:scale=ue4m3:global=f32")
    x = np.array([1, 2, 3, 4, 5, 6, 7, 9], F32)
    low, high = compute_range(x, scheme, Calibration.MINMAX)
    params = compute_q_params(scheme, low, high)
    assert params.global_scale == F32(F32(18) / F32(254)) / F32(448)
    zero = compute_q_params(scheme, *compute_range(np.zeros(8, F32), scheme, Calibration.MINMAX))
    assert zero.global_scale == np.finfo(F32).tiny


@row("round-up-ue4m3", "a stored scale is rounded up to its dtype (9/254 → 0.0390625 in UE4M3); "
     "UE8M0 is refused", "crates/burn-std/src/tensor/quantization.rs:364-368")
def _() -> None:
    assert float(round_up(np.array([F32(9) / F32(254)]), ScaleDtype.UE4M3)[0]) == 0.0390625
    assert float(round_up(np.array([1e9], F32), ScaleDtype.UE4M3)[0]) == 448.0
    with pytest.raises(RouterLabError, match="UE8M0"):
        round_up(np.array([1.0], F32), ScaleDtype.UE8M0)


@row("round-ndarray", "NdArray divides, rounds half away from zero, a zero scale becomes 0.1",
     "crates/burn-ndarray/src/ops/quantization.rs:78-85, 128-133")
def _() -> None:
    t = quantize(np.array([0.25, -0.25, 0.75], F32), "q8s", [0.5], profile=Profile.NDARRAY)
    assert np.asarray(t.q()).tolist() == [1, -1, 2]
    z = quantize(np.array([0.3], F32), "q8s", [0.0], profile=Profile.NDARRAY)
    assert np.asarray(z.q()).tolist() == [3]


@row("round-flex", "Flex multiplies by 1/s: 0.02·(1/0.00031496) is 63.5 and rounds to 64",
     "crates/burn-flex/src/ops/qtensor.rs:176-179")
def _() -> None:
    x = np.array([0.02], F32)
    scale = [F32(0.04) / F32(127)]  # x / s = 63.499996, x * (1 / s) = 63.5
    assert np.asarray(quantize(x, "q8s", scale, profile=Profile.NDARRAY).q()).tolist() == [63]
    assert np.asarray(quantize(x, "q8s", scale, profile=Profile.FLEX).q()).tolist() == [64]
    zero = quantize(np.zeros(2, F32), "q8s", [0.0], profile=Profile.FLEX)
    assert zero.scales_f32().tolist() == [np.finfo(F32).tiny]


@row("round-cubecl-half-even", "CubeCL's kernels round half to even (rint)",
     "cubecl:crates/cubecl-cpp/src/shared/unary.rs:99")
def _() -> None:
    t = quantize(np.array([0.25, 0.75, -0.25], F32), "q8s:store=native", [0.5],
                 profile=Profile.CUBECL)
    assert np.asarray(t.q()).tolist() == [0, 2, 0]


@row("round-flex32-dequant", "dequantize to Flex32 gives f32 values on Flex",
     "crates/burn-flex/src/ops/qtensor.rs:230-233")
def _() -> None:
    rt = Runtime(["cpu:0"])
    out = rt.dequantize(_q8(rt), "flex32")
    assert rt.read(out).dtype == np.float32


@row("round-absmean", "AbsMean: γ = mean|x|, range [−γ, γ]",
     "crates/burn-backend/src/quantization/scheme.rs:44-72")
def _() -> None:
    low, high = compute_range(np.array([-1, 2, -3, 6], F32), parse_scheme("q2s"),
                              Calibration.ABSMEAN)
    assert (float(low[0]), float(high[0])) == (-3.0, 3.0)


@row("round-minmax-divisible", "MinMax per block needs every dim divisible by its extent",
     "crates/burn-backend/src/quantization/scheme.rs:27-30")
def _() -> None:
    with pytest.raises(RouterLabError, match="divisible"):
        compute_range(np.ones(6, F32), parse_scheme("q8s:block=4"), Calibration.MINMAX)


@row("round-drift-q2f", "recalibrating Q2F drifts: 0.6 → 0.8 → 1.0667 → 1.4222 (Flex)",
     "crates/burn-flex/src/ops/qtensor.rs:405-412")
def _() -> None:
    t = quantize_dynamic(np.array([-0.9, 0.5, 0.2], F32), "q2f", profile=Profile.FLEX)
    scales = [float(t.scales_f32()[0])]
    for _hop in range(3):
        t = quantize_dynamic(t.dequantize(Profile.FLEX), "q2f", profile=Profile.FLEX)
        scales.append(float(t.scales_f32()[0]))
    assert np.allclose(scales, [0.6, 0.8, 1.0666666, 1.4222221], rtol=1e-6)


@row("round-cubecl-kernel-is-cubek", "burn-cubecl's quantize.rs only launches cubek's kernel: "
     "the notebooks credit cubek-quant, not it, with rint and the packing",
     "crates/burn-cubecl/src/kernel/quantization/quantize.rs:28-37")
def _() -> None:
    _says("notebooks/04-quantization.ipynb", "only launches cubek's kernel",
          "quantize.rs` (CubeCL's kernel, `rint`")
    _says("notebooks/07-gpu.ipynb", "only launches cubek's kernel",
          "quantize.rs` (the quantize kernel: `rint`")


# --- 14. packing and bytes -------------------------------------------------------------------

@row("pack-word-bits", "value k of a word sits in bits [k·b, (k+1)·b)",
     "crates/burn-std/src/tensor/quantization.rs:549-555")
def _() -> None:
    assert pack_u32(np.array([-128, 2, -3, 127], np.int8), 8).tolist() == [2147287680]


@row("bytes-layout", "canonical bytes: [values][scales in their dtype][f32 global], dense",
     "crates/burn-std/src/tensor/quantization.rs:219-272")
def _() -> None:
    t = quantize_dynamic(np.array([-0.9, 0.5, 0.2], F32), "q2f", profile=Profile.FLEX)
    assert t.to_bytes().hex() == "fe01009999193f"


@row("bytes-fourteen", "8 i8 values + 2 UE4M3 scales + an f32 global take 14 bytes",
     "crates/burn-std/src/tensor/quantization.rs:659-684")
def _() -> None:
    t = quantize_dynamic(np.linspace(-1, 1, 8, dtype=F32), "q8s:block=4:scale=ue4m3:global=f32",
                         profile=Profile.FLEX)
    assert len(t.to_bytes()) == 14


@row("bytes-packed-rows", "a packed store rounds up per row: Q4 PackedU32 on [3, 3] is 3 words",
     "crates/burn-std/src/tensor/quantization.rs:375-396")
def _() -> None:
    from routerlab.core.quant import layout_of
    assert layout_of(parse_scheme("q4s:store=packed-u32"), (3, 3)).storage_elements == 3


@row("bytes-native-e-values", "Native-store E-values read back as i8",
     "crates/burn-std/src/tensor/quantization.rs:330")
def _() -> None:
    raw = bytes([1, 0xFF]) + np.float32(1.0).tobytes()
    assert from_bytes(raw, (2,), "e5m2:store=native").values.tolist() == [1, -1]


@row("bytes-packed-e-values", "packed E-values are unimplemented! in the reader",
     "crates/burn-std/src/tensor/quantization.rs:344-348")
def _() -> None:
    with pytest.raises(RouterLabError, match="unimplemented"):
        from_bytes(bytes(8), (4,), "e4m3:store=packed-u32")


# --- 15. per-backend rules -------------------------------------------------------------------

@row("ndarray-quantize-arms", "NdArray quantizes Q8F/Q8S/Q2S per tensor, Q8F/Q8S per block; "
     "anything else is its unimplemented!", "crates/burn-ndarray/src/ops/qtensor.rs:104-169")
def _() -> None:
    x = np.linspace(-1, 1, 16, dtype=F32)
    for ok in ("q8f", "q8s", "q2s", "q8s:block=8"):
        quantize_dynamic(x, ok, profile=Profile.NDARRAY)
    for refused in ("q4s", "q4f", "q2f", "q2s:block=8", "q8s:store=packed-u32"):
        with pytest.raises(BurnUnimplemented, match="Quantization not supported for scheme"):
            quantize_dynamic(x, refused, profile=Profile.NDARRAY)


@row("ndarray-tests-wider", "NdArray's export_tests build (Burn's test reference) takes any "
     "Q8/Q4/Q2 value", "crates/burn-backend-tests/tests/cubecl.rs:13-23")
def _() -> None:
    x = np.arange(16, dtype=F32)
    for scheme in ("q4s", "q4f", "q2f", "q4s:block=8"):
        quantize_dynamic(x, scheme, profile=Profile.NDARRAY_TESTS)
    result = CliRunner().invoke(app, ["quantize", "--values", "[1,2,3,4]", "--scheme", "q4s",
                                      "--backend", "ndarray-tests", "--json"])
    assert result.exit_code == 0 and '"q": [' in result.output


@row("ndarray-cli-refusal", "`quantize --scheme q4s --backend ndarray` fails with NdArray's text",
     "crates/burn-ndarray/src/ops/qtensor.rs:169")
def _() -> None:
    result = subprocess.run([sys.executable, "-m", "routerlab", "quantize", "--values",
                             "[1,2,3,4]", "--scheme", "q4s", "--backend", "ndarray"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert result.stderr.strip().endswith(
        "Quantization not supported for scheme QuantScheme { value: Q4S, store: Native, mode: "
        "Symmetric, tensor: None, block: None }")


@row("ndarray-arrival", "NdArray's q_from_data reads only Q8F/Q8S",
     "crates/burn-ndarray/src/ops/qtensor.rs:36-72")
def _() -> None:
    for profile in (Profile.NDARRAY, Profile.NDARRAY_TESTS):
        accepted = {v.value for v in QuantValue
                    if accepts_arrival(profile, parse_scheme(v.value).resolve(profile))}
        assert accepted == {"q8f", "q8s"}


@row("ndarray-arrival-transfer", "a Q4 tensor cannot arrive on NdArray (Dispatch's q_from_data)",
     "crates/burn-dispatch/src/ops/qtensor.rs:46-50")
def _() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0@ndarray"])
    q = rt.quantize(rt.tensor([float(i) for i in range(8)], "cpu:0", "f32"), "q4s")
    for path in ("bytes", "dispatch"):  # both end in NdArray's q_from_data: refused up front
        with pytest.raises(TransferRejected, match="from_data not supported for scheme"):
            rt.to_device(q, "peer2/cpu:0@ndarray", path)
    assert q.alive
    with pytest.raises(BurnUnimplemented, match="^not implemented: from_data not supported"):
        rt.from_data(rt.read_data(q), "peer2/cpu:0@ndarray")  # the backend's own text


@row("flex-store-native", "Flex stores Native whatever store was asked for",
     "crates/burn-flex/src/ops/qtensor.rs:141")
def _() -> None:
    t = quantize_dynamic(np.arange(16, dtype=F32), "q4s:store=packed-u32", profile=Profile.FLEX)
    assert str(t.scheme) == "q4s:store=native"


@row("flex-partial-blocks", "Flex's quantize_dynamic takes a partial last block (its scale from "
     "the block's own values); the generic compute_range refuses one",
     "crates/burn-flex/src/ops/qtensor.rs:67-142")
def _() -> None:
    x = np.array([1, 2, 3, 4, 5, -12], F32)
    t = quantize_dynamic(x, "q8s:block=4", profile=Profile.FLEX)
    assert t.scales_f32().tolist() == [F32(8) / F32(254), F32(24) / F32(254)]
    assert np.asarray(t.q()).tolist() == [32, 64, 95, 127, 53, -127]
    with pytest.raises(RouterLabError, match="whole number"):
        quantize_dynamic(x, "q8s:block=4", profile=Profile.NDARRAY)
    rt = Runtime(["cpu:0"])
    q = rt.quantize(rt.tensor(x.tolist(), "cpu:0", "f32"), "q8s:block=4")
    assert rt.read_quantized(q).scales_f32().tolist() == t.scales_f32().tolist()


@row("quant-e-values-refusal-text", "RouterLab's refusal to quantize E-values says what Burn's "
     "reader does with the store: Native E-values read back as i8, packed ones are unimplemented!",
     "crates/burn-std/src/tensor/quantization.rs:330, 344-348")
def _() -> None:
    x = np.ones(8, F32)
    with pytest.raises(RouterLabError) as native:
        quantize_dynamic(x, "e4m3:store=native", profile=Profile.FLEX)
    assert "read them back as i8" in str(native.value) and "unimplemented" not in str(native.value)
    with pytest.raises(RouterLabError) as packed:
        quantize_dynamic(x, "e2m1:store=packed-u32", profile=Profile.FLEX)
    assert "leaves packed E-values unimplemented!" in str(packed.value)


@row("docs-ndarray-arrival", "docs/transfers.md says NdArray's q_from_data reads only Q8F/Q8S "
     "(the model refuses a Q4 arrival there)", "crates/burn-ndarray/src/ops/qtensor.rs:36-72")
def _() -> None:
    text = " ".join((ROOT / "docs" / "transfers.md").read_text("utf-8").split())
    assert "Flex and NdArray keep any integer layout" not in text
    assert "NdArray's `q_from_data` reads only Q8F/Q8S" in text
    assert not accepts_arrival(Profile.NDARRAY, parse_scheme("q4s:store=native"))


@row("flex-cast-saturates", "float to int saturates like Rust's `as`: NaN is 0, out-of-range "
     "values and infinities clamp to the int type's min and max, for every int and uint dtype",
     "crates/burn-flex/src/ops/float.rs:61-124")
def _() -> None:
    rt = Runtime(["cpu:0"])
    values = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 2.0 ** 64, -2.9, 2.9]
    for dtype in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"):
        info = np.iinfo(DType(dtype).numpy)
        got = rt.read(rt.cast(rt.tensor(values, "cpu:0", "f32"), dtype)).tolist()
        low = max(int(info.min), -2)
        assert got == [0, info.max, info.min, info.max, info.min, info.max, low, 2], dtype


@row("cubecl-refusals", "CubeCL's texts: Can't store in u32 / native sub-byte / native packing",
     "crates/burn-cubecl/src/ops/qtensor.rs:85-108")
def _() -> None:
    x = np.arange(12, dtype=F32)
    for scheme, text in (("q4s", "Can't store in u32"),
                         ("q4s:store=native", "Can't store native sub-byte values"),
                         ("q8s:store=packed-native", "Q8S doesn't support native packing")):
        with pytest.raises(RouterLabError, match=re.escape(text)):
            quantize_dynamic(x, scheme, profile=Profile.CUBECL)


@row("cubecl-block-16", "a packed block must hold whole words: Q2S block 8 is refused",
     "crates/burn-backend-tests/tests/cubecl/quantization/quantize_dequantize.rs:156-161")
def _() -> None:
    with pytest.raises(RouterLabError, match="Block size must be divisible by 16, got block_size=8",
                       ):
        quantize_dynamic(np.arange(32, dtype=F32), "q2s:block=8:store=packed-u32",
                         profile=Profile.CUBECL)


# --- 16. CubeCL's to_device ------------------------------------------------------------------

@row("cubecl-legacy-to-device", "CubeCL's own q_to_device at the pin moves only the values "
     "region and leaves the scales behind", "crates/burn-cubecl/src/tensor/base.rs:174-192")
def _() -> None:
    rt = Runtime(["cpu:0@cubecl", "cpu:1@cubecl"], cubecl_legacy=True)
    q = rt.quantize(rt.tensor([float(i) for i in range(16)], "cpu:0@cubecl", "f32"), "q8s")
    kept = rt.clone(q)
    moved = rt.to_device(q, "cpu:1@cubecl")
    assert rt.read_quantized(moved).scales_f32().tolist() == [0.0]  # never written
    assert rt.read_quantized(kept).scales_f32().tolist() != [0.0]


# --- the suite itself ------------------------------------------------------------------------

@row("qops-ten-walls", "the router's ten QTensorOps are unimplemented!(): the Runtime's "
     "quantize, reshape and swap_dims of a quantized tensor meet the wall of the table's line",
     "crates/burn-router/src/ops/qtensor.rs:11-62")
def _() -> None:
    from routerlab.core.fix.qops import by_runtime_call

    def line(call: str) -> str:
        return by_runtime_call(call).source.rsplit(":", 1)[1]

    legacy = Runtime(["cpu:0"], policy="legacy")
    with pytest.raises(BurnUnimplemented) as wall:
        legacy.quantize(legacy.tensor([1.0, -2.0], "cpu:0"), "q8s", scales=[2.0 / 127])
    assert wall.value.source.endswith(line("quantize(scales=...)").split("-")[1])
    with pytest.raises(BurnUnimplemented) as wall:
        legacy.quantize(legacy.tensor([1.0, -2.0], "cpu:0"), "q8s")  # calibrated: _dynamic
    assert wall.value.source.endswith(line("quantize").split("-")[1])
    fix = Runtime(["cpu:0"])
    q = fix.quantize(fix.tensor([[1.0, -2.0]], "cpu:0"), "q8s")
    for call, run in (("reshape", lambda: fix.reshape(fix.clone(q), [2, 1])),
                      ("swap_dims", lambda: fix.swap_dims(fix.clone(q), 0, 1))):
        with pytest.raises(BurnUnimplemented) as wall:
            run()
        assert wall.value.source.endswith(f"qtensor.rs:{line(call)}"), call


@row("qops-default-dequantizes-to-float", "every other q_* op is the trait's default: "
     "dequantize, the float op, and (propagation Inhibit, the default) a float result; q_add, "
     "q_mul and q_matmul under the fix, bit for bit",
     "crates/burn-backend/src/backend/ops/qtensor.rs:55-98, 352-354, 498-545")
def _() -> None:
    rt = Runtime(["cpu:0"])
    values = np.array([[1.0, -2.0, 3.0]], F32)
    q = rt.quantize(rt.tensor(values, "cpu:0"), "q8s")
    x = rt.tensor(np.array([[0.5, 0.25, -1.0]], F32), "cpu:0")
    grid = rt.read(rt.dequantize(rt.clone(q)))  # the values on the input's grid
    total = rt.add(rt.clone(q), rt.clone(q))
    assert total.dtype == DType.F32 and rt.read(total).tolist() == (grid + grid).tolist()
    product = rt.mul(rt.clone(q), rt.clone(x))
    assert rt.read(product).tolist() == (grid * rt.read(rt.clone(x))).tolist()
    moved = rt.matmul(rt.clone(q), rt.swap_dims(rt.clone(x), 0, 1))
    assert rt.read(moved).tolist() == (grid @ np.array([[0.5], [0.25], [-1.0]], F32)).tolist()
    legacy = Runtime(["cpu:0"], policy="legacy")
    with pytest.raises(BurnUnimplemented) as wall:  # the default's first dequantize
        legacy.dequantize(legacy.tensor([1.0], "cpu:0"))
    assert wall.value.source.endswith("qtensor.rs:31")


@row("qops-docs-table", "docs/burn.md's table lists every row of the model's quantized op set, "
     "with its Burn lines", "crates/burn-router/src/ops/qtensor.rs:11-62")
def _() -> None:
    from routerlab.core.fix.qops import OPS

    text = (ROOT / "docs" / "burn.md").read_text(encoding="utf-8")
    for op in OPS:
        first = op.source.split(", ")[0]
        path, _, lines = first.partition(":")
        assert f"| `{op.name}` |" in text and f"{path.removeprefix('crates/')}:{lines}" in text
    assert sum(op.burn.startswith("unimplemented") for op in OPS) == 10


def _add_twice(interpreter: Any, op: Any) -> None:
    """A server's custom-op handler, as Burn's builder example writes one: read the inputs,
    compute with the backend, register the output (`crates/burn-remote/src/server/builder.rs:
    63-73`)."""
    a = interpreter.handles.get_tensor_handle(op.ins[0])
    b = interpreter.handles.get_tensor_handle(op.ins[1])
    result = interpreter.backend.add(interpreter.backend.add(a, b), b)
    interpreter.handles.register(op.outs[0].id, result)


@row("custom-handler-runs", "a custom op reaches the interpreter, which calls the handler "
     "registered for its id: it reads the inputs (a last use frees them) and registers the "
     "outputs", "crates/burn-router/src/interpreter.rs:2107-2108")
def _() -> None:
    from routerlab.core.router.custom_op import CustomOpRegistry

    rt = Runtime(["cpu:0"], custom_ops=CustomOpRegistry().custom_op("add_twice", _add_twice))
    x, y = rt.tensor([1.0, 2.0], "cpu:0"), rt.tensor([10.0, 20.0], "cpu:0")
    (z,) = rt.custom("add_twice", x, y, outputs=[((2,), "f64")])
    assert rt.read(z).tolist() == [21.0, 42.0] and rt.handle_ids("cpu:0") == [int(z.id)]


@row("custom-missing-handler-panics", "an id with no handler panics on the session worker with "
     "Burn's text, which ends the session", "crates/burn-router/src/interpreter.rs:2107-2114")
def _() -> None:
    rt = Runtime(["cpu:0"])
    x = rt.tensor([1.0], "cpu:0")
    with pytest.raises(BurnPanic) as info:
        rt.custom("fused_matmul_add_relu", x, outputs=[((1,), "f64")])
    assert info.value.message == (
        "No custom-op handler registered for `fused_matmul_add_relu`. Register one on the server "
        "via `CustomOpRegistry`/the server builder before starting it.")
    assert info.value.session == "cpu:0" and "ENDED" in rt.registry("cpu:0").caption


@row("custom-registry-last-wins", "registering the same id twice keeps the last handler",
     "crates/burn-router/src/custom_op.rs:52-61")
def _() -> None:
    from routerlab.core.router.custom_op import CustomOpRegistry

    def first(interpreter: Any, op: Any) -> None:
        raise AssertionError("the first handler was replaced")

    registry = CustomOpRegistry().custom_op("add_twice", first).custom_op("add_twice", _add_twice)
    assert len(registry) == 1 and registry["add_twice"] is _add_twice


@row("custom-scenario-step", "a scenario's custom step runs the handler its file names from the "
     "example table, and an id it does not name meets the missing-handler panic, as a server "
     "whose builder registered only that handler (`builder.rs:110-126`)",
     "crates/burn-router/src/interpreter.rs:2107-2114")
def _() -> None:
    from routerlab.core.scenario import load_scenario, run_scenario

    results = list(run_scenario(load_scenario(ROOT / "scenarios" / "custom-op.toml")))
    assert results[4].description == "read y = [22.0, 11.0, -33.0]"
    assert results[5].error is not None and (
        "No custom-op handler registered for `fused_matmul_add_relu`. Register one on the server "
        "via `CustomOpRegistry`/the server builder before starting it.") in results[5].error


@row("custom-served-peer", "a custom op crosses the wire as data to a served peer whose builder "
     "registered the example handlers: its result equals the in-process one bit for bit, and an "
     "id the peer has no handler for panics there with Burn's text, which crosses the wire",
     "crates/burn-router/src/interpreter.rs:2107-2114")
def _() -> None:
    from routerlab.core.router.custom_examples import example_registry
    from routerlab.core.serving import LocalPeers

    def fused(rt: Runtime, device: str) -> bytes:
        a, b, c = (rt.tensor(v, device, "f32") for v in ([0.1, -2.5], [0.2, 7.25], [3.0, 0.3]))
        (y,) = rt.custom("fused_add_mul", a, b, c, outputs=[((2,), "f32")])
        return rt.read(y).tobytes()

    with Runtime(["cpu:0@flex"], custom_ops=example_registry(["fused_add_mul"])) as local:
        expected = fused(local, "cpu:0@flex")
    with LocalPeers(1) as peers, Runtime(peers=peers.addresses) as rt:
        assert fused(rt, "peer1/cpu:0") == expected
        x = rt.tensor([1.0], "peer1/cpu:1", "f32")
        with pytest.raises(BurnPanic) as info:
            (z,) = rt.custom("fused_matmul_add_relu", x, outputs=[((1,), "f32")])
            rt.read(z)
    assert info.value.message.startswith("No custom-op handler registered for "
                                         "`fused_matmul_add_relu`.")
    assert info.value.session == "peer1/cpu:1"


def _params() -> list[Any]:
    return [pytest.param(r, id=r.id, marks=[pytest.mark.xfail(strict=True, reason=r.pending)]
                         if r.pending else []) for r in ROWS]


@pytest.mark.parametrize("claim", _params())
def test_claim(claim: Row) -> None:
    claim.probe()


DOC = ROOT / "docs" / "burn.md"


def _doc_rows() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [rid for line in re.findall(r"^Rows: (.*?)\.$", text, re.M | re.S)
            for rid in re.findall(r"`([a-z0-9-]+)`", line)]


def test_rows_are_many_unique_and_cite_burn_at_the_pin() -> None:
    ids = [r.id for r in ROWS]
    assert len(ids) >= 60 and len(set(ids)) == len(ids)
    for r in ROWS:
        assert re.fullmatch(r"(cubecl:)?crates/[\w./-]+\.(rs|toml):\d+(-\d+)?(, \d+(-\d+)?)*",
                            r.burn), r


def test_docs_burn_links_each_section_to_its_rows() -> None:
    documented = _doc_rows()
    assert sorted(documented) == sorted(r.id for r in ROWS)
    text = DOC.read_text(encoding="utf-8")
    for r in ROWS:
        assert (f"`{r.id}` (pending)" in text) == bool(r.pending), r.id


def test_docs_burn_links_only_to_the_pinned_sources() -> None:
    links = re.findall(r"\]\((https://github\.com/tracel-ai/[^)]+)\)", DOC.read_text("utf-8"))
    assert len(links) > 100
    for link in links:
        assert re.match(rf"https://github\.com/tracel-ai/(burn/blob/{PIN}/|cubecl/blob/"
                        r"48348968468e433235be3db6e7c344c34bc446c0/|burn/(issues|pull)/\d+$|burn$)",
                        link), link
