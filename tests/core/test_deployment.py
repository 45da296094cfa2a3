"""`Runtime.deployment()`: the runtime's servers, sessions and registries as data, the model's
own state read back (crates/burn-remote/src/server/session.rs: one registry per session)."""

from __future__ import annotations

from routerlab.core import RegisterLocalOp, RouterLabError, Runtime, TensorIr


def test_sessions_are_grouped_by_peer_with_their_backend_and_ids() -> None:
    rt = Runtime(["cpu:0", "peer2/cpu:0", "cpu:1", "peer3/cpu:0@ndarray"])
    x = rt.tensor([1.0], "cpu:0", "f32")
    z = rt.tensor([2.0], "peer2/cpu:0", "f32")
    rt.add(rt.clone(x), x)
    seen = rt.deployment()
    assert [(p.peer, p.backend) for p in seen.peers] == [
        ("local", "flex"), ("peer2", "flex"), ("peer3", "ndarray")]
    local = {s.device: s.ids for s in seen.peers[0].sessions}
    assert local == {"cpu:0": (2,), "cpu:1": ()}  # x was freed by its last use
    assert seen.peers[1].sessions[0].ids == (int(z.id),)
    assert seen.sessions == 4
    assert all(s.state == "alive" for p in seen.peers for s in p.sessions)


def test_an_ended_session_says_so() -> None:
    rt = Runtime(["cpu:0", "cpu:1"])
    out = rt.tensor([0.0], "cpu:1", "f32")
    try:
        rt.submit("cpu:1", RegisterLocalOp(99, TensorIr.uninit(out.id, out.shape, out.dtype)))
    except RouterLabError:
        pass
    states = {s.device: s.state for s in rt.deployment().peers[0].sessions}
    assert states == {"cpu:0": "alive", "cpu:1": "ended"}
