"""LIP paper, two statements that depend on eps: the Introduction's "especially when the prior is not uniformly
distributed" (Sec. I) and Fig. 5's "the gap between the two models increases when P1 = 0.99" (Sec. V-A1),
judged per eps on certified optima, with the eps where they start to hold found by root-finding.

Both compare the advantage E*_LDP/E*_LIP at a skewed prior with the one at P1 = 0.5. Read universally (for
every eps > 0, or over all of Fig. 5's eps = 1..5) they fail; they hold exactly above a threshold eps*.

Examples
--------
>>> t = skew_threshold(0.98, 3.0, 4.0)
>>> 3.5 < t < 3.6
True
"""

from __future__ import annotations

from dataclasses import replace

from scipy.optimize import brentq

from mechopt.claims.lip.util import EPS5, ldp_opt, lip_opt
from mechopt.jobs.verify import Verdict

__all__ = ["advantage", "skew_gain", "skew_threshold", "gap_deviation", "check_intro_skew", "check_fig5_gap099"]

SKEW_EPS = (0.5, 1.0, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0)  # Sec. I's reading: every eps > 0, checked on these


def advantage(p1: float, eps: float) -> float:
    """E*_LDP / E*_LIP at prior P1 (certified optima of one binary user)."""
    return ldp_opt(p1, eps) / lip_opt(p1, eps)


def skew_gain(p1: float, eps: float) -> float:
    """advantage(P1) - advantage(0.5): > 0 when the skewed prior enlarges LIP's advantage."""
    return advantage(p1, eps) - advantage(0.5, eps)


def skew_threshold(p1: float, lo: float, hi: float) -> float:
    """The eps in (lo, hi) where skew_gain(P1, eps) changes sign (brentq, xtol 1e-4)."""
    return float(brentq(lambda e: skew_gain(p1, e), lo, hi, xtol=1e-4))


def _judge(p1: float, eps_grid, lo: float, hi: float, what: str) -> tuple[Verdict, float]:
    """holds-in-region 'eps > eps*' when skew_gain < 0 at every checked eps below eps* and > 0 above, and
    LIP beats LDP (advantage > 1) at both priors everywhere; else fails."""
    t = skew_threshold(p1, lo, hi)
    grid = sorted({*eps_grid, round(t - 0.01, 4), round(t + 0.01, 4)})
    rows = []
    for eps in grid:
        a5, ap = advantage(0.5, eps), advantage(p1, eps)
        rows.append(
            {"eps": float(eps), "ratio_at_0.5": round(a5, 4), f"ratio_at_{p1}": round(ap, 4), "deviation": a5 - ap}
        )
    wrong = [
        r for r in rows if (r["eps"] > t) != (r["deviation"] < 0) or min(r["ratio_at_0.5"], r[f"ratio_at_{p1}"]) <= 1
    ]
    below = [r for r in rows if r["eps"] < t]
    holds = [f"{r['eps']:g} ({r[f'ratio_at_{p1}']:.3g} vs {r['ratio_at_0.5']:.3g})" for r in rows if r["eps"] > t]
    note = (
        f"E*_LDP/E*_LIP (certified optima) at P1 = {p1} vs 0.5 at eps = {', '.join(f'{e:g}' for e in grid)}; "
        f"{what} fails at every checked eps < {t:.3f} and holds at every checked eps > {t:.3f}: "
        + "; ".join(holds)
        + f" (ratio at {p1} vs at 0.5); eps* = {t:.4f} by root-finding; LIP beats LDP at both priors everywhere"
    )
    if wrong or not below:
        return Verdict("fails", len(rows), max(r["deviation"] for r in rows), (wrong or rows)[0], None, note), t
    region = f"eps > {t:.2f} (exact boundary eps* = {t:.4f}, checked on {len(rows)} eps values)"
    ce = min(below, key=lambda r: r["eps"])
    worst = max(r["deviation"] for r in rows)
    return Verdict("holds-in-region", len(rows), worst, ce, region, note, region_kind="exact boundary"), t


def check_intro_skew() -> Verdict:
    """Sec. I: 'optimal mechanisms under eps-LIP always achieve a better tradeoff than under eps-LDP when eps > 0,
    especially when the prior is not uniformly distributed' (P1 = 0.98 against 0.5)."""
    v, t = _judge(0.98, SKEW_EPS, 3.0, 4.0, "'especially when the prior is not uniform'")
    return _reading(v, f"the universal reading (every eps > 0) fails; the statement holds only for eps > {t:.2f}")


def check_fig5_gap099() -> Verdict:
    """Sec. V-A1 on Fig. 5 (eps = 1..5 step 0.5): 'the error of Opt-LIP is always smaller than that of Opt-LDP,
    and the gap between the two models increases when P1 = 0.99' (log-scale gap: the ratio, vs P1 = 0.5)."""
    v, t = _judge(0.99, EPS5, 4.0, 4.5, "'the gap increases when P1 = 0.99'")
    eq21 = "eq. (21) is below the optimum at P1 = 0.99 for eps < ln 99 = 4.6 (Theorem 2 outside its region)"
    return _reading(v, f"as printed for all of Fig. 5 (eps = 1..5) it fails; it holds at eps = 4.5 and 5 ({eq21})")


def _reading(v: Verdict, which: str) -> Verdict:
    return replace(v, note=which + "; " + v.note)


def gap_deviation(p1: float, eps: float) -> float:
    """advantage(0.5) - advantage(P1) (> 0: the skewed prior does not enlarge LIP's advantage at this eps)."""
    return -skew_gain(p1, eps)
