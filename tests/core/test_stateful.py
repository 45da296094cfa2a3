"""Random programs against a plain numpy model: every read must agree, no handle may leak.

Hypothesis drives create / clone / op / drop / read / transfer across two devices of one peer and
one device of another peer (so all of the local, bytes and forced paths run). After every step the
registries must hold exactly the ids that live client tensors refer to: the invariant Burn's
status rules exist to keep (crates/burn-router/src/tensor.rs, crates/burn-ir/src/handle.rs).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from routerlab.core import Runtime, ShapeError
from routerlab.core.router.tensor import RouterTensor

DEVICES = ["cpu:0", "cpu:1", "peer2/cpu:0"]
DTYPES = ["f32", "i32", "u8"]
PATHS = [None, "bytes", "bridge"]


class RouterModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.rt = Runtime(DEVICES)
        self.live: list[tuple[RouterTensor, np.ndarray]] = []

    def _take(self, index: int) -> tuple[RouterTensor, np.ndarray]:
        return self.live.pop(index % len(self.live))

    def _forget(self, *tensors: RouterTensor) -> None:
        self.live = [t for t in self.live if all(t[0] is not gone for gone in tensors)]

    @rule(values=st.lists(st.integers(0, 9), min_size=4, max_size=4),
          dtype=st.sampled_from(DTYPES), device=st.sampled_from(DEVICES))
    def create(self, values: list[int], dtype: str, device: str) -> None:
        tensor = self.rt.tensor(np.reshape(values, (2, 2)), device, dtype)
        self.live.append((tensor, np.reshape(values, (2, 2)).astype(tensor.dtype.numpy)))

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 99))
    def clone(self, index: int) -> None:
        tensor, ref = self.live[index % len(self.live)]
        self.live.append((self.rt.clone(tensor), ref))

    @precondition(lambda self: len(self.live) >= 2)
    @rule(i=st.integers(0, 99), j=st.integers(0, 99), op=st.sampled_from(["add", "mul", "matmul"]))
    def binary(self, i: int, j: int, op: str) -> None:
        a, ra = self.live[i % len(self.live)]
        def fits(b: RouterTensor) -> bool:
            if op != "matmul":
                return b.shape == a.shape
            return len(a.shape) == len(b.shape) == 2 and a.shape[1] == b.shape[0]

        pairs = [t for t in self.live if t[0] is not a and t[0].device == a.device
                 and t[0].dtype == a.dtype and fits(t[0])]
        if not pairs:
            return
        b, rb = pairs[j % len(pairs)]
        self._forget(a, b)
        expected = {"add": np.add, "mul": np.multiply, "matmul": np.matmul}[op](ra, rb)
        out = getattr(self.rt, op)(a, b)
        self.live.append((out, expected.astype(ra.dtype)))

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 99), shape=st.sampled_from([(4,), (1, 4), (2, 2), (3,)]))
    def reshape(self, index: int, shape: tuple[int, ...]) -> None:
        tensor, ref = self.live[index % len(self.live)]
        if ref.size != 4:
            return
        if shape == (3,):
            before = {d: self.rt.handle_ids(d) for d in DEVICES}
            try:
                self.rt.reshape(tensor, shape)
            except ShapeError:
                assert {d: self.rt.handle_ids(d) for d in DEVICES} == before and tensor.alive
                return
            raise AssertionError("a 4-element tensor reshaped to [3]")
        self._forget(tensor)
        self.live.append((self.rt.reshape(tensor, shape), ref.reshape(shape)))

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 99))
    def swap(self, index: int) -> None:
        tensor, ref = self._take(index)
        if len(tensor.shape) != 2:
            self.live.append((tensor, ref))
            return
        self.live.append((self.rt.swap_dims(tensor, 0, 1), np.swapaxes(ref, 0, 1)))

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 99))
    def drop(self, index: int) -> None:
        tensor, _ = self._take(index)
        self.rt.drop(tensor)

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 99), consume=st.booleans())
    def read(self, index: int, consume: bool) -> None:
        tensor, ref = self.live[index % len(self.live)]
        got = self.rt.read(tensor, consume=consume)
        if consume:
            self._forget(tensor)
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)

    @precondition(lambda self: self.live)
    @rule(index=st.integers(0, 99), device=st.sampled_from(DEVICES), path=st.sampled_from(PATHS),
          arrival=st.sampled_from(["source-first", "target-first"]))
    def transfer(self, index: int, device: str, path: str | None, arrival: str) -> None:
        tensor, ref = self._take(index)
        if str(tensor.device) == device:
            path = None
        self.live.append((self.rt.to_device(tensor, device, path, arrival=arrival), ref))

    @invariant()
    def registries_hold_exactly_the_live_ids(self) -> None:
        for device in DEVICES:
            wanted = sorted({int(t.id) for t, _ in self.live if str(t.device) == device})
            assert self.rt.handle_ids(device) == wanted, device
        assert self.rt.server.pending_transfers() == 0

    @invariant()
    def counts_match_live_references(self) -> None:
        for tensor, _ in self.live:
            assert tensor.count == sum(1 for t, _ in self.live if t._count is tensor._count)

    def teardown(self) -> None:
        for tensor, _ in self.live:
            self.rt.drop(tensor)
        assert all(self.rt.handle_ids(d) == [] for d in DEVICES)


RouterModel.TestCase.settings = settings(
    max_examples=200, stateful_step_count=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestRouterModel = RouterModel.TestCase
