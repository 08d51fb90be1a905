"""Design a local randomizer for a central (ε, δ) target after shuffling n reports.

The local budget ε₀ is searched by bisection on an amplification bound; the
mechanism at that ε₀ is a *certified local design* (:func:`mechopt.design`,
notion ``ldp``); its central guarantee is then computed from its own Q by the named
bound (:func:`mechopt.deploy.shuffle.central_guarantee`). The answer is certified
for the local problem at that ε₀ and guaranteed centrally by that bound; it is
*not* claimed optimal for the central problem (the bounds are upper bounds, and
the refinement over ε₀ is a search, not a proof).

Examples
--------
>>> import numpy as np
>>> sd = design_for_shuffling(np.ones(3) / 3, "mi", eps_central=0.5, delta=1e-6, n=5000, refine_steps=0)
>>> sd.guarantee.eps <= 0.5, sd.result.status == "optimal"
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.deploy.shuffle import ShuffleGuarantee, central_guarantee
from mechopt.errors import ProblemError, TooLargeError

__all__ = ["ShuffleDesign", "design_for_shuffling", "largest_eps0", "oracle_baselines", "EPS0_CAP"]

EPS0_CAP = 30.0  # no local budget beyond this is searched (e^30 ratios: the reports say almost everything)
OUE_MAX_D = 10  # OUE's Q has 2^d outputs


@dataclass(frozen=True)
class ShuffleDesign:
    """A local design for a shuffled deployment: the certified local Result and its central guarantee."""

    result: Any
    eps0: float
    guarantee: ShuffleGuarantee
    eps0_safe: float
    search: list[dict[str, Any]] = field(default_factory=list)

    def statement(self) -> str:
        """What is certified and what is guaranteed, and by which bound."""
        return (
            f"certified for the local problem at eps0 = {self.eps0:.6g} (status {self.result.status}); central "
            f"guarantee ({self.guarantee.eps:.6g}, {self.guarantee.delta:.3g}) after n = {self.guarantee.n} by the "
            f"{self.guarantee.bound} bound; not claimed optimal for the central problem"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "eps0": self.eps0,
            "eps0_safe": self.eps0_safe,
            "status": self.result.status,
            "value": self.result.value,
            "guarantee": self.guarantee.to_dict(),
            "search": self.search,
            "statement": self.statement(),
        }


def largest_eps0(central_of: Callable[[float], float], eps_central: float, steps: int = 20) -> float:
    """The largest ε₀ on a bisection grid with central_of(ε₀) ≤ ε_c, for a central_of nondecreasing in ε₀.

    ε₀ = ε_c is always feasible (central_of(ε₀) ≤ ε₀); the upper bracket doubles up to :data:`EPS0_CAP`.

    Examples
    --------
    >>> round(largest_eps0(lambda e: e / 4, 1.0), 6)
    4.0
    """
    lo, hi = eps_central, 2.0 * eps_central
    while central_of(hi) <= eps_central:
        lo, hi = hi, 2.0 * hi
        if lo >= EPS0_CAP:
            return EPS0_CAP
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if central_of(mid) <= eps_central else (lo, mid)
    return lo


def _check_target(eps_central: Any) -> float:
    try:
        e = float(eps_central)
    except (TypeError, ValueError):
        e = math.nan
    if not 0.0 < e < math.inf:
        raise ProblemError(f"eps_central must be a positive finite number, got {eps_central!r}")
    return e


def design_for_shuffling(
    prior: Any,
    utility: str,
    eps_central: float,
    delta: float,
    n: int,
    *,
    bound: str = "variation-ratio",
    values: Any = None,
    solver: str | None = None,
    refine_steps: int = 6,
    **options: Any,
) -> ShuffleDesign:
    """A certified ε₀-LDP design whose central guarantee after shuffling ``n`` reports meets (ε_c, δ) by ``bound``.

    1. ε₀_safe: the largest ε₀ whose worst case over *all* ε₀-LDP randomizers (the stronger-clone pair, which is
       the variation-ratio bound with β = (e^ε₀ − 1)/(e^ε₀ + 1); or ``bound`` itself when it reads ε₀ only)
       meets ε_c — any ε₀-LDP design then meets it.
    2. The certified design at ε₀_safe (``mechopt.design(notion="ldp")``), and its own central guarantee.
    3. With the variation-ratio bound, ``refine_steps`` bisection steps above ε₀_safe, each candidate designed and
       kept only if its own β meets ε_c (a search: the largest ε₀ found, not a proven largest).

    Examples
    --------
    >>> import numpy as np
    >>> sd = design_for_shuffling(np.ones(3) / 3, "mi", 0.5, 1e-6, 5000, refine_steps=2)
    >>> sd.eps0 >= sd.eps0_safe, "not claimed optimal" in sd.statement()
    (True, True)
    """
    import mechopt

    eps_c = _check_target(eps_central)
    probe = [[1.0, 0.0], [0.0, 1.0]]  # validates n, delta, bound before any design
    central_guarantee(probe, n, delta, bound)
    worst = "stronger-clone" if bound == "variation-ratio" else bound

    def worst_case(e0: float) -> float:  # the bound for the general eps0-LDP randomizer (binary RR at e0)
        p = math.exp(e0) / (1.0 + math.exp(e0))
        return central_guarantee([[p, 1 - p], [1 - p, p]], n, delta, worst).eps

    eps0_safe = largest_eps0(worst_case, eps_c)
    log: list[dict[str, Any]] = []

    def attempt(e0: float) -> tuple[Any, ShuffleGuarantee]:
        res = mechopt.design(
            prior=prior, notion="ldp", utility=utility, eps=e0, values=values, solver=solver, **options
        )
        g = central_guarantee(res.Q, n, delta, bound)
        log.append(
            {"eps0": e0, "status": res.status, "value": res.value, "central_eps": g.eps, "meets": g.eps <= eps_c}
        )
        return res, g

    best = (eps0_safe, *attempt(eps0_safe))
    if best[2].eps > eps_c:  # cannot happen when the bound is monotone in beta; said loudly if it does
        raise ProblemError(f"the design at eps0={eps0_safe:.6g} does not meet eps_central by the {bound} bound")
    if bound == "variation-ratio" and refine_steps > 0:
        best = _refine(best, eps_c, attempt, lambda e0, beta: _vr_eps(e0, beta, n, delta), refine_steps)
    return ShuffleDesign(best[1], best[0], best[2], eps0_safe, log)


def _vr_eps(eps0: float, beta: float, n: int, delta: float) -> float:
    """The variation-ratio bound of a randomizer with ratio e^ε₀ and total variation β (no design needed)."""
    from mechopt.deploy import _amplify

    p = math.exp(eps0)
    a = beta / (p - 1.0)
    return _amplify.smallest_eps(delta, eps0, n=n, p=p, alpha=a, r0=a, r1=a)


def _refine(best: tuple, eps_c: float, attempt: Callable, vr_eps: Callable, steps: int) -> tuple:
    """Search above ε₀_safe: a proxy candidate (the design's β scaled with ε₀ like the general β), then bisection.

    Every candidate is designed and kept only when its own Q meets ε_c; the largest kept ε₀ is returned."""
    e_safe, _, g_safe = best
    general = math.tanh(e_safe / 2.0)  # (e^ε₀ − 1)/(e^ε₀ + 1)
    scale = g_safe.params["beta"] / general
    proxy = largest_eps0(lambda e: vr_eps(e, scale * math.tanh(e / 2.0)), eps_c, steps=30)
    lo, hi = e_safe, proxy
    if proxy > e_safe:
        res, g = attempt(proxy)
        if g.eps <= eps_c:
            best, lo, hi = (proxy, res, g), proxy, proxy + 0.1 * (proxy - e_safe) + 0.01
    for _ in range(steps - 1):
        if hi - lo <= 1e-4 * hi:
            break
        mid = 0.5 * (lo + hi)
        res, g = attempt(mid)
        if g.eps <= eps_c:
            lo, best = mid, (mid, res, g)
        else:
            hi = mid
    return best


def oracle_baselines(
    prior: Any,
    utility: str,
    eps_central: float,
    delta: float,
    n: int,
    *,
    bound: str = "variation-ratio",
    values: Any = None,
) -> list[dict[str, Any]]:
    """GRR and OUE at the largest ε₀ whose own central guarantee (by ``bound``) meets (ε_c, δ), with their utility.

    Examples
    --------
    >>> rows = oracle_baselines(np.ones(3) / 3, "mi", 0.5, 1e-6, 5000)
    >>> [r["mechanism"] for r in rows], all(r["central_eps"] <= 0.5 for r in rows)
    (['GRR', 'OUE'], True)
    """
    from mechopt.oracles import GRR, OUE
    from mechopt.utilities import make_utility

    eps_c = _check_target(eps_central)
    P = np.asarray(prior, dtype=float)
    d = P.size
    if d > OUE_MAX_D:
        raise TooLargeError(f"OUE's channel has 2^{d} outputs; compare against it for d <= {OUE_MAX_D}")
    u = make_utility(utility, prior=P, values=values)
    rows = []
    for name, cls in (("GRR", GRR), ("OUE", OUE)):
        e0 = largest_eps0(lambda e, cls=cls: central_guarantee(cls(d=d, eps=e).matrix(), n, delta, bound).eps, eps_c)
        Q = cls(d=d, eps=e0).matrix()
        g = central_guarantee(Q, n, delta, bound)
        rows.append(
            {"mechanism": name, "eps0": e0, "central_eps": g.eps, "value": float(u.value(Q, P)), "bound": bound}
        )
    return rows
