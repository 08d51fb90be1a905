"""Frequency-oracle throughput: users per second of randomize + estimate, ours vs pure-ldp and multi-freq-ldpy.

n = 10^6 users (quick: 2·10^4), d ∈ {64, 256} (quick: 64), ε = 1, items drawn
uniformly. For each mechanism (GRR, OUE, k-subset/SS) two rows:

- ``per-user``: our vectorised per-user randomizer (every user's report is
  materialised) + support counts + the unbiased estimate; reports are
  ``packbits`` d-bit rows (OUE; the k-subset as its membership mask, the shorter
  message when k·log2(d) > d, drawn by :mod:`mechopt.oracles.packed`) or items (GRR);
- ``per-user items`` (k-subset only): the same with each report as its k items
  (Algorithm 1 by Floyd's sampling, what a client sends when k·log2(d) < d);
- ``aggregate``: the support counts drawn directly with the distribution the
  per-user reports induce (``simulate_counts``: exact, cost independent of n)
  + the estimate — what a simulation needs when only the counts matter.

The reference is the fastest peer's per-user client plus its aggregator, timed
on ``PEER_USERS`` users (its cost is linear in n: one Python call per user)
and scaled to n; ``ratio`` = reference_s / ours_s (> 1: ours is faster).
Peers: pure-ldp 1.2.0 (DE, OUE) and multi-freq-ldpy (GRR, OUE, SS, numba-compiled
client for SS).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mechopt import Mechanism
from mechopt.jobs.bench import median_time, timed
from mechopt.oracles.bits import OUE
from mechopt.oracles.frequency import GRR, KSubset

EPS = 1.0
PEER_USERS = 20_000


def _note(mech: str, kind: str) -> str:
    if kind == "aggregate":
        return "counts drawn exactly from their distribution (no per-user reports)"
    as_items = mech == "GRR" or kind.endswith("items")
    return "every user's report materialised as " + ("its items" if as_items else "a d-bit mask")


def _ours(mech: str, d: int):
    return {"GRR": GRR(d, EPS), "OUE": OUE(d, EPS), "SS": KSubset(d, EPS)}[mech]


def _peer_runs(mech: str, d: int, n: int) -> dict[str, Callable[[], Any]]:
    """Peer pipelines (client per user + the library's aggregator) on n users, by label."""
    rng = np.random.default_rng(1)
    xs = rng.integers(0, d, size=n).tolist()
    runs: dict[str, Callable[[], Any]] = {}
    try:
        from multi_freq_ldpy.pure_frequency_oracles import GRR as mg
        from multi_freq_ldpy.pure_frequency_oracles import SS as ms
        from multi_freq_ldpy.pure_frequency_oracles import UE as mu

        if mech == "GRR":
            runs["multi-freq-ldpy GRR"] = lambda: mg.GRR_Aggregator_MI([mg.GRR_Client(x, d, EPS) for x in xs], d, EPS)
        elif mech == "OUE":
            runs["multi-freq-ldpy OUE"] = lambda: mu.UE_Aggregator_MI(
                [mu.UE_Client(x, d, EPS, True) for x in xs], EPS, True
            )
        else:
            runs["multi-freq-ldpy SS"] = lambda: ms.SS_Aggregator_MI([ms.SS_Client(x, d, EPS) for x in xs], d, EPS)
    except ImportError:
        pass
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
        from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

        ident = lambda v: v  # noqa: E731
        if mech == "GRR":

            def de():
                c, s = DEClient(EPS, d, index_mapper=ident), DEServer(EPS, d, index_mapper=ident)
                s.aggregate_all([c.privatise(x) for x in xs])
                return s.estimate_all(range(d), suppress_warnings=True)

            runs["pure-ldp DE"] = de
        elif mech == "OUE":

            def ue():
                c, s = (
                    UEClient(EPS, d, use_oue=True, index_mapper=ident),
                    UEServer(EPS, d, use_oue=True, index_mapper=ident),
                )
                s.aggregate_all([c.privatise(x) for x in xs])
                return s.estimate_all(range(d), suppress_warnings=True)

            runs["pure-ldp OUE"] = ue
    except ImportError:
        pass
    return runs


def _missing_peers() -> str:
    """What to say when no peer ran: which are missing and how to install them."""
    from mechopt.oracles.peers import available

    gone = [lib for lib in ("pure-ldp", "multi-freq-ldpy") if not available(lib)]
    return (
        ("no peer ran: " + ", ".join(gone) + " not installed (pip install 'mechopt[peers]')") if gone else "no peer ran"
    )


def _case(mech: str, quick: bool) -> list[dict[str, Any]]:
    n = 20_000 if quick else 1_000_000
    ds = (64,) if quick else (64, 256)
    peer_n = 2_000 if quick else PEER_USERS
    repeats = 1 if quick else 3
    rows = []
    for d in ds:
        orc = _ours(mech, d)
        rng = np.random.default_rng(0)
        x = rng.integers(0, d, size=n)

        def per_user(**kw):
            return orc.estimate(orc.support_counts(orc.randomize(x, rng, **kw)), n)

        def aggregate():
            return orc.estimate(orc.simulate_counts(np.bincount(x, minlength=d), rng), n)

        kinds = [("per-user", median_time(lambda: per_user(**({"packed": True} if mech == "SS" else {})), repeats))]
        if mech == "SS":  # the same mechanism, reports as item lists
            kinds.append(("per-user items", median_time(per_user, repeats)))
        kinds.append(("aggregate", median_time(aggregate, repeats)))
        peers = {}
        for label, run in _peer_runs(mech, d, peer_n).items():
            run()  # warm-up (numba compile)
            peers[label] = median_time(run, 1) * n / peer_n  # scaled to n users
        best = min(peers, key=peers.get) if peers else None
        ref_s = peers.get(best) if best else None
        peer_txt = ", ".join(f"{k}: {n / v:,.0f} users/s" for k, v in peers.items()) or _missing_peers()
        k_txt = f", k={orc.k}" if mech == "SS" else ""
        for kind, t in kinds:
            rows.append(
                {
                    "group": "oracles",
                    "case": f"{mech} d={d} n={n:.0e} eps={EPS} {kind}",
                    "ours": f"mechopt {type(orc).__name__} {kind}",
                    "ours_s": t,
                    "reference": best,
                    "reference_s": ref_s,
                    "ratio": None if ref_s is None else ref_s / t,
                    "repeats": repeats,
                    "users_per_s": n / t,
                    "notes": f"peers timed on {peer_n} users and scaled to n ({peer_txt}){k_txt}; " + _note(mech, kind),
                }
            )
    return rows


def case_grr(quick: bool = False) -> list[dict[str, Any]]:
    """GRR (ours) vs pure-ldp DE and multi-freq-ldpy GRR."""
    return _case("GRR", quick)


def case_oue(quick: bool = False) -> list[dict[str, Any]]:
    """OUE (ours) vs pure-ldp OUE and multi-freq-ldpy OUE."""
    return _case("OUE", quick)


def case_subset(quick: bool = False) -> list[dict[str, Any]]:
    """k#-subset (ours, Algorithm 1 vectorised) vs multi-freq-ldpy SS (numba client)."""
    return _case("SS", quick)


# ---------------------------------------------------------------- the numpy floor
FLOOR_N = 10_000_000


def _floor_fn(kind: str, n: int, d: int, rng: np.random.Generator) -> Callable[[], Any]:
    """The numpy floor: n uniforms written as int16 items, or n·d random bits straight into packed rows."""
    if kind == "items":  # drawn in cache-sized chunks straight into the int16 output (no n-double temporary)

        def items():
            out = np.empty(n, dtype=np.int16)
            for lo in range(0, n, 1 << 16):
                out[lo : lo + (1 << 16)] = rng.random(min(1 << 16, n - lo))
            return out

        return items
    w = (d + 7) // 8
    return lambda: rng.bit_generator.random_raw((n * w + 7) // 8).view(np.uint8)[: n * w].reshape(n, w)


def _interleaved(ours: Callable[[], Any], floor: Callable[[], Any], rounds: int) -> tuple[float, float, float, float]:
    """Best wall and CPU times of ``ours`` and ``floor`` run alternately: (wall ours, wall floor, cpu ours, cpu floor).

    CPU time (``time.process_time``, this process only) is what the ratio uses: on a
    shared machine a long run loses more wall time to other jobs than a short one.
    """
    w_o = w_f = c_o = c_f = math.inf
    for _ in range(rounds):
        for fn, slot in ((ours, 0), (floor, 1)):
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            if slot == 0:
                w_o, c_o = min(w_o, wall), min(c_o, cpu)
            else:
                w_f, c_f = min(w_f, wall), min(c_f, cpu)
    return w_o, w_f, c_o, c_f


def _peer_samplers(mech: str, d: int, n: int) -> dict[str, Callable[[], Any]]:
    """The peers' per-user clients alone (no aggregation) on n users, by label; empty without the peers extra."""
    xs = np.random.default_rng(1).integers(0, d, size=n).tolist()
    runs: dict[str, Callable[[], Any]] = {}
    try:
        from multi_freq_ldpy.pure_frequency_oracles import GRR as mg
        from multi_freq_ldpy.pure_frequency_oracles import UE as mu

        if mech == "GRR":
            runs["multi-freq-ldpy GRR_Client"] = lambda: [mg.GRR_Client(x, d, EPS) for x in xs]
        elif mech == "OUE":
            runs["multi-freq-ldpy UE_Client"] = lambda: [mu.UE_Client(x, d, EPS, True) for x in xs]
    except ImportError:
        pass
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient
        from pure_ldp.frequency_oracles.unary_encoding import UEClient

        if mech == "GRR":
            c = DEClient(EPS, d, index_mapper=lambda v: v)
            runs["pure-ldp DEClient"] = lambda: [c.privatise(x) for x in xs]
        elif mech == "OUE":
            u = UEClient(EPS, d, use_oue=True, index_mapper=lambda v: v)
            runs["pure-ldp UEClient"] = lambda: [u.privatise(x) for x in xs]
    except ImportError:
        pass
    return runs


def case_floor(quick: bool = False) -> list[dict[str, Any]]:
    """Per-user randomizers at n = 10^7 reports as a multiple of the numpy floor in the same run (goal ≤ 3×).

    Floor: for item reports (GRR; ``Mechanism.randomize`` of a random d × d Q; k-subset items,
    n·k of them) numpy drawing as many uniforms and writing them as the int16 output; for bit reports
    (OUE, packed k-subset) drawing n·d random bits straight into the (n, ⌈d/8⌉) uint8 output
    (``random_raw``); ours and the floor alternate, best of 5 each, in CPU time of this process
    (``time.process_time``; the wall times are in the notes). ``ratio`` = floor_s / ours_s.
    ``MECHOPT_BENCH_FLOOR="OUE,k-subset packed"`` runs only the named samplers,
    ``MECHOPT_BENCH_ROUNDS=3`` fewer alternations.
    GRR/OUE also give the fastest peer's client (timed on 20 000 users, scaled). The first row's notes
    say whether the numba kernels ran and their cold compile time (a fresh process, empty cache).
    """
    n = 100_000 if quick else FLOOR_N
    only = [m for m in os.environ.get("MECHOPT_BENCH_FLOOR", "").split(",") if m]  # e.g. "OUE,k-subset packed"
    rounds = 1 if quick else int(os.environ.get("MECHOPT_BENCH_ROUNDS", "5"))
    rows = []
    for d in (16,) if quick else (16, 256, 1024):
        x = np.random.default_rng(0).integers(0, d, size=n)
        rng = np.random.default_rng(1)
        orcs = {"GRR": (GRR(d, EPS), {}, "items"), "OUE": (OUE(d, EPS), {}, "bits")}
        orcs["k-subset packed"] = (KSubset(d, EPS), {"packed": True}, "bits")
        orcs["k-subset items"] = (KSubset(d, EPS), {}, "items")
        orcs["Mechanism"] = (Mechanism(np.random.default_rng(d).dirichlet(np.ones(d), size=d)), {}, "items")
        for mech, (orc, kw, kind) in orcs.items():
            if only and mech not in only:
                continue
            m = n if mech != "k-subset items" or d < 1024 else n // 10  # items at d=1024: n*k int16 = 5.5 GB at 1e7
            size = m * (orc.k if mech == "k-subset items" else 1)
            orc.randomize(x[:1000], rng, **kw)  # warm-up: tables built outside the timing
            wall, wall_f, cpu, cpu_f = _interleaved(
                lambda: orc.randomize(x[:m], rng, **kw), _floor_fn(kind, size, d, rng), rounds
            )
            peers = {}
            for label, run in _peer_samplers(mech, d, 2_000 if quick else PEER_USERS).items():
                peers[label] = timed(run, 1)[0] * n / (2_000 if quick else PEER_USERS)
            best = min(peers, key=peers.get) if peers else None
            peer_txt = (
                f"; fastest peer {best}: {peers[best]:.3g} s scaled to n ({peers[best] / wall:.0f}x ours)"
                if best
                else ("; peers skipped: " + _missing_peers() if mech in ("GRR", "OUE") else "")
            )
            rows.append(
                {
                    "group": "oracle floor",
                    "case": f"{mech} randomize d={d} n={m:.0e} eps={EPS}",
                    "ours": f"mechopt {type(orc).__name__}.randomize",
                    "ours_s": cpu,
                    "reference": "numpy floor ("
                    + ("uniforms -> int16, chunked" if kind == "items" else "n*d random bits")
                    + ")",
                    "reference_s": cpu_f,
                    "ratio": cpu_f / cpu,
                    "repeats": rounds,
                    "notes": f"{cpu / cpu_f:.2f}x the floor in CPU time (goal <= 3x); wall {wall:.3g} s vs "
                    f"{wall_f:.3g} s = {wall / wall_f:.2f}x{peer_txt}"
                    + (_MECH_NOTE if mech == "Mechanism" else "")
                    + ("" if rows else "; " + _jit_note()),
                }
            )
    return rows


_MECH_NOTE = "; random Q (rows Dirichlet(1)), alias tables d x d, labels 0..d-1, intp output"


def _jit_note() -> str:
    """Whether the compiled kernels ran, and their cold compile time (a fresh process, an empty numba cache)."""
    import subprocess
    import sys
    import tempfile

    from mechopt.runtime.jit import available

    if not available():
        return "kernels off (numba missing or MECHOPT_JIT=0): the numpy path"
    code = (
        "import time, numpy as np\n"
        "from mechopt.oracles.bits import OUE\nfrom mechopt.oracles.frequency import GRR\n"
        "from mechopt import Mechanism\n"
        "x = np.arange(64) % 16; t = time.perf_counter()\n"
        "OUE(16, 1.0).randomize(x, np.random.default_rng(0)); GRR(16, 1.0).randomize(x, np.random.default_rng(0))\n"
        "Mechanism(np.full((16, 16), 1 / 16)).randomize_indices(x, 0); print(time.perf_counter() - t)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout)
        warm = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout)
    return f"numba kernels on; first calls {cold:.2f} s cold (empty cache: compile), {warm:.2f} s from the disk cache"


def case_aggregate_large(quick: bool = False) -> list[dict[str, Any]]:
    """k-subset ``simulate_counts`` at the literature's largest setting: K = 3.3·10^6, ε = 5, n = 10^5 (k = 22 086).

    Reference: the per-user floor of the same data (n·K random bits drawn, in
    chunks of 64 MB: what any per-user sampler must at least draw). ``ratio`` =
    floor_s / ours_s (> 1: the exact aggregate is faster than drawing the reports' bits).
    """
    import resource

    d, n, eps = (200_000, 10_000, 5.0) if quick else (3_300_000, 100_000, 5.0)
    ks = KSubset(d, eps)
    rng = np.random.default_rng(0)
    hist = np.bincount(rng.integers(0, d, size=n), minlength=d)
    t, f = timed(lambda: ks.simulate_counts(hist, rng), 1)
    words = n * d // 64
    step = 1 << 23

    def floor():
        for lo in range(0, words, step):
            rng.bit_generator.random_raw(min(step, words - lo))

    fl = timed(floor, 1)[0]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    return [
        {
            "group": "oracle floor",
            "case": f"k-subset simulate_counts K={d:.2g} n={n:.0e} eps={eps} k={ks.k}",
            "ours": "mechopt KSubset.simulate_counts (exact aggregate)",
            "ours_s": t,
            "reference": "n*K random bits (per-user floor)",
            "reference_s": fl,
            "ratio": fl / t,
            "repeats": 1,
            "notes": f"peak RSS of the bench process {rss:.2f} GB; sum of counts n*k: {int(f.sum()) == n * ks.k}",
        }
    ]


CASES = [case_grr, case_oue, case_subset, case_floor, case_aggregate_large]

if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    quick = "--quick" in sys.argv
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for c in CASES:
        if only and c.__name__ not in only:
            continue
        for r in c(quick):
            print(json.dumps(r))
