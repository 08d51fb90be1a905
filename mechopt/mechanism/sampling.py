"""Per-report categorical sampling of an arbitrary channel Q: alias tables and a seeded uniform stream.

Report ``i`` with input ``x_i`` is decided by one uniform ``u_i`` in [0, 1): the
``i``-th double of the stream (``numpy.random.Generator.random``), and the
output is ``y_i = A_{x_i}(u_i)`` with Walker's alias table of row ``x_i``
(Vose's construction, 1991): with ``v = k·u`` (k outputs), ``j = ⌊v⌋`` and
``y = j`` when ``v < j + prob[x, j]``, else ``y = alias[x, j]``. Each output
then has probability exactly ``Q[x, y]`` up to the 2⁻⁵³ resolution of ``u``,
and an output with ``Q[x, y] = 0`` is never drawn (its cell has ``prob = 0``
and no cell aliases it).

Because report ``i`` uses exactly the ``i``-th draw, the reports depend only on
the seed and the inputs: not on how the inputs are cut into chunks (successive
calls with one ``Generator`` continue its stream), nor on the thread count
(each thread takes a copy of the stream advanced to its first report with
``BitGenerator.advance``). The work is vectorised over blocks of
:data:`BLOCK` reports (cache-resident buffers), never a Python loop per report;
with numba (``mechopt[fast]``) each block's look-ups are one compiled pass
(:func:`alias_draw`) on the same uniforms, so the reports are identical. A table
larger than :data:`PACK_BYTES` (d = k ≥ 324) misses the CPU cache on almost every
report; it is then also packed into one ``uint32`` per cell (:func:`pack_cells`)
and drawn by :func:`alias_draw_packed`, which prefetches the cells of the reports
ahead and makes the same decisions.

Examples
--------
>>> import numpy as np
>>> from mechopt.mechanism.sampling import AliasSampler
>>> s = AliasSampler(np.array([[0.75, 0.25], [0.25, 0.75]]))
>>> x = np.repeat([0, 1], 50_000)
>>> y = s.sample(x, np.random.default_rng(0))
>>> [round(float(np.mean(y[x == r] == r)), 2) for r in (0, 1)]
[0.75, 0.75]
>>> bool(np.array_equal(y, s.sample_uniforms(x, np.random.default_rng(0).random(x.size))))
True
"""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from mechopt.errors import ParamError, ProblemError
from mechopt.runtime.jit import kernel, prefetch
from mechopt.runtime.rng import as_generator  # re-exported: callers import it from here too

__all__ = [
    "AliasSampler",
    "alias_tables",
    "alias_draw",
    "alias_draw_packed",
    "pack_cells",
    "as_generator",
    "positive_int",
    "check_indices",
    "in_range",
    "BLOCK",
    "PACK_BYTES",
]

#: Reports per vectorised block: its buffers (~2 MB) stay in the CPU cache. Changing it changes speed, never reports.
BLOCK = 1 << 16

#: Alias tables (thresholds + aliases) above this many bytes, a core's L2 here, are drawn from packed cells when
#: compiled. Kernel alone, n = 1e7, d = k (2026-11-26, load ~6): plain / packed 0.027 / 0.029 s at d = 256 (0.6 MB),
#: 0.035 / 0.028 at 384 (1.4 MB), 0.039 / 0.029 at 512, 0.109 / 0.031 at 768, 0.139 / 0.043 at 1024 (10 MB).
PACK_BYTES = 1 << 20

#: Reports ahead whose packed cell :func:`alias_draw_packed` prefetches. d = 1024, uniforms and kernel per block,
#: load ~7: 8 / 16 / 32 / 64 / 128 / 256 ahead took 0.106 / 0.088 / 0.076 / 0.069 / 0.070 / 0.068 s (best of 4).
AHEAD = 64


def alias_tables(Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker alias tables of every row of ``Q`` (Vose's construction, all rows in lock step).

    Returns ``prob`` (d, k) in [0, 1] and ``alias`` (d, k) int32 with, for
    every row x, ``Q[x, y] = (prob[x, y] + Σ_{j: alias[x, j] = y} (1 − prob[x, j])) / k``.
    A cell never paired (a large one, or a small one left by round-off) keeps
    ``prob = 1``. Cost: at most k vectorised steps over the rows.

    Examples
    --------
    >>> prob, alias = alias_tables(np.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]]))
    >>> prob.round(6).tolist(), alias.tolist()
    ([[0.5, 1.0, 0.0], [0.3, 0.6, 1.0]], [[1, 1, 0], [2, 2, 2]])
    """
    Q = np.asarray(Q, dtype=float)
    d, k = Q.shape
    p = Q / Q.sum(axis=1, keepdims=True) * k
    prob = np.ones((d, k))
    alias = np.broadcast_to(np.arange(k, dtype=np.int32), (d, k)).copy()
    small = p < 1.0
    # One stack array per row: small cells in positions [0, ts], large ones in [tl, k).
    S = np.argsort(~small, axis=1, kind="stable").astype(np.int32)
    ts = small.sum(axis=1) - 1
    tl = ts + 1
    rows = np.arange(d)
    while True:
        act = rows[(ts >= 0) & (tl < k)]
        if act.size == 0:
            break
        s, lg = S[act, ts[act]], S[act, tl[act]]
        ps = p[act, s]
        prob[act, s] = ps
        alias[act, s] = lg
        pl = p[act, lg] - (1.0 - ps)
        p[act, lg] = pl
        moved = pl < 1.0  # the large cell became small: it takes the freed small slot, the large stack pops
        S[act[moved], ts[act[moved]]] = lg[moved]
        tl[act[moved]] += 1
        ts[act[~moved]] -= 1
    left = (np.arange(k)[None, :] <= ts[:, None]) & (ts[:, None] >= 0)  # small cells never paired
    if np.any(p[rows[:, None], S][left] < 0.5):  # more than round-off left over: Q was not row-stochastic
        raise ProblemError("alias tables: a row of Q does not sum to 1; validate Q first")
    return prob, alias


@kernel
def alias_draw(x: np.ndarray, u: np.ndarray, k: int, threshold: np.ndarray, alias: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = A_{x[i]}(u[i])``: with v = k·u, j = ⌊v⌋ and f = x·k + j, j when v < threshold[f], else alias[f].

    ``j ≤ k − 1`` always: for u ≤ 1 − 2⁻⁵³ the product k·u is at most k − k·2⁻⁵³,
    more than half an ulp below k unless k is a power of 2 (then it is exact), so
    it never rounds up to k.

    >>> out = np.empty(2, dtype=np.intp)
    >>> alias_draw.python(np.array([0, 0]), np.array([0.1, 0.3]), 2, np.array([0.4, 2.0]), np.array([1, 1]), out)
    >>> out.tolist()
    [0, 1]
    """
    for i in range(x.size):
        v = u[i] * k
        j = int(v)
        f = x[i] * k + j
        a = alias[f]  # loaded unconditionally: a select, not an unpredictable branch
        out[i] = j if v < threshold[f] else a


def pack_cells(threshold: np.ndarray, alias: np.ndarray, k: int) -> np.ndarray:
    """One ``uint32`` per alias cell: ``q << 16 | alias`` with ``q = min(⌊2¹⁶·c⌋, 2¹⁶ − 1)``, ``c = threshold − j``.

    ``c`` is exact (Sterbenz: j ≤ threshold ≤ 2j for j ≥ 1), so is ``2¹⁶·c``; needs k ≤ 2¹⁶.

    >>> pack_cells(np.array([0.5, 2.0]), np.array([1, 1]), 2).tolist()
    [2147483649, 4294901761]
    """
    j = np.arange(threshold.size, dtype=np.int64) % k
    q = np.minimum(np.floor((threshold - j) * 65536.0), 65535.0).astype(np.uint32)
    return (q << np.uint32(16)) | alias.astype(np.uint32)


@kernel
def alias_draw_packed(
    x: np.ndarray, u: np.ndarray, k: int, cells: np.ndarray, threshold: np.ndarray, alias: np.ndarray, out: np.ndarray
) -> None:
    """The reports of :func:`alias_draw` from :func:`pack_cells`: one cache line per report, prefetched ahead.

    With w = v − j and c = threshold[f] − j (both exact), the rule v < threshold[f]
    is w < c. For m = ⌊2¹⁶·w⌋ and q the cell's top 16 bits: m < q implies w < c (j),
    m > q implies w > c (alias), and m = q (probability 2⁻¹⁶) falls back to the
    double compare on the full tables.

    >>> th, al = np.array([0.4, 2.0]), np.array([1, 1])
    >>> out = np.empty(3, dtype=np.intp)
    >>> alias_draw_packed.python(np.array([0, 0, 0]), np.array([0.1, 0.3, 0.19]), 2, pack_cells(th, al, 2), th, al, out)
    >>> out.tolist()
    [0, 1, 0]
    """
    n = x.size
    for i in range(n):
        if i + AHEAD < n:
            prefetch(cells, x[i + AHEAD] * k + int(u[i + AHEAD] * k))
        v = u[i] * k
        j = int(v)
        f = x[i] * k + j
        m = int((v - j) * 65536.0)
        c = cells[f]
        q = c >> 16
        if m != q:
            out[i] = j if m < q else c & 0xFFFF
        else:  # the double compare, as alias_draw
            out[i] = j if v < threshold[f] else alias[f]


class AliasSampler:
    """Draw outputs of a channel Q for given input indices, one uniform per report.

    Parameters
    ----------
    Q : numpy.ndarray, shape (d, k)
        A validated row-stochastic matrix (rows are inputs).

    Examples
    --------
    >>> s = AliasSampler(np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> s.sample(np.array([1, 0, 1]), 7).tolist()
    [1, 0, 1]
    """

    def __init__(self, Q: np.ndarray) -> None:
        self.d, self.k = Q.shape
        prob, alias = alias_tables(Q)
        self.threshold = (prob + np.arange(self.k)[None, :]).ravel()  # j + prob[x, j]: compare v = k·u with it
        self.alias = alias.ravel().astype(np.int16 if self.k <= np.iinfo(np.int16).max else np.int32)
        self._pack = self.threshold.nbytes + self.alias.nbytes > PACK_BYTES and self.k <= 1 << 16
        self._cells: np.ndarray | None = None  # packed on the first compiled draw

    def sample_uniforms(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The outputs of inputs ``x`` given their uniforms ``u`` (the deterministic map; for tests).

        >>> AliasSampler(np.array([[0.5, 0.5]])).sample_uniforms(np.array([0, 0]), np.array([0.1, 0.9])).tolist()
        [0, 1]
        """
        x = np.asarray(x)
        out = np.empty(x.size, dtype=np.intp)
        v = np.asarray(u, dtype=float).copy()
        self._fill(x, v, out, _Buffers(x.size, self.alias.dtype), self._compiled())
        return out

    def _compiled(self) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None:
        """The compiled draw ``(x, u, out)`` for this table (packed cells when large), None on the numpy path."""
        fast = alias_draw.compiled()
        if fast is None:
            return None
        if not self._pack:
            return lambda x, u, out: fast(x, u, self.k, self.threshold, self.alias, out)
        if self._cells is None:
            self._cells = pack_cells(self.threshold, self.alias, self.k)
        packed, cells = alias_draw_packed.compiled(), self._cells
        return lambda x, u, out: packed(x, u, self.k, cells, self.threshold, self.alias, out)

    def _fill(self, x: np.ndarray, v: np.ndarray, out: np.ndarray, buf: "_Buffers", draw: Any) -> None:
        """``out[:] = A_x(v)`` for one block: by ``draw`` when compiled, else in ``buf`` (``v`` overwritten)."""
        n = x.size
        if draw is not None:  # the same decisions, one compiled pass
            draw(x, v, out)
            return
        v *= self.k
        j, flat, keep = buf.j[:n], buf.flat[:n], buf.keep[:n]
        j[...] = v  # ⌊k·u⌋ (truncation of a non-negative double)
        np.multiply(x, self.k, out=flat, dtype=np.intp, casting="unsafe")  # in intp: int16 inputs must not wrap
        flat += j
        np.less(v, self.threshold.take(flat, out=buf.t[:n], mode="clip"), out=keep)
        out[...] = self.alias.take(flat, out=buf.alias[:n], mode="clip")
        np.copyto(out, j, where=keep)

    def sample(self, x: np.ndarray, rng: Any = None, *, threads: int | None = None) -> np.ndarray:
        """Outputs (indices 0..k−1, ``intp``) for input indices ``x`` (validated by the caller).

        ``rng``: a seed (int, ``SeedSequence``, None for fresh entropy) starts a new
        PCG64 stream (``numpy.random.default_rng(seed)``); a ``Generator`` is
        continued and left advanced by ``x.size`` draws, so successive calls on
        chunks give the reports of one call on their concatenation. ``threads``
        > 1 splits the reports over threads (same reports; needs a PCG64 or
        PCG64DXSM bit generator, whose ``advance`` counts draws, else runs on one thread).
        """
        gen = as_generator(rng)
        x = np.asarray(x)
        n = x.size
        out = np.empty(n, dtype=np.intp)
        nthreads = _threads(threads, n)
        bg = gen.bit_generator
        draw = self._compiled()  # packs the cells once, before any thread starts
        if nthreads == 1 or not isinstance(bg, _ADVANCE_BY_DRAWS):
            self._run(x, out, gen, 0, n, draw)
            return out
        bounds = np.linspace(0, n, nthreads + 1).astype(np.int64) // BLOCK * BLOCK
        bounds[-1] = n
        with bg.lock:  # copy, draw and advance as one step: a concurrent call on ``bg`` must not reuse these draws
            gens = []
            for lo in bounds[:-1]:
                b = copy.deepcopy(bg)
                b.advance(int(lo))
                gens.append(np.random.Generator(b))
            with ThreadPoolExecutor(max_workers=nthreads) as pool:
                jobs = [
                    pool.submit(self._run, x, out, g, int(lo), int(hi), draw)
                    for g, lo, hi in zip(gens, bounds, bounds[1:])
                ]
                for job in jobs:
                    job.result()
            _advance(bg, n)  # the caller's generator moves on as if it had drawn the n uniforms itself
        return out

    def _run(self, x: np.ndarray, out: np.ndarray, gen: np.random.Generator, lo: int, hi: int, draw: Any) -> None:
        buf = _Buffers(min(BLOCK, max(hi - lo, 1)), self.alias.dtype)
        for s in range(lo, hi, BLOCK):
            e = min(hi, s + BLOCK)
            u = gen.random(e - s, out=buf.v[: e - s])
            self._fill(x[s:e], u, out[s:e], buf, draw)


class _Buffers:
    """One thread's work arrays for a block (reused across blocks: no allocation per block)."""

    def __init__(self, size: int, alias_dtype: np.dtype) -> None:
        self.v = np.empty(size)
        self.t = np.empty(size)
        self.j = np.empty(size, dtype=np.intp)
        self.flat = np.empty(size, dtype=np.intp)
        self.keep = np.empty(size, dtype=bool)
        self.alias = np.empty(size, dtype=alias_dtype)


#: Bit generators whose ``advance(delta)`` skips exactly ``delta`` 64-bit draws (one per double): threads
#: can start at any report. Philox advances its counter (four draws per step); it and the others run serially.
_ADVANCE_BY_DRAWS = (np.random.PCG64, np.random.PCG64DXSM)


def _advance(bg: Any, n: int) -> None:
    """Advance ``bg`` by ``n`` draws, keeping its buffered 32-bit value (``random`` never touches it)."""
    before = bg.state
    bg.advance(n)
    after = bg.state
    after["has_uint32"], after["uinteger"] = before["has_uint32"], before["uinteger"]
    bg.state = after


def check_indices(x_idx: Any, d: int) -> np.ndarray:
    """``x_idx`` as a 1-D integer array of input indices in 0..d−1; ProblemError naming the first bad position.

    >>> check_indices(np.array([0, 2, 1]), 3).tolist()
    [0, 2, 1]
    """
    x = np.asarray(x_idx)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise ProblemError(f"x_idx must be a 1-D integer array of input indices, got {x.dtype} of shape {x.shape}")
    if not in_range(x, d):
        bad = np.flatnonzero((x < 0) | (x >= d))
        raise ProblemError(
            f"input index {int(x[bad[0]])} at position {int(bad[0])} is outside 0..{d - 1} ({bad.size} such)"
        )
    return x


@kernel
def _count_outside(x: np.ndarray, d: int) -> int:
    """How many of ``x`` are outside 0..d−1 (one pass; a negative value wraps to a huge unsigned one)."""
    bad = 0
    for i in range(x.size):
        bad += np.uint64(x[i]) >= np.uint64(d)
    return bad


def in_range(x: np.ndarray, d: int) -> bool:
    """True when every entry of the integer array ``x`` is in 0..d−1 (one compiled pass, or numpy's min and max).

    >>> in_range(np.array([0, 2, 1]), 3), in_range(np.array([0, 3]), 3), in_range(np.array([-1]), 3)
    (True, False, False)
    """
    if x.size == 0:
        return True
    fast = _count_outside.compiled()
    if fast is not None:
        return fast(x, d) == 0
    return bool(x.min() >= 0 and x.max() < d)


def positive_int(value: Any, name: str) -> int:
    """``value`` as an int ≥ 1, else ParamError naming ``name``.

    >>> positive_int(3, "threads")
    3
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParamError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _threads(threads: int | None, n: int) -> int:
    if threads is None:
        return 1
    return max(1, min(positive_int(threads, "threads"), -(-n // BLOCK)))
