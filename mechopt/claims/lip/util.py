"""Helpers of the LIP claim modules: binary channels, the Bayes posterior mean, certified optima, the
outputs of a basic optimal solution.

Examples
--------
>>> _lam(0.5, 0.1, 0.1)
(0.5, 0.5)
"""

from __future__ import annotations

import numpy as np

from mechopt.claims._spec import corrected
from mechopt.claims.lip.checks import certified
from mechopt.jobs.verify import Verdict
from mechopt.problems.lip.problems import LIPBinary

PAPER = "lip"
TOL = 1e-9
EPS5 = tuple(np.arange(1.0, 5.01, 0.5))  # Fig. 5 / Fig. 8 grid


# ---------------------------------------------------------------------------------- helpers
def _lam(P1, q0, q1):
    l0 = (1 - P1) * (1 - q0) + P1 * q1
    return l0, 1 - l0


def _rand_binary(n=400, seed=17):
    rng = np.random.default_rng(seed)
    P1 = rng.uniform(0.02, 0.98, n)
    q0 = rng.uniform(0.01, 0.99, n)
    q1 = rng.uniform(0.01, 0.99, n)
    return P1, q0, q1


def _direct_var_xhat(P1, q0, q1):
    """Var(E[X|Y]) and E[X|Y=y] by Bayes from the channel."""
    l0, l1 = _lam(P1, q0, q1)
    m0, m1 = P1 * q1 / l0, P1 * (1 - q1) / l1  # E[X | Y=0], E[X | Y=1]
    return l0 * m0**2 + l1 * m1**2 - P1**2, m0, m1


def _printed_vs_corrected(dev_printed, dev_corr, insts, tol, correction, note=""):
    if max(dev_printed) <= tol:
        return Verdict("holds", len(dev_printed), max(dev_printed), note=note)
    i = int(np.argmax(dev_printed))
    v = Verdict.from_deviations(dev_corr, tol, insts)
    ce = {**insts[i], "printed_deviation": float(dev_printed[i])}
    v = Verdict(v.verdict, v.checked, float(max(dev_printed)), ce, None, note)
    return corrected(v, correction, note) if max(dev_corr) <= tol else v


def lip_opt(p1, eps):
    return certified(LIPBinary(p1=float(p1), eps=float(eps), kind="lip")).value


def ldp_opt(p1, eps):
    return certified(LIPBinary(p1=float(p1), eps=float(eps), kind="ldp")).value


def _L(P1, q0, q1):
    """The Step-2 objective L = (lambda0 - q1)^2/(lambda0 lambda1) of App. A."""
    l0, l1 = _lam(P1, q0, q1)
    return (l0 - q1) ** 2 / (l0 * l1)


def basic_outputs(prob, Q: np.ndarray) -> int:
    """Outputs of a *basic* optimal solution over the posteriors of an optimal channel Q.

    The columns of Q (as normalised joint columns r_y) are fed to the LP
    max Σ θ_y μ(r_y) s.t. Σ θ_y r_y = P, θ ≥ 0, solved by dual simplex (a
    vertex: at most d positive weights); outputs with equal posteriors are merged.
    """
    from scipy.optimize import linprog

    P = prob.prior
    C = P[:, None] * Q
    mass = C.sum(axis=0)
    R = C[:, mass > 1e-14] / mass[mass > 1e-14]
    R = np.unique(np.round(R.T, 10), axis=0).T
    gain = prob.utility.gain(R)
    lp = linprog(-gain, A_eq=R, b_eq=P, bounds=(0, None), method="highs-ds")
    if lp.status != 0:
        return -1
    return int(np.sum(lp.x > 1e-10))
