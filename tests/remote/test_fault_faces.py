"""The faults' faces: `simulate --fault` and the shipped fault scenario with real peers, and
`routerlab doctor` probing the peers it is told about (bounded, one line each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from routerlab.cli.app import app
from routerlab.core.serving import LocalPeers

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "peers" / "kill-mid-transfer.toml"


def _peer_flags(addresses: dict[str, str]) -> list[str]:
    return [flag for name, address in addresses.items() for flag in ("--peer", f"{name}={address}")]


def test_the_shipped_kill_scenario_runs_on_real_peers() -> None:
    with LocalPeers(2) as local:
        result = CliRunner().invoke(app, ["simulate", str(SCENARIO), "--json",
                                          *_peer_flags(local.addresses)])
        assert result.exit_code == 0, result.output
        assert local.processes[0].wait(5) == -9
    steps = json.loads(result.output)["steps"]
    assert "PeerLost" in steps[2]["error"] and "it held #0" in steps[2]["error"]
    assert steps[2]["registries"]["peer1/cpu:0"]["caption"].startswith("LOST")
    assert steps[3]["description"] == "read y = [10.0, 20.0]"


def test_simulate_fault_on_the_command_line(peers: dict[str, str], tmp_path: Path) -> None:
    file = tmp_path / "move.toml"
    file.write_text('devices = ["peer1/cpu:0", "peer2/cpu:0"]\n[[steps]]\nop = "tensor"\n'
                    'name = "x"\nvalues = [1.0]\ndevice = "peer1/cpu:0"\n[[steps]]\n'
                    'op = "to_device"\ntensor = "x"\ndevice = "peer2/cpu:0"\nname = "y"\n')
    drop = "step=2,kind=drop,peer=peer2,message=RegisterTensorRemote"
    result = CliRunner().invoke(app, ["simulate", str(file), "--json", *_peer_flags(peers),
                                      "--fault", drop])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["failure"]["step"] == 2 and doc["failure"]["error"] == "MessageLost"
    assert doc["steps"][0]["registries"]["peer1/cpu:0"]["rows"][0][0] == 0


@pytest.mark.parametrize(("flag", "says", "code"), [
    ("step=1,kind=oops", "unknown fault kind 'oops'", 2),  # a bad value: a usage error
    ("step=9,kind=restart,peer=peer1", "the file has 4 step(s)", 1),  # refused for this file
    ("step=4,kind=race", "a race fault races a to_device step", 1),
])
def test_a_bad_fault_flag_is_one_line(flag: str, says: str, code: int) -> None:
    result = CliRunner().invoke(app, ["simulate", str(SCENARIO), "--fault", flag])
    assert result.exit_code == code
    assert says in (result.output if code == 2 else str(result.exception or result.output))


def test_doctor_reports_reachable_and_unreachable_peers(
        peers: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROUTERLAB_PEERS", "gone=ws://127.0.0.1:1")
    result = CliRunner().invoke(app, ["doctor", "--json", "--peer", f"peer1={peers['peer1']}"])
    report = json.loads(result.output)
    probed = {p["name"]: p for p in report["peers"]}
    assert probed["peer peer1"]["ok"] and "cpu:0, cpu:1 (pid" in probed["peer peer1"]["detail"]
    assert not probed["peer gone"]["ok"] and "not reachable" in probed["peer gone"]["detail"]


def test_a_notebooks_peers_stop_when_its_kernel_ends() -> None:
    """`start_pairs` in a process that then exits without `stop_peers` (a kernel shut down):
    no peer outlives it."""
    import subprocess
    import sys
    import time

    script = ("from routerlab.notebook.peers import start_pairs, stop_peers\n"
              "import routerlab.notebook.peers as p\nstart_pairs(2)\n"
              "print(*[q.pid for peers in p._started for q in peers.processes], flush=True)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 3  # two deployments share peer2
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_a_peer, pids)):  # bounded in time
        time.sleep(0.05)
    assert not any(map(_a_peer, pids))


def _a_peer(pid: int) -> bool:
    """Whether `pid` is still a running served peer (not gone, not a zombie)."""
    try:
        running = "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
        return running and "routerlab.core.serving" in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False
