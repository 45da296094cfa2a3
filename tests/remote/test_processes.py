"""Served peers are real processes that never outlive their lesson: stopped together, on
SIGTERM, and when their parent dies; checked with the child's exit status and /proc."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from routerlab.core import Runtime
from routerlab.core.remote import PeerError
from routerlab.core.serving import LocalPeers

BOUND_S = 10.0


def _gone(pid: int) -> bool:
    """Whether `pid` has exited (a zombie counts: it runs nothing any more)."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return True
    return "State:\tZ" in status.read_text()


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_local_peers_stop_cleanly_with_their_client() -> None:
    local = LocalPeers(2)
    addresses = local.start()
    assert len(set(addresses.values())) == 2
    with Runtime(peers=addresses) as rt:
        rt.to_device(rt.tensor([1.0], device="peer1/cpu:0", dtype="f32"), "peer2/cpu:0")
    local.stop()
    assert [p.returncode for p in local.processes] == [-signal.SIGTERM] * 2 or all(
        p.returncode == 0 for p in local.processes)
    assert all(_gone(p.pid) for p in local.processes)


def test_a_peer_exits_when_its_parent_dies(tmp_path: Path) -> None:
    """A parent that starts a peer and is then killed (SIGKILL: no cleanup runs) leaves no
    peer behind: the peer notices it was re-parented and stops by itself."""
    script = ("import sys, time\nfrom routerlab.core.serving import LocalPeers\n"
              "local = LocalPeers(1)\nlocal.start()\nprint(local.processes[0].pid, flush=True)\n"
              "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not _gone(child)
    finally:
        parent.kill()
        parent.wait()
    assert _wait_gone(child), f"peer {child} outlived its parent"


def test_serve_local_stops_every_peer_on_sigterm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROUTERLAB_TOKEN", raising=False)
    serve = subprocess.Popen([sys.executable, "-m", "routerlab", "serve", "--local", "2"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert serve.stdout is not None
        lines = [serve.stdout.readline() for _ in range(5)]
        pids = [int(line.rsplit("pid ", 1)[1].rstrip(")\n")) for line in lines[:2]]
        token = lines[2].split()[1]  # a fresh token, printed for the other terminal
        assert len(token) >= 40 and f"export ROUTERLAB_TOKEN={token}" in lines[2]
        assert "--peer peer1=ws://127.0.0.1:" in lines[3]
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(BOUND_S) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert all(_wait_gone(pid) for pid in pids)


def test_serve_warns_before_it_listens_beyond_loopback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning is said before the peer is started; nothing listens here (the peer itself
    is a stand-in), so the suite binds nothing beyond loopback."""
    from typer.testing import CliRunner

    from routerlab.cli.app import app
    from routerlab.cli.commands import serve
    from routerlab.core.serving import peers as serving

    said: list[str] = []
    monkeypatch.setattr(serve, "_warn", lambda line: said.append(line))
    monkeypatch.setattr(serving, "run_peer", lambda *a, **k: said.append(f"listen on {a[1]}"))
    every_interface = "0.0." + "0.0"  # only ever a value handed to the decision, never bound
    for host in [every_interface, "::", "192.0.2.1"]:  # decided, not served
        assert serve.open_warning(host) == serve.OPEN_WARNING.format(host=host)
    beyond = ["hub.example.org"]  # through the command, to a stand-in peer
    loopback = ["127.0.0.1", "127.8.0.2", "::1", "localhost"]
    for host in beyond + loopback:
        assert serve.open_warning(host) is None or host in beyond
        assert CliRunner().invoke(app, ["serve", "--host", host]).exit_code == 0
    assert said == [line for host in beyond
                    for line in (serve.OPEN_WARNING.format(host=host), f"listen on {host}")] \
        + [f"listen on {host}" for host in loopback]


@pytest.mark.parametrize("blank", ["", " "])
def test_serve_refuses_an_empty_host_without_starting_a_peer(
        blank: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process, with the peer a stand-in: even a refusal that broke would bind nothing."""
    from typer.testing import CliRunner

    from routerlab.cli.app import app
    from routerlab.core.serving import peers as serving

    started: list[object] = []
    monkeypatch.setattr(serving, "run_peer", lambda *a, **k: started.append(a))
    done = CliRunner().invoke(app, ["serve", "--host", blank])
    assert done.exit_code == 2 and started == []
    assert "an empty host would listen on every interface" in done.output


@pytest.mark.parametrize(("flags", "code", "said"), [
    (["--client-memory", str(2**70)], 2, "--client-memory"),
    (["--device", "peer2/cpu:0"], 1, "a served device names no peer"),
    (["--device", "cuda:0"], 1, "cuda:0 is not available: ROUTERLAB_FORCE_NUMPY is set"),
    (["--local", "2", "--device", "cuda:0"], 1, "cuda:0 is not available"),
    (["--local", "2", "--device", "peer2/cpu:0"], 1, "a served device names no peer"),
])
def test_serve_refuses_a_flag_it_cannot_honour_before_it_listens(
        flags: list[str], code: int, said: str) -> None:
    env = {**os.environ, "ROUTERLAB_FORCE_NUMPY": "1"}  # no usable GPU, even on a GPU machine
    done = subprocess.run([sys.executable, "-m", "routerlab", "serve", *flags],
                          capture_output=True, text=True, timeout=60, env=env)
    assert (done.returncode, done.stdout) == (code, ""), done.stderr
    assert said in done.stderr and done.stderr.startswith("error: ")
    assert len(done.stderr.splitlines()) == 1 and "listening" not in done.stderr


def test_serve_local_keeps_the_survivors_serving_when_a_peer_dies(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROUTERLAB_TOKEN", "a-token-for-this-lesson")
    serve = subprocess.Popen([sys.executable, "-m", "routerlab", "serve", "--local", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert serve.stdout is not None and serve.stderr is not None
        lines = [serve.stdout.readline() for _ in range(5)]
        pids = [int(line.rsplit("pid ", 1)[1].rstrip(")\n")) for line in lines[:2]]
        address = lines[1].split()[1]
        assert lines[2] == "token: from ROUTERLAB_TOKEN\n"
        os.kill(pids[0], signal.SIGKILL)  # peer1 dies, as a kill fault makes it
        said = serve.stderr.readline()
        assert said == f"peer1 (pid {pids[0]}) exited with status -9; peer2 keep serving\n"
        with Runtime(peers={"peer2": address}) as rt:  # the survivor serves, with the token
            assert rt.read(rt.tensor([4.0], device="peer2/cpu:0", dtype="f32")).tolist() == [4.0]
        assert serve.poll() is None
        serve.send_signal(signal.SIGINT)
        assert serve.wait(BOUND_S) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert _wait_gone(pids[1])


def test_a_peer_that_dies_is_one_error_and_the_other_peers_are_rolled_back() -> None:
    local = LocalPeers(2)
    addresses = local.start()
    try:
        with Runtime(peers=addresses) as rt:
            x = rt.tensor([1.0, 2.0], device="peer2/cpu:0", dtype="f32")
            rt.tensor([3.0], device="peer1/cpu:0", dtype="f32")
            local.processes[0].kill()  # peer1, between two steps
            local.processes[0].wait()
            with pytest.raises(PeerError, match="peer peer1 .* went away"):
                rt.to_device(x, "peer1/cpu:0")  # the source, peer2, exposed x in this step
            assert x.alive and rt.handle_ids("peer2/cpu:0") == [x.id]  # rolled back on peer2
            assert rt.read(x).tolist() == [1.0, 2.0]
    finally:
        local.stop()


def test_a_port_in_use_is_one_line() -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        serve = subprocess.run([sys.executable, "-m", "routerlab", "serve", "--port", str(port)],
                               capture_output=True, text=True, timeout=60)
    assert serve.returncode == 1
    assert serve.stderr == f"error: cannot listen on 127.0.0.1:{port}: address already in use\n"
