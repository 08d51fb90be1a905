"""Re-running a LIP counterexample from the data stored in it (``Claim.recheck``).

Each function takes the counterexample dict of a ``fails`` or ``holds-after-correction``
verdict and returns the deviation of the statement *as printed* at that data alone (a
deviation above the claim's ``tol`` reproduces the counterexample). :data:`RECHECKS` maps
claim ids to ``(function, tol)``; :func:`mechopt.claims._spec.attach` puts them on the claims.

Examples
--------
>>> eq17({"P1": 0.2415, "q0": 0.0143, "q1": 0.071}) > 1e-9       # (17) misses a factor P1
True
>>> round(ex1_optldp({"eps": 0.5}), 3)      # the 'optimal' pair is 1.046-LDP, not 0.5-LDP
0.546
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy.stats import binom

from mechopt.claims.lip.binary_figures import gap_deviation
from mechopt.claims.lip.checks import certified
from mechopt.claims.lip.util import _L, _direct_var_xhat, _lam, ldp_opt, lip_opt
from mechopt.notions import CIP, LDP, LIP
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.problems import LIPHistogram, LIPMimo

__all__ = ["RECHECKS"]

Data = dict[str, Any]


def _bin(ce: Data) -> tuple[float, float, float]:
    return float(ce["P1"]), float(ce["q0"]), float(ce["q1"])


def eq17(ce: Data) -> float:
    P1, q0, q1 = _bin(ce)
    var, _, _ = _direct_var_xhat(P1, q0, q1)
    l0, l1 = _lam(P1, q0, q1)
    return float(abs(P1 * (l0 - q1) ** 2 / (l0 * l1) - var))


def _F(P1: float, q0: float, q1: float) -> dict[int, float]:
    l0, l1 = _lam(P1, q0, q1)
    return {1: l0 / q1, 2: l1 / (1 - q1), 3: l0 / (1 - q0), 4: l1 / q0}


def appA_symmetry(ce: Data) -> float:
    """Printed Step 2: F1' = F2, F2' = F1, F3' = F4, F4' = F1 (primes: at (1-q0, 1-q1))."""
    P1, q0, q1 = _bin(ce)
    F = _F(P1, q0, q1)
    m0, m1 = _lam(P1, 1 - q0, 1 - q1)
    Fp = {1: m0 / (1 - q1), 2: m1 / q1, 3: m0 / q0, 4: m1 / (1 - q0)}
    return max(abs(Fp[1] - F[2]), abs(Fp[2] - F[1]), abs(Fp[3] - F[4]), abs(Fp[4] - F[1])) / max(1.0, F[1])


def appA_step3(ce: Data) -> float:
    """Printed Step 3: F4 - F3 = (1-P1)(1-q0-q1)/(q1(1-q1)) (a copy of F1 - F2)."""
    P1, q0, q1 = _bin(ce)
    F = _F(P1, q0, q1)
    printed = (1 - P1) * (1 - q0 - q1) / (q1 * (1 - q1))
    return abs(F[4] - F[3] - printed) / max(1.0, abs(F[1] - F[2]) + abs(F[4] - F[3]))


def appA_step4(ce: Data) -> float:
    """Printed L on {F1 = e^eps}: [(1-P1)(e^eps-1) q1]^2/(l0 l1), worst gap along the line."""
    p1, e = float(ce["P1"]), math.exp(float(ce["eps"]))
    q1 = np.linspace(0.01, 0.99, 200)
    q0 = 1 - (e - p1) * q1 / (1 - p1)
    ok = (q0 >= 0) & (q0 <= 1) & (q0 + q1 <= 1)
    q0, q1 = q0[ok], q1[ok]
    l0, l1 = _lam(p1, q0, q1)
    return float(np.max(np.abs(((1 - p1) * (e - 1) * q1) ** 2 / (l0 * l1) - _L(p1, q0, q1))))


def ex1_constraints(ce: Data) -> float:
    """How far Example 1's own RR channel exceeds the printed bound 'max ratio <= eps'."""
    eps = float(ce["eps"])
    q = 1 / (math.exp(eps) + 1)
    return max(0.0, (1 - q) / q - eps)


def ex1_optldp(ce: Data) -> float:
    """LDP level of the pair p* = 0.5, q* = 1 - e^eps/2 minus eps (inf when q* < 0: not a channel)."""
    eps = float(ce["eps"])
    q = 1 - math.exp(eps) / 2
    if q < 0:
        return math.inf
    return max(0.0, LDP(0).epsilon(np.array([[0.5, 0.5], [q, 1 - q]]), None) - eps)


def prop4_gap_shape(ce: Data) -> float:
    """Largest decrease of E*_LDP - E*_LIP as P1 moves from 0.5 to 0.99 (the proof says it increases)."""
    eps = float(ce["eps"])
    if str(ce["which"]).startswith("eq24"):

        def gap(p: float) -> float:
            return cf.binary_ldp_mse(p, eps) - cf.binary_lip_mse(p, eps)
    else:

        def gap(p: float) -> float:
            return ldp_opt(p, eps) - lip_opt(p, eps)

    g = np.array([gap(p) for p in np.linspace(0.5, 0.99, 50)])
    return float(np.max(np.maximum(0, g[:-1] - g[1:])))


def thm3_example(ce: Data) -> float:
    """eps-LIP violation of the example's channel as printed (eps where e^eps belongs); inf if not a channel."""
    P, eps = np.array([0.1, 0.2, 0.7]), float(ce["eps"])
    Qp = np.tile(P / eps, (3, 1))
    np.fill_diagonal(Qp, 1 - (1 - P) / eps)
    return math.inf if Qp.min() < 0 else float(LIP(eps).audit(Qp, P).violation)


def appB_lemma2(ce: Data) -> float:
    """1.0 when the sign of dVar[X_hat]/dq_lk contradicts (48) (sign of q_lk - lambda_k), else 0.0."""
    P, Q = np.array(ce["prior"]), np.array(ce["Q"])
    l, k, a, h = int(ce["l"]), int(ce["k"]), np.arange(len(ce["prior"]), dtype=float), 1e-7

    def var(Qx: np.ndarray) -> float:
        lam, mu = P @ Qx, (a * P) @ Qx
        return float(np.sum(mu**2 / lam) - (a @ P) ** 2)

    Qp, Qm = Q.copy(), Q.copy()
    Qp[l, k] += h
    Qm[l, k] -= h
    der = (var(Qp) - var(Qm)) / (2 * h)
    claimed = np.sign(Q[l, k] - (P @ Q)[k])
    return 1.0 if claimed != 0 and abs(der) > 1e-7 and np.sign(der) != claimed else 0.0


def eq51(ce: Data) -> float:
    P, e = float(ce["P_k"]), math.exp(float(ce["eps"]))
    lhs = P / (1 - (1 - P) / e) - 1 / e
    return abs(lhs - (1 - 1 / e + P * (e - 1 / e)) / (e + P - 1))


def appD_eq55_57(ce: Data) -> float:
    """|(57) as printed (denominator lambda_k) - sum_k Var(E[1{X=k}|Y])|."""
    P, Q = np.array(ce["prior"]), np.array(ce["Q"])
    lam = P @ Q
    direct = sum(float(np.sum((P[k] * Q[k]) ** 2 / lam) - P[k] ** 2) for k in range(P.size))
    eq57 = sum(P[k] ** 2 * np.sum(Q[k] * (Q[k] / lam[k] - 1)) for k in range(P.size))
    return float(abs(eq57 - direct))


def _S_case(ce: Data) -> tuple[int, float, np.ndarray, np.ndarray, np.ndarray]:
    N, p1, Q = int(ce["N"]), float(ce["p1"]), np.array(ce["channel"])
    PS = binom.pmf(np.arange(N + 1), N, p1)
    return N, p1, Q, PS, PS[:, None] * Q / (PS @ Q)[None, :]


def thm6_proof(ce: Data) -> float:
    """How far the printed lower bound e^eps Pr(S=s) <= Pr(S=s|Y=y) of (35) is violated."""
    N, p1, Q, PS, post = _S_case(ce)
    eps = LIP(0).epsilon(Q, PS)
    return float(np.max(np.maximum(0, math.exp(eps) * PS[:, None] - post)))


def prop5_proof(ce: Data) -> float:
    """|eps read off the printed ratios {NP1/E[S|Y], NP1/(N - E[S|Y])} - the channel's CIP level|."""
    N, p1, Q, PS, post = _S_case(ce)
    m = np.arange(N + 1) @ post
    printed = float(np.max(np.abs(np.log(np.concatenate([N * p1 / m, N * p1 / (N - m)])))))
    return abs(printed - CIP(0.0, np.full(N, p1)).epsilon(Q, PS))


def ldp_mimo(ce: Data) -> float:
    """max(violation, relative gap to the certified optimum) of the Sec. IV-B LDP channel on one instance."""
    cls = {"LIPMimo": LIPMimo, "LIPHistogram": LIPHistogram}[ce["model"]]
    prob = cls(prior=np.array(ce["prior"]), eps=float(ce["eps"]), kind="ldp", values=np.array(ce["values"]))
    res = prob.closed_form()
    opt = certified(prob).value
    return max(prob.notion.audit(res.Q, prob.prior).violation, (res.value - opt) / max(1.0, abs(opt)))


def fig5_gap099(ce: Data) -> float:
    """E*_LDP/E*_LIP at P1 = 0.5 minus at 0.99 (the text says the advantage is larger at 0.99)."""
    return gap_deviation(0.99, float(ce["eps"]))


def _mimo_half_minus_ldp(P: np.ndarray, eps: float, hist: bool = False) -> float:
    cls = LIPHistogram if hist else LIPMimo
    return certified(cls(prior=P, eps=eps / 2)).value - certified(cls(prior=P, eps=eps, kind="ldp")).value


def fig6a(ce: Data) -> float:
    """E*_LIP(eps/2) - E*_LDP(eps) on the stored prior (the text says it is < 0)."""
    return _mimo_half_minus_ldp(np.array(ce["prior"]), float(ce["eps"]))


def fig6b(ce: Data) -> float:
    """The same at the largest d (uniform prior, eps = 1): eps/2-LIP has not overtaken eps-LDP."""
    d = int(ce["d"])
    return _mimo_half_minus_ldp(np.full(d, 1 / d), 1.0)


def fig6b_growth(ce: Data) -> float:
    """eps/2-LIP's slope minus LDP's (stored fits): LDP does not decrease faster than every LIP curve."""
    return float(ce["lip_half"]["slope"] - ce["ldp"]["slope"])


def fig7_oue(ce: Data) -> float:
    """Exact OUE MSE minus the certified context-aware LDP optimum (the text says OUE gets below it)."""
    d, eps = int(ce["d"]), float(ce["eps"])
    P = np.full(d, 1 / d)
    return cf.oue_mse_exact(P, 1, eps) - certified(LIPHistogram(prior=P, eps=eps, kind="ldp")).value


def fig7_oue_sandwich(ce: Data) -> float:
    """How far exact OUE leaves the band [E*_LIP(eps), E*_LIP(eps/2)] (d = 8, uniform)."""
    eps, P = float(ce["eps"]), np.full(8, 1 / 8)
    oue = cf.oue_mse_exact(P, 1, eps)
    lo = certified(LIPHistogram(prior=P, eps=eps)).value
    hi = certified(LIPHistogram(prior=P, eps=eps / 2)).value
    return max(0.0, lo - oue, oue - hi)


def fig8_cross(ce: Data) -> float:
    """sum E*_LIP(eps/2) - sum E*_LDP(eps) over the stored local priors (the text says < 0 for small eps)."""
    eps = float(ce["eps"])
    return float(sum(lip_opt(p, eps / 2) - ldp_opt(p, eps) for p in ce["local_priors"]))


def fig9a(ce: Data) -> float:
    """E*_LIP(eps/2) - E*_LDP(eps) at the stored (P1, eps) (the text says < 0 for some small eps)."""
    return lip_opt(float(ce["P1"]), float(ce["eps"]) / 2) - ldp_opt(float(ce["P1"]), float(ce["eps"]))


def intro_skew(ce: Data) -> float:
    """E*_LDP/E*_LIP at P1 = 0.5 minus at 0.98 (the text says the advantage grows with skew)."""
    return gap_deviation(0.98, float(ce["eps"]))


RECHECKS: dict[str, tuple[Callable[[Data], float], float]] = {
    "lip.eq17": (eq17, 1e-9),
    "lip.appA_symmetry": (appA_symmetry, 1e-9),
    "lip.appA_step3": (appA_step3, 1e-9),
    "lip.appA_step4": (appA_step4, 1e-9),
    "lip.ex1_constraints": (ex1_constraints, 0.0),
    "lip.ex1_optldp": (ex1_optldp, 1e-9),
    "lip.prop4_gap_shape": (prop4_gap_shape, 1e-9),
    "lip.thm3_example": (thm3_example, 1e-6),
    "lip.appB_lemma2": (appB_lemma2, 0.5),
    "lip.eq51": (eq51, 1e-12),
    "lip.appD_eq55_57": (appD_eq55_57, 1e-10),
    "lip.thm6_proof": (thm6_proof, 1e-12),
    "lip.prop5_proof": (prop5_proof, 1e-9),
    "lip.ldp_mimo": (ldp_mimo, 1e-6),
    "lip.fig5_gap099": (fig5_gap099, 0.0),
    "lip.fig6a": (fig6a, 0.0),
    "lip.fig6b": (fig6b, 0.0),
    "lip.fig6b_growth": (fig6b_growth, 0.0),
    "lip.fig7_oue": (fig7_oue, 0.0),
    "lip.fig7_oue_sandwich": (fig7_oue_sandwich, 1e-9),
    "lip.fig8_cross": (fig8_cross, 0.0),
    "lip.fig9a": (fig9a, 0.0),
    "lip.concl_half": (fig9a, 0.0),
    "lip.intro_skew": (intro_skew, 1e-9),
}
