"""The fast paths of quantize: the same numbers as `reference.py`, in less time and memory.

Three tiers, picked per call:
- **fused** (numba, optional): one compiled loop per chunk does divide, clamp, round and the
  int8 store in one pass (`routerlab.core.quant.fused`). Used for numpy arrays of at least
  `FUSED_MIN` values when numba is installed; `ROUTERLAB_NO_NUMBA=1` turns it off.
- **chunked numpy**: the same steps as whole-array numpy calls on cache-sized chunks through
  preallocated scratch, reused per thread (`threading.local`), so a call allocates only its
  output: the NaN check costs no pass (the f32→int8 cast raises IEEE invalid on a NaN, which
  `np.errstate(invalid="raise")` turns into `FloatingPointError`).
- **whole array**: CuPy arrays, where the GPU runs each step as one kernel.

Large tensors are split across a small thread pool and the calling thread (numpy and numba both
release the GIL), from `PARALLEL_MIN` values on, the same threshold for every tier: no size
where a call gets slower as the tensor grows. docs/performance.md gives the measurements behind
these choices.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np

from .arrays import is_numpy

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

F32 = np.float32
CHUNK = 1 << 17
"""Elements per chunk on the numpy tier (512 KiB of f32 input plus two f32 scratch arrays: the
working set of one chunk stays within a core's L2)."""
PARALLEL_MIN = 1 << 16
"""From this many values a call is split across the thread pool."""
FUSED_MIN = 1 << 15
"""From this many values numba is imported (about 0.3 s the first time) and used when present."""
JUST_BELOW_HALF_BITS = np.uint32(0x3EFFFFFF)
"""The bits of 0.49999997, the largest f32 below 0.5 (see `fused.HALF_DOWN`)."""
SIGN_BIT = np.uint32(0x80000000)
THREADS = max(1, min(8, os.cpu_count() or 1))
PIECES = 4
InvalidMode: TypeAlias = Literal["ignore", "raise"]

_pool: ThreadPoolExecutor | None = None
_fused: ModuleType | None | bool = False
"""`routerlab.core.quant.fused` once imported, None when numba is absent or turned off, False
before the first try."""
_scratch = threading.local()


def fused_module() -> ModuleType | None:
    """The compiled loops, importing numba on first use; None without numba."""
    global _fused
    if _fused is False:
        _fused = None
        if not os.environ.get("ROUTERLAB_NO_NUMBA"):
            try:
                from . import fused
            except ImportError:
                pass
            else:
                _fused = fused
    return _fused  # type: ignore[return-value]


def pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor

        _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="routerlab-quant")
    return _pool


def split(n: int, body: Callable[[int, int], Any]) -> list[Any]:
    """`body(begin, end)` over `[0, n)`: one call below `PARALLEL_MIN`, else `PIECES` contiguous
    ranges per thread, claimed one at a time by the calling thread and `THREADS - 1` pool
    threads. Returns each range's result, in order.

    The caller works too, and waits only for ranges another thread has begun: on a shared
    machine a pool thread may not get a core for milliseconds, and a caller that only waited
    would wait that long for a range it could have done itself (a 1 Mi-value unpack took 0.8 ms
    instead of 0.1 that way)."""
    if n < PARALLEL_MIN or THREADS == 1:
        return [body(0, n)]
    step = max(PARALLEL_MIN // 2, -(-n // (THREADS * PIECES)))
    return _Ranges(n, step, body).run()


class _Ranges:
    """The ranges of one `split`, each claimed once by whichever thread comes first."""

    def __init__(self, n: int, step: int, body: Callable[[int, int], Any]) -> None:
        self.starts = range(0, n, step)
        self.n, self.step, self.body = n, step, body
        self.results: list[Any] = [None] * len(self.starts)
        self.claims = itertools.count()  # `next` on it is atomic under the GIL
        self.lock = threading.Lock()
        self.left = len(self.starts)
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> list[Any]:
        for _ in range(THREADS - 1):
            pool().submit(self.work)
        self.work()
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.results

    def work(self) -> None:
        """Claim and run ranges until none is left; the last one finished wakes the caller."""
        while (i := next(self.claims)) < len(self.starts):
            begin = self.starts[i]
            try:
                self.results[i] = self.body(begin, min(begin + self.step, self.n))
            except BaseException as error:  # re-raised by the caller, as `map` did
                self.error = self.error or error
            with self.lock:
                self.left -= 1
                if self.left == 0:
                    self.done.set()


@dataclass(frozen=True)
class Kernel:
    """The elementwise arithmetic of one profile: `x / s` or `x * (1/s)`, clamp, round."""

    xp: ModuleType
    multiply: bool
    lo: np.float32
    hi: np.float32
    half_even: bool
    fix_nan: bool
    """Some `s_eff` is 0 or its reciprocal overflows, so a NaN quotient can appear from a finite
    input; Rust's `as i8` (and the model) turns it into 0. NaN inputs were refused before."""

    @property
    def invalid(self) -> InvalidMode:
        return "ignore" if self.fix_nan else "raise"

    # --- the numpy tier ---------------------------------------------------------------------

    def _buffers(self, n: int) -> tuple[Any, Any, Any, Any]:
        """Two f32 scratch arrays of `n` and their u32 views: up to `CHUNK`, per thread and
        reused across calls on numpy (so no call pays for fresh pages); otherwise fresh."""
        if not is_numpy(self.xp):
            v, tmp = self.xp.empty(n, F32), self.xp.empty(n, F32)
            return v, tmp, v.view(self.xp.uint32), tmp.view(self.xp.uint32)
        if n > CHUNK:  # a whole-array call (per block, numba absent): not worth keeping
            v, tmp = np.empty(n, F32), np.empty(n, F32)
            return v, tmp, v.view(np.uint32), tmp.view(np.uint32)
        held = getattr(_scratch, "buffers", None)
        if held is None:
            v, tmp = np.empty(CHUNK, F32), np.empty(CHUNK, F32)
            held = _scratch.buffers = (v, tmp, v.view(np.uint32), tmp.view(np.uint32))
        return tuple(b[:n] for b in held)  # type: ignore[return-value]

    def to_int8(self, x: Any, factor: Any, out: Any) -> None:
        """`out = round(clamp(x op factor))` in whole-array steps through scratch (call under
        `np.errstate(all="ignore", invalid=self.invalid)`); shapes of `x`, `factor`, `out`
        broadcast. Half away from zero is `trunc(v ± 0.49999997)`, the truncation done by the
        int8 cast, the signed offset built on the bit pattern (numpy vectorises that, unlike
        `copysign`)."""
        xp = self.xp
        v, tmp, v_bits, tmp_bits = (b.reshape(out.shape) for b in self._buffers(out.size))
        (xp.multiply if self.multiply else xp.divide)(x, factor, out=v)
        xp.clip(v, self.lo, self.hi, out=v)
        if self.half_even:
            xp.rint(v, out=v)
        else:
            xp.bitwise_and(v_bits, SIGN_BIT, out=tmp_bits)
            xp.bitwise_or(tmp_bits, JUST_BELOW_HALF_BITS, out=tmp_bits)
            xp.add(v, tmp, out=v)
        if self.fix_nan:
            v[xp.isnan(v)] = 0
        xp.copyto(out, v, casting="unsafe")

    def _numpy_range(self, x: Any, factor: Any, out: Any) -> None:
        with np.errstate(all="ignore", invalid=self.invalid):
            for begin in range(0, x.size, CHUNK):
                end = min(begin + CHUNK, x.size)
                self.to_int8(x[begin:end], factor, out[begin:end])

    # --- per tensor and per block -----------------------------------------------------------

    def per_tensor(self, x: Any, factor: np.float32) -> Any:
        """int8 values of `x` (any shape) under one factor; `FloatingPointError` on a NaN
        quotient unless `fix_nan`."""
        xp = self.xp
        out = xp.empty(x.shape, xp.int8)
        flat_in, flat_out = x.reshape(-1), out.reshape(-1)
        if not is_numpy(xp):
            with np.errstate(all="ignore", invalid=self.invalid):
                self.to_int8(flat_in, factor, flat_out)
            return out
        fused = fused_module() if x.size >= FUSED_MIN else None
        if fused is None:
            split(x.size, lambda b, e: self._numpy_range(flat_in[b:e], factor, flat_out[b:e]))
            return out
        args = (F32(factor), self.multiply, self.lo, self.hi, self.half_even, self.fix_nan)
        nans = split(x.size, lambda b, e: fused.quantize_flat(flat_in[b:e], *args, flat_out[b:e]))
        self._check_nan(any(nans))
        return out

    def per_block(self, x: Any, factor: np.ndarray, extents: tuple[int, ...],
                  whole: Callable[[Callable[[Any, Any], Any]], Any]) -> Any:
        """int8 values of `x` with one factor per block (`extents`, one per axis). `whole(op)`
        runs `op(values, grid)` on broadcast views (`blocks.blockwise`): the numpy and CuPy
        tiers use it; the fused tier walks rows itself."""
        xp = self.xp
        fused = fused_module() if is_numpy(xp) and x.size >= FUSED_MIN else None
        if fused is None:
            out = xp.empty(x.shape, xp.int8)

            def apply(values: Any, grid: Any) -> Any:
                self.to_int8(values, grid, out.reshape(values.shape))
                return out

            with np.errstate(all="ignore", invalid=self.invalid):
                whole(apply)
            return out
        rows = x.reshape(-1, x.shape[-1])
        out = np.empty(rows.shape, np.int8)
        base = _row_bases(tuple(x.shape), extents)
        flat = np.ascontiguousarray(factor, F32).reshape(-1)
        args = (extents[-1], self.multiply, self.lo, self.hi, self.half_even, self.fix_nan)
        nans = split(rows.shape[0], lambda b, e: fused.quantize_rows(
            rows[b:e], flat, base[b:e], *args, out[b:e]))
        self._check_nan(any(nans))
        return out.reshape(x.shape)

    def _check_nan(self, seen: bool) -> None:
        if seen and not self.fix_nan:
            raise FloatingPointError("NaN quotient")


def _row_bases(shape: tuple[int, ...], extents: tuple[int, ...]) -> np.ndarray:
    """For each row of the `[prod(shape[:-1]), shape[-1]]` view, the flat index of its first
    block in the row-major block grid."""
    grid = [-(-d // e) for d, e in zip(shape, extents, strict=True)]
    base = np.zeros(1, np.int64)
    for dim, extent, blocks_after in zip(shape[:-1], extents[:-1],
                                         _suffix_products(grid), strict=False):
        base = (base[:, None] + (np.arange(dim) // extent * blocks_after)[None, :]).reshape(-1)
    return base


def _suffix_products(grid: list[int]) -> list[int]:
    """`[prod(grid[1:]), prod(grid[2:]), ...]`: the flat stride of each grid axis but the last."""
    out, acc = [], 1
    for n in reversed(grid[1:]):
        acc *= n
        out.append(acc)
    return out[::-1]
