"""Every fault kind, injected into real served peers on loopback: what `legacy` (Burn at the pin)
does beside what RouterLab's fix does, and every registry afterwards.

Burn's reactions (docs/faults.md): a dropped task is never noticed and the first use of the id
panics (`crates/burn-ir/src/handle.rs:97`); a download whose source died returns None and the
session goes on (`crates/burn-communication/src/external_comm.rs:160-174`,
`crates/burn-remote/src/server/worker.rs:258-273`), one that cannot reach it is logged the same
way over Iroh (`crates/burn-remote/src/transport/iroh/transfer.rs:177-186`) and panics over
WebSocket (`external_comm.rs:187-192`); an allocation over the device's memory panics in
CubeCL's `initialize_memory` (`cubecl-cuda/src/compute/server.rs:242-244` at Burn's cubecl pin);
a restarted peer has no handle for an old id (`handle.rs:97`). Kills use their own pair of
peers; the rest share the module's.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import numpy as np
import pytest

from routerlab.core import Runtime
from routerlab.core.base.errors import (
    BurnPanic,
    DeviceOutOfMemory,
    MessageLost,
    MissingHandleError,
    RouterLabError,
    ScenarioError,
    SessionEnded,
    StaleHandle,
    TransferTimedOut,
)
from routerlab.core.remote import PeerError, PeerLost
from routerlab.core.scenario import parse_scenario, run_scenario
from routerlab.core.serving import LocalPeers
from routerlab.core.serving.faults import BURN, FIX, parse_fault, race, reactions_view

X = np.arange(8, dtype=np.float32).reshape(2, 4)


@pytest.fixture
def fresh() -> Iterator[LocalPeers]:
    """Two peers of this test's own (a kill ends one of them)."""
    local = LocalPeers(2)
    local.start()
    try:
        yield local
    finally:
        local.stop()
    assert all(p.returncode is not None for p in local.processes)


def _ids(rt: Runtime) -> dict[str, list[int]]:
    return {str(d): [int(row[0]) for row in rt.registry(d).rows] for d in rt.devices}


def _setup(rt: Runtime) -> tuple[object, dict[str, list[int]]]:
    x = rt.tensor(X, device="peer1/cpu:0")
    rt.tensor([1.0, 2.0], device="peer2/cpu:0", dtype="f32")
    return x, _ids(rt)


def _inject(rt: Runtime, spec: str) -> None:
    rt.server.inject(parse_fault(spec))  # type: ignore[attr-defined]


# --- kill ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["before", "during"])
def test_fix_a_peer_killed_before_or_during_a_transfer_is_named_and_the_others_undo(
        fresh: LocalPeers, when: str) -> None:
    with Runtime(peers=fresh.addresses) as rt:
        x, before = _setup(rt)
        _inject(rt, f"step=1,kind=kill,peer=peer1,when={when}")
        with pytest.raises(PeerLost, match=r"peer peer1 .* went away during this step: it held "
                                           r"#0 \(f32 \[2, 4\]\) on peer1/cpu:0 .*: lost"):
            rt.to_device(x, "peer2/cpu:1")
        assert fresh.processes[0].wait(5) == -9  # really killed
        assert _ids(rt) == before  # peer2 as it was; peer1's last kept rows, shown as lost
        assert rt.registry("peer1/cpu:0").caption.startswith("LOST: peer peer1")
        assert "peer2/cpu:1" not in map(str, rt.devices)
        with pytest.raises(SessionEnded, match="went away"):
            rt.read(x)  # type: ignore[arg-type]
        assert rt.read(rt.tensor([3.0], device="peer2/cpu:0", dtype="f32")).tolist() == [3.0]


def test_fix_a_peer_killed_after_the_transfer_took_the_moved_tensor(fresh: LocalPeers) -> None:
    with Runtime(peers=fresh.addresses) as rt:
        x, _ = _setup(rt)
        _inject(rt, "step=1,kind=kill,peer=peer2,when=after")
        moved = rt.to_device(x, "peer2/cpu:1")  # kept, then peer2 dies
        assert fresh.processes[1].wait(5) == -9
        with pytest.raises(PeerLost, match=r"peer peer2 .* went away during this step: it held "
                                           r".*#2 \(f32 \[2, 4\]\) on peer2/cpu:1"):
            rt.read(moved)  # the first use finds out
        with pytest.raises(SessionEnded, match="went away"):
            rt.read(moved)
        assert rt.handle_ids("peer1/cpu:0") == []  # the source gave it up when the step was kept


def test_legacy_a_source_killed_during_the_download_loses_the_tensor_silently(
        fresh: LocalPeers) -> None:
    """Burn: the download returns None, the error is logged, the step 'succeeds'; the new id is
    never registered, so its first use panics on the target."""
    with Runtime(peers=fresh.addresses, policy="legacy") as rt:
        x, _ = _setup(rt)
        _inject(rt, "step=1,kind=kill,peer=peer1,when=during")
        moved = rt.to_device(x, "peer2/cpu:1")
        events = [e.detail for e in rt.trace.read() if e.kind == "timeout"]
        assert any("when its source went away" in str(d) for d in events)
        with pytest.raises(MissingHandleError, match="Should have handle for tensor"):
            rt.read(moved)
        assert "ENDED: panicked" in rt.registry("peer2/cpu:1").caption


def test_legacy_a_source_killed_before_the_download_over_websocket_panics_the_target(
        fresh: LocalPeers) -> None:
    """WebSocket: `get_data_stream` panics when it cannot connect (external_comm.rs:187-192)."""
    with Runtime(peers=fresh.addresses, policy="legacy", transport="websocket") as rt:
        x, _ = _setup(rt)
        _inject(rt, "step=1,kind=kill,peer=peer1,when=before")
        with pytest.raises(BurnPanic, match="Failed to open remote 'data' channel") as error:
            rt.to_device(x, "peer2/cpu:1")
        assert error.value.source == "crates/burn-communication/src/external_comm.rs:187-192"


def test_legacy_a_source_killed_before_the_download_over_iroh_loses_the_tensor(
        fresh: LocalPeers) -> None:
    """Iroh (the default): a stream that cannot be opened is logged and `download_tensor`
    returns None (crates/burn-remote/src/transport/iroh/transfer.rs:177-186); the target session
    goes on without the tensor, whose first use panics."""
    with Runtime(peers=fresh.addresses, policy="legacy") as rt:
        x, _ = _setup(rt)
        _inject(rt, "step=1,kind=kill,peer=peer1,when=before")
        moved = rt.to_device(x, "peer2/cpu:1")
        lines = [str(e.detail) for e in rt.trace.read() if e.kind == "timeout"]
        assert any("could not reach its source" in line and "iroh/transfer.rs:177-186" in line
                   for line in lines), lines
        assert rt.registry("peer2/cpu:1").caption.count("ENDED") == 0
        with pytest.raises(MissingHandleError, match="Should have handle for tensor"):
            rt.read(moved)


# --- drop, delay ----------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["native", "legacy"])
def test_a_dropped_register_is_caught_by_the_fix_and_panics_later_in_burn(
        peers: dict[str, str], policy: str) -> None:
    with Runtime(peers=peers, policy=policy) as rt:
        x, before = _setup(rt)
        _inject(rt, "step=1,kind=drop,peer=peer2,message=RegisterTensorRemote")
        if policy == "native":
            with pytest.raises(MessageLost, match="received 0 of the 1 tasks"):
                rt.to_device(x, "peer2/cpu:1")
            assert _ids(rt) == before
            assert rt.read(x).tolist() == X.tolist()  # type: ignore[arg-type]
            return
        moved = rt.to_device(x, "peer2/cpu:1")  # nobody notices
        assert rt.handle_ids("peer1/cpu:0") == []
        with pytest.raises(MissingHandleError):
            rt.read(moved)


@pytest.mark.parametrize("policy", ["native", "legacy"])
def test_an_expose_delayed_past_the_iroh_wait(peers: dict[str, str], policy: str) -> None:
    with Runtime(peers=peers, policy=policy, transport="iroh") as rt:
        x, before = _setup(rt)
        _inject(rt, "step=1,kind=delay,peer=peer1,message=ExposeTensorRemote,seconds=0.5")
        if policy == "native":
            with pytest.raises(TransferTimedOut, match=r"gave up waiting for transfer \d+"):
                rt.to_device(x, "peer2/cpu:1")
            assert _ids(rt) == before  # the source has its tensor back
            return
        moved = rt.to_device(x, "peer2/cpu:1")  # logged, the session goes on
        assert rt.handle_ids("peer1/cpu:0") == [] and rt.handle_ids("peer2/cpu:1") == []
        with pytest.raises(MissingHandleError):
            rt.read(moved)


def test_a_short_delay_only_slows_the_move(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as rt:
        x, _ = _setup(rt)
        _inject(rt, "step=1,kind=delay,peer=peer1,message=ExposeTensorRemote,seconds=0.1")
        start = time.monotonic()
        moved = rt.to_device(x, "peer2/cpu:1")
        assert time.monotonic() - start >= 0.1
        assert rt.read(moved).tolist() == X.tolist()


# --- oom ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["native", "legacy"])
def test_an_allocation_over_the_device_limit(peers: dict[str, str], policy: str) -> None:
    with Runtime(peers=peers, policy=policy) as rt:
        x, before = _setup(rt)
        rt.tensor([0.0], device="peer2/cpu:1", dtype="f32")  # 4 bytes held
        before = _ids(rt)
        _inject(rt, "step=1,kind=oom,device=peer2/cpu:1,limit=20")  # 4 + 32 > 20
        if policy == "native":
            with pytest.raises(DeviceOutOfMemory, match="allocating 32 bytes with 4 held"):
                rt.to_device(x, "peer2/cpu:1")
            assert _ids(rt) == before and "alive" in rt.registry("peer2/cpu:1").caption
            return
        # Burn: initialize_memory's panic fires on CubeCL's device runner, which catches and logs
        # it (cubecl-common channel.rs:713-715): the move returns, the session goes on, and the
        # handle it registered was never initialised (cubecl-runtime client.rs:646-648).
        moved = rt.to_device(x, "peer2/cpu:1")
        assert "alive" in rt.registry("peer2/cpu:1").caption
        assert len(rt.handle_ids("peer2/cpu:1")) == 2  # the 4-byte tensor and the moved one
        with pytest.raises(RouterLabError, match="^Memory location was never initialized") as error:
            rt.read(moved)  # its first use (memory_manage.rs:979-983)
        assert not isinstance(error.value, BurnPanic)
        assert "alive" in rt.registry("peer2/cpu:1").caption  # not a panic of the worker
        assert rt.read(rt.tensor([5.0], device="peer2/cpu:1")).tolist() == [5.0]


# --- restart --------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["native", "legacy"])
def test_a_stale_handle_after_a_restart(peers: dict[str, str], policy: str) -> None:
    with Runtime(peers=peers, policy=policy) as rt, Runtime(peers=peers) as other:
        x = rt.tensor(X, device="peer1/cpu:0")
        old = rt.server.peers["peer1"].instance  # type: ignore[attr-defined]
        _inject(rt, "step=1,kind=restart,peer=peer1")
        assert rt.server.peers["peer1"].instance != old  # type: ignore[attr-defined]
        assert rt.handle_ids("peer1/cpu:0") == []  # the new instance is empty
        with pytest.raises(PeerError):  # every client's connection was closed
            other.tensor([1.0], device="peer1/cpu:0")
        if policy == "native":
            with pytest.raises(StaleHandle, match=r"#0 on peer1/cpu:0 is stale: peer1 restarted"):
                rt.read(x)
            assert rt.read(rt.tensor([5.0], device="peer1/cpu:0", dtype="f32")).tolist() == [5.0]
            return
        with pytest.raises(MissingHandleError, match="TensorId { value: 0 }"):
            rt.read(x)  # the id reaches the fresh session, which has no handle for it


# --- race -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["peer1/cpu:1", "peer2/cpu:0"])
def test_two_clients_racing_the_same_transfer_id_each_get_their_own(
        peers: dict[str, str], target: str) -> None:
    with Runtime(peers=peers) as rt:
        x = rt.tensor(X, device="peer1/cpu:0")
        got: dict[str, object] = {}

        def step() -> str:
            got["moved"] = rt.to_device(x, target)
            return "moved"

        line = race(rt, step, x.device, target)
        assert "got its own values back" in line
        assert rt.read(got["moved"]).tolist() == X.tolist()  # type: ignore[arg-type]


# --- the faces' common parts ----------------------------------------------------------------------


def test_scenario_faults_run_with_real_peers(fresh: LocalPeers) -> None:
    text = f"""
devices = ["peer1/cpu:0", "peer2/cpu:0"]
[peers]
peer1 = "{fresh.addresses['peer1']}"
peer2 = "{fresh.addresses['peer2']}"
[[steps]]
op = "tensor"
name = "x"
values = [1.0, 2.0]
dtype = "f32"
device = "peer1/cpu:0"
[[steps]]
op = "to_device"
tensor = "x"
device = "peer2/cpu:0"
name = "y"
expect_error = "PeerLost"
[[faults]]
step = 2
kind = "kill"
peer = "peer1"
when = "during"
"""
    results = list(run_scenario(parse_scenario(text)))
    assert "went away during this step" in str(results[1].error)
    assert results[1].registries["peer1/cpu:0"].caption.startswith("LOST")
    assert results[1].registries["peer2/cpu:0"].rows == []


@pytest.mark.parametrize(("spec", "says"), [
    ("step=1,kind=explode", "unknown fault kind 'explode'"),
    ("step=1,kind=kill", "field 'peer': missing"),
    ("step=1,kind=kill,peer=peer1,when=later", "unknown moment of a kill 'later'"),
    ("step=1,kind=drop,peer=peer1,message=Sync", "drop one of"),
    ("step=1,kind=delay,peer=peer1,message=Download,seconds=60", "at most 10 s"),
    ("step=1,kind=oom,device=cpu:0,limit=5", "a device of a served peer"),
    ("step=0,kind=restart,peer=peer1", "from 1"),
    ("step=1,kind=restart,peer=peer1,seconds=2", "does not take it"),
    ("kill", "key=value pairs"),
])
def test_a_bad_fault_is_one_line(spec: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=says):
        parse_fault(spec)


def test_faults_need_served_peers_and_a_peer_must_allow_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = ('devices = ["cpu:0", "cpu:1"]\n[[steps]]\nop = "tensor"\nname = "x"\nvalues = [1]\n'
            'device = "cpu:0"\n[[faults]]\nstep = 1\nkind = "restart"\npeer = "peer1"\n')
    with pytest.raises(ScenarioError, match="faults need served peers"):
        list(run_scenario(parse_scenario(text)))
    with pytest.raises(ScenarioError, match="has 1 step"):
        parse_scenario(text.replace("step = 1", "step = 4"))
    monkeypatch.setenv("ROUTERLAB_TOKEN", "a-token-shared-by-this-test")  # serve's and ours
    serve = subprocess.Popen([sys.executable, "-m", "routerlab", "serve", "--device", "cpu:0"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert serve.stdout is not None
        address = serve.stdout.readline().split()[4]
        with Runtime(peers={"peer1": address}) as rt:
            with pytest.raises(RouterLabError, match="does not take faults"):
                _inject(rt, "step=1,kind=kill,peer=peer1,when=before")
            assert rt.read(rt.tensor([1.0], device="peer1/cpu:0", dtype="f32")).tolist() == [1.0]
    finally:
        serve.terminate()
        serve.wait(10)


def test_every_fault_says_what_burn_does_with_its_sources_and_what_the_fix_does() -> None:
    assert set(BURN) == set(FIX)
    assert all(r.sources and all(s.startswith("crates/") for s in r.sources)
               for r in BURN.values())
    view = reactions_view()
    assert [row[0] for row in view.rows] == list(BURN)


def test_the_wire_table_counts_the_bytes_on_the_data_socket(peers: dict[str, str]) -> None:
    with Runtime(peers=peers) as rt:
        x = rt.tensor(np.zeros(4096, dtype=np.float32), device="peer1/cpu:0")  # 16 KiB up
        before = {row[0]: row[2] for row in rt.server.wire_view().rows}  # type: ignore[attr-defined]
        rt.to_device(x, "peer2/cpu:0")
        after = {row[0]: row[2] for row in rt.server.wire_view().rows}  # type: ignore[attr-defined]
        crossed = {k: v - before.get(k, 0) for k, v in after.items()}
        assert crossed["peer1 -> peer2 /data"] > 16384  # the bytes went peer to peer
        assert all(v < 1024 for k, v in crossed.items() if "client" in k)  # never via the client


def test_a_restarted_source_serves_the_next_download_on_a_new_connection(
        peers: dict[str, str]) -> None:
    """peer2's /data connection to peer1 was closed by the restart: it opens a new one."""
    with Runtime(peers=peers) as rt:
        rt.to_device(rt.tensor([1.0], device="peer1/cpu:0", dtype="f32"), "peer2/cpu:0")
        _inject(rt, "step=1,kind=restart,peer=peer1")
        moved = rt.to_device(rt.tensor([2.0], device="peer1/cpu:0", dtype="f32"), "peer2/cpu:0")
        assert rt.read(moved).tolist() == [2.0]
