"""The channels other libraries' frequency oracles realise, and their audits.

Peers (the ``peers`` extra, ``pip install 'mechopt[peers]'``; imported lazily, and
:func:`available` says whether each imports): ``pure-ldp`` 1.2.0
(imports only with scikit-learn and statsmodels installed; items are 1-based
by default, we pass ``index_mapper=lambda x: x``) and ``multi-freq-ldpy``
(its SS fixes k = max(1, rint(d/(e^ε+1))); its ``MI`` estimator clips at 0 and
renormalises). OLH in both needs ``xxhash<4``.

For each mechanism we build the channel from the documented parameters
(:func:`documented`, :mod:`mechopt.oracles.peer_channels`), estimate it by calling the library's own client many
times per input (:func:`sample_channel`, with Clopper–Pearson intervals and the
ε interval they imply), and audit ε-LDP with :class:`mechopt.notions.LDP` and
the unbiasedness of the library's estimator (:func:`audit_peer`).

Mechanisms: ``("pure-ldp", "DE" | "OUE" | "SUE" | "OLH")`` and
``("multi-freq-ldpy", "GRR" | "OUE" | "SUE" | "SS" | "OLH")``. OLH's channel
is over (hash seed, value); we audit it per seed (a GRR over g = round(e^ε)+1
values) and sample its hit rates.

Examples
--------
>>> doc = documented("multi-freq-ldpy", "SS", 8, 1.0)
>>> doc["params"]["k"], round(doc["eps_audited"], 12)
(2, 1.0)
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable

import numpy as np
from scipy.stats import beta as beta_dist

from mechopt.errors import ProblemError
from mechopt.model.counting import comb_at_most
from mechopt.notions import LDP
from mechopt.oracles.frequency import subset_rank
from mechopt.oracles.peer_channels import (
    MAX_OUTPUTS,
    MECHANISMS,
    check_mechanism,
    documented,
    mechanism_json,
    olh_g,
    our_oracle,
    ss_k,
)

__all__ = [
    "MECHANISMS",
    "documented",
    "client",
    "sample_channel",
    "sample_hit_rates",
    "audit_peer",
    "mechanism_json",
    "available",
    "ss_k",
]


def available(lib: str) -> bool:
    """Whether the peer library imports here (pure-ldp also needs scikit-learn and statsmodels).

    Examples
    --------
    >>> available("no-such-lib") in (True, False)
    True
    """
    try:
        if lib == "pure-ldp":
            import pure_ldp.frequency_oracles  # noqa: F401
        else:
            import multi_freq_ldpy.pure_frequency_oracles.SS  # noqa: F401
        return True
    except Exception:
        return False


def _seed(lib: str, seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    if lib == "multi-freq-ldpy":
        _numba_seed(seed % 2**32)


def _numba_seed(seed: int) -> None:
    """Seed numba's own generator (multi-freq-ldpy's clients are numba-compiled; ``mechopt[peers]``)."""
    from mechopt.runtime.optional import require

    njit = require("numba", "peers", "multi-freq-ldpy's seeded clients").njit

    global _NB_SEED
    if "_NB_SEED" not in globals():

        @njit(cache=False)
        def _s(x):
            np.random.seed(x)

        _NB_SEED = _s
    _NB_SEED(seed)


def client(lib: str, mech: str, d: int, eps: float) -> Callable[[int], Any]:
    """The library's own per-user client for items 0..d−1 (a function x -> report).

    Imports the peer lazily; pure-ldp clients get ``index_mapper=identity``
    (the library is 1-based by default).

    Examples
    --------
    >>> cl = client("multi-freq-ldpy", "GRR", 4, 1.0)      # doctest: +SKIP
    >>> cl(2) in range(4)                                  # doctest: +SKIP
    True
    """
    check_mechanism(lib, mech)
    if not available(lib):
        from mechopt.errors import MissingDependency

        raise MissingDependency(f"{lib} does not import here (with its dependencies): pip install 'mechopt[peers]'")
    if lib == "pure-ldp":
        ident = lambda v: v  # noqa: E731  (pure-ldp is 1-based by default)
        if mech == "DE":
            from pure_ldp.frequency_oracles.direct_encoding import DEClient

            return DEClient(eps, d, index_mapper=ident).privatise
        if mech in ("OUE", "SUE"):
            from pure_ldp.frequency_oracles.unary_encoding import UEClient

            return UEClient(eps, d, use_oue=mech == "OUE", index_mapper=ident).privatise
        from pure_ldp.frequency_oracles.local_hashing import LHClient

        return LHClient(eps, d, use_olh=True, index_mapper=ident).privatise
    if mech == "GRR":
        from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Client

        return lambda v: GRR_Client(int(v), d, eps)
    if mech in ("OUE", "SUE"):
        from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Client

        return lambda v: UE_Client(int(v), d, eps, optimal=mech == "OUE")
    if mech == "SS":
        from multi_freq_ldpy.pure_frequency_oracles.SS import SS_Client

        return lambda v: SS_Client(int(v), d, eps)
    from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Client

    return lambda v: LH_Client(int(v), d, eps, optimal=True)


def _support(lib: str, mech: str, d: int, eps: float, rep: Any) -> np.ndarray:
    """Boolean (d,) support of one report: which items it counts for."""
    s = np.zeros(d, dtype=bool)
    if mech in ("DE", "GRR"):
        s[int(rep)] = True
    elif mech in ("OUE", "SUE"):
        s[:] = np.asarray(rep) > 0.5
    elif mech == "SS":
        s[np.asarray(rep, dtype=int)] = True
    else:
        import xxhash

        y, seed = rep
        g = olh_g(eps)
        s[:] = [(xxhash.xxh32(str(i), seed=int(seed)).intdigest() % g) == y for i in range(d)]
    return s


def _output_index(mech: str, d: int, eps: float, rep: Any) -> int:
    if mech in ("DE", "GRR"):
        return int(rep)
    if mech in ("OUE", "SUE"):
        return int(np.asarray(rep, dtype=np.int64) @ (1 << (d - 1 - np.arange(d))))
    if mech == "SS":
        return int(subset_rank(np.asarray(rep, dtype=np.int64)[None, :])[0])  # colex rank, as in ksubset_outputs
    raise ProblemError("OLH reports have no finite output index (the seed is part of the output)")


def _cp(k: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson (1 − alpha) intervals for k successes of n."""
    lo = np.where(k > 0, beta_dist.ppf(alpha / 2, k, n - k + 1), 0.0)
    hi = np.where(k < n, beta_dist.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return lo, hi


def sample_channel(
    lib: str, mech: str, d: int, eps: float, n_per_input: int = 2000, seed: int = 0, alpha: float = 0.01
) -> dict[str, Any]:
    """Estimate Q[x, ·] from ``n_per_input`` calls of the library's client per input x.

    Returns {Q_hat, lo, hi (entrywise Clopper–Pearson, Bonferroni over all
    entries), eps_hat, eps_lower}: ``eps_lower`` = max log(lo[x,y]/hi[x',y]) is
    a (1 − alpha)-confidence lower bound on the realised ε.

    Examples
    --------
    >>> sc = sample_channel("multi-freq-ldpy", "SS", 5, 1.0, n_per_input=1000)   # doctest: +SKIP
    >>> sc["eps_lower"] <= 1.0                                                   # doctest: +SKIP
    True
    """
    if mech == "OLH":
        raise ProblemError("OLH's output includes a 2^32-valued seed: use sample_hit_rates")
    m = {"DE": d, "GRR": d, "OUE": 2**d, "SUE": 2**d}.get(mech)
    if mech == "SS" and not comb_at_most(d, min(ss_k(d, eps), d - 1), MAX_OUTPUTS):
        m = math.inf  # C(d, k) is far above the cap: never built as an integer
    elif mech == "SS":
        m = math.comb(d, min(ss_k(d, eps), d - 1))
    if m > MAX_OUTPUTS:
        shown = f"{m}" if m != math.inf else f"C({d}, {min(ss_k(d, eps), d - 1)})"
        raise ProblemError(f"{shown} outputs are too many to sample; use sample_hit_rates")
    _seed(lib, seed)
    cl = client(lib, mech, d, eps)
    counts = np.zeros((d, m))
    for x in range(d):
        for _ in range(n_per_input):
            counts[x, _output_index(mech, d, eps, cl(x))] += 1
    a = alpha / counts.size
    lo, hi = _cp(counts, n_per_input, a)
    Qh = counts / n_per_input
    used = np.nonzero(counts.sum(axis=0) > 0)[0]
    ratio = lo[:, used][:, None, :] / np.maximum(hi[:, used][None, :, :], 1e-300)
    eps_lower = float(np.log(np.maximum(ratio.max(), 1.0)))
    return {
        "Q_hat": Qh,
        "lo": lo,
        "hi": hi,
        "eps_hat": LDP(eps).audit(Qh).eps,
        "eps_lower": eps_lower,
        "n_per_input": n_per_input,
        "alpha": alpha,
    }


def sample_hit_rates(
    lib: str, mech: str, d: int, eps: float, n: int = 4000, seed: int = 0, alpha: float = 0.01
) -> dict[str, Any]:
    """Empirical hit rates from the library's client: g = P(x ∈ support | x), h = P(x' ∈ support | x), with CIs.

    Examples
    --------
    >>> hr = sample_hit_rates("pure-ldp", "OLH", 8, 1.0, n=2000)      # doctest: +SKIP
    >>> hr["g_ci"][0] <= documented("pure-ldp", "OLH", 8, 1.0)["g"] <= hr["g_ci"][1]   # doctest: +SKIP
    True
    """
    _seed(lib, seed)
    cl = client(lib, mech, d, eps)
    own = other = 0
    others_total = 0
    for i in range(n):
        x = i % d
        s = _support(lib, mech, d, eps, cl(x))
        own += int(s[x])
        other += int(s.sum() - s[x])
        others_total += d - 1
    glo, ghi = _cp(np.array(own), n, alpha)
    hlo, hhi = _cp(np.array(other), others_total, alpha)
    return {
        "g_hat": own / n,
        "g_ci": (float(glo), float(ghi)),
        "h_hat": other / others_total,
        "h_ci": (float(hlo), float(hhi)),
        "n": n,
        "alpha": alpha,
        "note": "h pools d-1 correlated indicators per report, so its interval is approximate",
    }


def audit_peer(
    lib: str,
    mech: str,
    d: int,
    eps: float,
    *,
    n: int = 2000,
    seed: int = 0,
    theta=None,
    n_users: int = 1000,
    reps: int = 200,
    sample: bool = True,
) -> dict[str, Any]:
    """Audit a peer mechanism: documented vs sampled channel, ε, and the estimator's bias.

    ``bias_linear``: max_j |E θ̂_j − θ_j| of the library's linear estimator
    (p, q as the library sets them) on the documented channel — 0 when unbiased.
    For multi-freq-ldpy, ``bias_clipped`` is the Monte-Carlo bias of its
    clip-and-renormalise ``MI`` estimator at ``theta`` with ``n_users``
    users (mean over ``reps`` runs) and its standard error. ``sample=False``
    skips calling the library's client (documented channel only).

    Examples
    --------
    >>> rep = audit_peer("multi-freq-ldpy", "GRR", 4, 1.0, theta=[0.7, 0.2, 0.08, 0.02], sample=False)  # doctest: +SKIP
    >>> rep["bias_linear"] < 1e-12, rep["bias_clipped"] > 0                                             # doctest: +SKIP
    (True, True)
    """
    doc = documented(lib, mech, d, eps)
    out: dict[str, Any] = {
        "lib": lib,
        "mechanism": mech,
        "d": d,
        "eps": eps,
        "params": doc["params"],
        "eps_documented": doc["eps_audited"],
    }
    out.update(g_doc=doc["g"], h_doc=doc["h"])
    if sample:
        hr = sample_hit_rates(lib, mech, d, eps, n=n, seed=seed)
        out.update(hit_rates=hr, g_consistent=hr["g_ci"][0] <= doc["g"] <= hr["g_ci"][1])
    if sample and doc["Q"] is not None and doc["Q"].shape[1] <= 64:
        sc = sample_channel(lib, mech, d, eps, n_per_input=n, seed=seed + 1)
        out.update(
            eps_sampled=sc["eps_hat"],
            eps_lower=sc["eps_lower"],
            channel_consistent=bool(np.all((sc["lo"] <= doc["Q"] + 1e-12) & (doc["Q"] <= sc["hi"] + 1e-12))),
        )
    th = np.full(d, 1.0 / d) if theta is None else np.asarray(theta, float)
    p, q = doc["params"]["p"], doc["params"]["q"]  # what the library's estimator uses
    expected = th * doc["g"] + (1 - th) * doc["h"]  # E f_j / n on the realised channel
    out["bias_linear"] = float(np.max(np.abs((expected - q) / (p - q) - th)))
    if lib == "multi-freq-ldpy" and mech != "OLH":
        from multi_freq_ldpy.estimators.Histogram_estimator import MI

        orc = our_oracle(lib, mech, d, eps)
        rng = np.random.default_rng(seed)
        hist = np.round(th * n_users).astype(np.int64)
        tru = hist / hist.sum()
        ests = np.array([MI(orc.simulate_counts(hist, rng).astype(float), int(hist.sum()), p, q) for _ in range(reps)])
        bias = ests.mean(axis=0) - tru
        se = ests.std(axis=0, ddof=1) / math.sqrt(reps)
        j = int(np.argmax(np.abs(bias) / np.maximum(se, 1e-300)))
        out.update(bias_clipped=float(bias[j]), bias_clipped_se=float(se[j]), bias_clipped_item=j)
    return out
