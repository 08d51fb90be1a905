"""Claims of Grosse, Saeidian, Oechtering, "Extremal Mechanisms for Pointwise Maximal Leakage"
(arXiv 2310.07381), checked against the certified ε-PML optimum of the exact solver.

The paper's text is not stored with mechopt: each statement below is the result as re-derived
from the definition of ε-PML (:mod:`mechopt.problems.pml.closed` gives the derivation), the
section and theorem numbers as best recalled. The evidence is the check itself: the closed-form
channel is private (exact audit) and its utility equals the certified optimum (status
``optimal``, a dual certificate) to 1e-12, for mutual information, histogram MSE and the MSE
of the identity, on random priors and levels. Deviations are absolute, in the utility's units
(nats for mutual information).

Examples
--------
>>> [c.id for c in CLAIMS]
['pml.high_privacy', 'pml.binary', 'pml.uniform', 'pml.outputs']
>>> CLAIMS[1].run().verdict
'holds'
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from mechopt.api import solve
from mechopt.jobs.verify import Claim, Verdict
from mechopt.notions import PML
from mechopt.problems.design import ChannelDesign
from mechopt.problems.pml import closed as cf

__all__ = ["CLAIMS", "TOL", "deviation"]

PAPER = "pml"
#: Largest |closed-form value − certified optimum| accepted (the "must show" 1e-12).
TOL = 1e-12
UTILITIES = ("mi", "histogram", "mse")
EVIDENCE = (
    "formula re-derived from the definition of eps-PML (vertices of the posterior box) and checked against "
    "the certified optimum (exact solver, dual certificate) to 1e-12; theorem number as best recalled"
)


def deviation(P: np.ndarray, eps: float, Q: np.ndarray, utility: str) -> float:
    """|value of Q − certified optimum| under ε-PML; ``inf`` when Q is not private or the optimum not certified."""
    prob = ChannelDesign.from_params(prior=P, notion="pml", utility=utility, eps=eps)
    if PML(eps).audit(Q, P).violation > 1e-12:
        return math.inf
    r = solve(prob, solver="exact")
    if r.status.value != "optimal" or r.value is None:
        return math.inf
    return abs(float(prob.utility.value(Q, P)) - float(r.value))


def _run(cases: list[tuple[np.ndarray, float, np.ndarray, tuple[str, ...]]]) -> Verdict:
    worst, bad, n = 0.0, None, 0
    for P, eps, Q, utilities in cases:
        for u in utilities:
            dev = deviation(P, eps, Q, u)
            n += 1
            if dev > worst:
                worst = dev
            if dev > TOL and bad is None:
                bad = {"prior": P.tolist(), "eps": eps, "utility": u, "deviation": dev}
    if bad is not None:
        return Verdict("fails", n, worst, bad, note=EVIDENCE)
    return Verdict("holds", n, worst, note=EVIDENCE)


def _check_high_privacy() -> Verdict:
    rng = np.random.default_rng(2310)
    cases = []
    for _ in range(8):
        d = int(rng.integers(2, 8))
        P = rng.dirichlet(np.full(d, 2.0))
        for frac in (0.1, 0.6, 1.0):
            eps = cf.high_privacy_regime(P) * frac
            cases.append((P, eps, cf.high_privacy_channel(P, eps), UTILITIES))
    return _run(cases)


def _check_binary() -> Verdict:
    rng = np.random.default_rng(7381)
    cases = []
    for _ in range(10):
        P = rng.dirichlet([1.0, 1.0])
        lo, hi = -math.log(P.max()), -math.log(P.min())  # the three regimes' boundaries
        for eps in (0.5 * lo, 0.5 * (lo + hi), 1.5 * hi, float(rng.uniform(0.05, 4.0))):
            cases.append((P, eps, cf.binary_channel(P, eps), UTILITIES))
    return _run(cases)


def _check_uniform() -> Verdict:
    cases = []
    for d in (3, 4, 5, 7, 9):
        for eps in (0.2, math.log(2.0), 1.0, math.log(d) - 0.1, 2.5):
            P = np.full(d, 1.0 / d)
            Q = cf.uniform_channel(d, eps)
            if abs(cf.uniform_mi(d, eps) - float(ChannelDesign.from_params(
                prior=P, notion="pml", utility="mi", eps=eps
            ).utility.value(Q, P))) > TOL:  # fmt: skip
                return Verdict("fails", 1, math.inf, {"d": d, "eps": eps, "why": "log d - H(r*) != I(Q)"})
            cases.append((P, eps, Q, ("mi", "histogram")))
    return _run(cases)


def _check_outputs() -> Verdict:
    """|Y| ≤ |X| suffices: the certified optimum with at most d outputs, on random priors."""
    rng = np.random.default_rng(31)
    n, worst = 0, 0
    for _ in range(6):
        d = int(rng.integers(3, 9))
        P = rng.dirichlet(np.ones(d))
        for u in UTILITIES:
            r = solve(ChannelDesign.from_params(prior=P, notion="pml", utility=u, eps=0.7), solver="exact")
            n += 1
            if r.status.value != "optimal" or r.Q.shape[1] > d:
                return Verdict("fails", n, math.inf, {"prior": P.tolist(), "utility": u, "outputs": int(r.Q.shape[1])})
            worst = max(worst, r.Q.shape[1] - d)
    return Verdict("holds", n, float(worst), note="worst = max(outputs − d) over certified optima (≤ 0 holds)")


def _c(cid: str, section: str, statement: str, domain: str, check: Callable[[], Verdict], assumptions: str) -> Claim:
    return Claim(cid, PAPER, statement, domain, check, section=section, assumptions=assumptions, tol=TOL)


CLAIMS: list[Claim] = [
    _c(
        "pml.high_privacy",
        "high-privacy regime (Thm. on the high-privacy regime, as recalled)",
        "For eps <= log 1/(1 - min_x P(x)), the eps-PML mechanism Q[x, j] = e^eps P(j) (x != j), "
        "Q[j, j] = 1 - e^eps (1 - P(j)) is optimal for every sublinear utility (re-derived statement)",
        "24 random priors (d = 2..7) at 0.1, 0.6, 1 times the regime's end; mi, histogram, mse",
        _check_high_privacy,
        "fixed full-support prior; utilities sum over outputs of a convex homogeneous column gain",
    ),
    _c(
        "pml.binary",
        "binary inputs (Thm. on |X| = 2, as recalled)",
        "For |X| = 2 with P(0) <= P(1) the optimal eps-PML mechanism is the same for every sublinear utility: "
        "the high-privacy channel for e^eps P(1) < 1, then Q = [[1, 0], [(e^-eps - P(0))/P(1), "
        "(1 - e^-eps)/P(1)]] for e^eps P(0) < 1 <= e^eps P(1), then the identity (re-derived statement)",
        "10 random binary priors, eps in each of the three regimes plus one random; mi, histogram, mse",
        _check_binary,
        "fixed prior on two symbols; sublinear utilities",
    ),
    _c(
        "pml.uniform",
        "uniform prior (Thm. on the uniform prior, as recalled)",
        "For a uniform prior on d symbols the optimal eps-PML mechanism mixes the d cyclic shifts of "
        "r* = (e^eps/d x k, 1 - k e^eps/d, 0, ...), k = floor(d e^-eps); the optimal mutual information is "
        "log d - H(r*) (re-derived statement)",
        "d in {3, 4, 5, 7, 9}, eps in {0.2, log 2, 1, log d - 0.1, 2.5}; mi and histogram (permutation-invariant)",
        _check_uniform,
        "uniform prior; permutation-invariant sublinear utilities",
    ),
    _c(
        "pml.outputs",
        "output alphabet (|Y| <= |X| suffices, as recalled)",
        "An optimal eps-PML mechanism with at most |X| outputs exists",
        "6 random priors (d = 3..8), eps = 0.7; mi, histogram, mse; the certified basic optimum's outputs",
        _check_outputs,
        "fixed prior; sublinear utilities",
    ),
]
