"""A designed channel next to the standard frequency oracles (GRR, OUE, the best k-subset) on the user's prior and ε.

Two numbers per mechanism, at n = 1 report per user (divide by n for n users):

- **frequency variance** — the expected squared error of the unbiased
  estimate of the input distribution when X ~ P,
  V = E‖θ̂ − e_X‖²-style total variance tr Cov(θ̂) (:func:`mechopt.programs.frequency.freq_var`).
  For a designed Q of full row rank the estimator is the linear one,
  θ̂ = (QQᵀ)⁻¹Q e_y (:meth:`mechopt.mechanism.inference.Inference.estimate`, ``linear``). For the
  oracles it is the remapping estimator θ̂_j = (1[j ∈ y] − h)/(g − h), whose
  total variance is Σ_j [P_j g(1−g) + (1−P_j) h(1−h)]/(g−h)² + 1 − ‖P‖².
  A Q that confounds inputs has no unbiased estimator: its row gives the
  squared error of EM with infinitely many reports, ‖θ_EM − P‖² (the EM limit
  from a uniform start on the exact output distribution: a bias that no n removes).
- **the design's own objective** (mutual information, MSE, ...), evaluated
  on each baseline's channel where it can be listed (OUE up to d = 12,
  k-subsets up to 5·10⁵ outputs); None otherwise.

The baselines are ε-LDP; a design under another notion is compared at the same ε with a note.

Examples
--------
>>> import numpy as np
>>> rows = frequency_rows(np.eye(3) * 0.6 + 0.2 * (1 - np.eye(3)) + 0.0, np.array([0.5, 0.3, 0.2]), 1.0)
>>> [r["mechanism"] for r in rows]
['designed', 'GRR', 'OUE', 'k-subset (k=1)']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import MechoptError
from mechopt.programs.frequency import freq_var

__all__ = ["frequency_rows", "compare_baselines", "oracle_variance", "MAX_LISTED_OUTPUTS"]

MAX_LISTED_OUTPUTS = 500_000  # a baseline's channel is materialised for the design's own objective up to this


def oracle_variance(oracle: Any, prior: np.ndarray) -> float:
    """Total variance at one report per user of the oracle's remapping estimator, X ~ prior.

    >>> from mechopt.oracles import GRR
    >>> round(oracle_variance(GRR(2, 50.0), np.array([0.5, 0.5])), 12)   # nearly exact reports: 1 − ‖P‖²
    0.5
    """
    P = np.asarray(prior, dtype=float)
    g, h = oracle.g, oracle.h
    return float(np.sum(P * g * (1 - g) + (1 - P) * h * (1 - h)) / (g - h) ** 2 + 1.0 - P @ P)


def _best_ksubset(d: int, eps: float, P: np.ndarray) -> Any:
    from mechopt.oracles import KSubset

    return min((KSubset(d, eps, k) for k in range(1, d)), key=lambda o: oracle_variance(o, P))


def _em_limit_error(Q: np.ndarray, P: np.ndarray) -> tuple[float, str]:
    from mechopt.mechanism import Mechanism
    from mechopt.mechanism.estimators import em

    m = Mechanism(Q)
    theta = em(Q, P @ Q).theta  # EM on the exact output distribution (the limit of infinitely many reports)
    return float(np.sum((theta - P) ** 2)), m._confounded_text()


def frequency_rows(Q: np.ndarray, prior: np.ndarray, eps: float) -> list[dict[str, Any]]:
    """Rows (designed, GRR, OUE, best k-subset) with each one's estimator and frequency variance at n = 1."""
    from mechopt.mechanism import Mechanism
    from mechopt.oracles import GRR, OUE

    P = np.asarray(prior, dtype=float)
    Q = np.asarray(Q, dtype=float)
    d = P.size
    m = Mechanism(Q)
    if m.identifiable:
        row = {"estimator": "linear (QQᵀ)⁻¹Q, unbiased", "freq_variance": freq_var(Q, P), "identifiable": True}
    else:
        err, groups = _em_limit_error(Q, P)
        row = {
            "estimator": f"EM (no unbiased estimator: confounded {groups})",
            "freq_variance": None,
            "em_limit_sq_error": err,
            "identifiable": False,
        }
    rows = [{"mechanism": "designed", "outputs": Q.shape[1], "oracle": None, **row}]
    for name, orc in (("GRR", GRR(d, eps)), ("OUE", OUE(d, eps))):
        rows.append(_oracle_row(name, orc, P, 2**d if name == "OUE" else d))
    ks = _best_ksubset(d, eps, P)
    rows.append(_oracle_row(f"k-subset (k={ks.k})", ks, P, math.comb(d, ks.k)))
    return rows


def _oracle_row(name: str, orc: Any, P: np.ndarray, outputs: int) -> dict[str, Any]:
    return {
        "mechanism": name,
        "outputs": outputs,
        "oracle": orc,
        "estimator": "remapping (f_j − n h)/(n (g − h)), unbiased",
        "freq_variance": oracle_variance(orc, P),
        "identifiable": True,
    }


def _notion_note(notion: Any, eps: float) -> str:
    """What a non-LDP design's ε guarantees next to the ε-LDP baselines ("" for LDP): unlike guarantees."""
    from mechopt.notions.relations import implied_levels

    name = str(notion.name).lower()
    if name == "ldp":
        return ""
    low = getattr(notion, "eps_lower", None)
    try:
        ldp = implied_levels(name, eps, eps_lower=low)["ldp"]
    except MechoptError:  # a notion outside the implication graph
        ldp = None
    implied = (
        "which implies no LDP level"
        if ldp is not None and math.isinf(ldp)
        else f"which implies {ldp:g}-LDP only"
        if ldp is not None
        else "a different guarantee"
    )
    return (
        f"the baselines are {eps:g}-LDP; the design is {eps:g}-{notion.name}, {implied}: "
        "'best' compares unlike guarantees"
    )


def compare_baselines(problem: Any, Q: np.ndarray) -> dict[str, Any]:
    """The comparison document of a design ``problem`` whose channel is ``Q``: rows, the best on each metric.

    Each row: ``mechanism``, ``outputs``, ``estimator``, ``freq_variance`` (None when
    not identifiable, then ``em_limit_sq_error``), ``objective`` (the design's own
    utility on that channel, in the problem's sense, None when not listable),
    ``identifiable``.

    Examples
    --------
    >>> from mechopt.problems.design import ChannelDesign
    >>> prob = ChannelDesign.from_params(prior="0.5,0.3,0.2", notion="ldp", utility="mi", eps=1.0)
    >>> doc = compare_baselines(prob, np.array([[0.73, 0.27], [0.27, 0.73], [0.27, 0.73]]))
    >>> doc["best_freq_variance"], doc["rows"][0]["identifiable"]
    ('GRR', False)
    """
    P = problem.prior
    eps = float(problem.notion.eps)
    rows = frequency_rows(Q, P, eps)
    for r in rows:
        orc = r.pop("oracle")
        r["objective"] = _objective(problem, Q if orc is None else orc, r["outputs"])
    ranked = [r for r in rows if r["freq_variance"] is not None]
    best_v = min(ranked, key=lambda r: r["freq_variance"])["mechanism"] if ranked else None
    scored = [r for r in rows if r["objective"] is not None]
    pick = max if problem.sense == "max" else min
    best_o = pick(scored, key=lambda r: r["objective"])["mechanism"] if scored else None
    note = _notion_note(problem.notion, eps)
    return {
        "metric": "frequency variance: tr Cov of the unbiased estimate of the input distribution, one report "
        "per user (divide by n)",
        "objective": problem.objective,
        "sense": problem.sense,
        "eps": eps,
        "rows": rows,
        "best_freq_variance": best_v,
        "best_objective": best_o,
        "note": note,
    }


def _objective(problem: Any, Q_or_oracle: Any, outputs: int) -> float | None:
    if outputs * problem.prior.size > MAX_LISTED_OUTPUTS * 8:
        return None
    Q = Q_or_oracle if isinstance(Q_or_oracle, np.ndarray) else Q_or_oracle.matrix()
    val = problem.evaluate(Q)
    return None if val is None or not np.isfinite(val) else float(val)
