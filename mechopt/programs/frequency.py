"""The local program of a frequency-estimation design (utility ``freq-var``), for the ``sqp`` solver.

With R = (QQᵀ)⁻¹Q the unbiased frequency estimator of a channel Q of full row
rank, the per-user variance is

    V(Q) = Σ_y λ_y ‖R[:, y]‖² − ‖P‖²,    λ = PQ,

and the design is

    minimise   V(Q)   over Q of shape d × d
    s.t.       Q 1 = 1,  Q ≥ 0,  Q satisfies the notion at level ε.

V is not convex (:class:`~mechopt.utilities.FrequencyVariance`: relabelled
outputs have equal values and their midpoint can be singular), so this is a
local program: ``sqp`` returns a KKT point, ``locally_optimal``, with no
certificate. Its gradient, with H = G⁻¹, G = QQᵀ, Λ = diag(λ), M = QΛQᵀ and
K = H(HM + MH)H, is

    ∇V = 2 H² Q Λ − 2 K Q + P wᵀ,    w_y = ‖R[:, y]‖².

Its baselines (:mod:`mechopt.programs.baselines`) are GRR (k-RR under LDP)
and the identity shrunk toward the product channel 1Pᵀ as little as the
notion allows (the constant channel has no unbiased estimator); ``sqp``
starts from them and from random private channels and never returns worse
than them. A singular Q has no unbiased estimator: V is +inf there and the
starts keep away from it.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="uniform:3", notion="ldp", utility="freq-var", eps=1.0)
>>> r = mechopt.solve(prob, solver="sqp", n_starts=4, seed=0)
>>> r.status.value, r.certificate is None, r.violation <= 1e-7
('locally_optimal', True, True)
"""

from __future__ import annotations

import numpy as np

from mechopt.model.forms import ColumnProgram, NLPForm
from mechopt.programs.baselines import channel_baselines, shrunk_identity
from mechopt.programs.linear import make_private
from mechopt.programs.nlp import channel_constraints, last_point, private_starts

__all__ = ["freq_var", "freq_var_grad", "freq_var_nlp", "shrunk_identity"]


def freq_var(Q: np.ndarray, prior: np.ndarray) -> float:
    """V(Q): the per-user variance of the unbiased frequency estimate (+inf when Q is rank deficient).

    >>> import numpy as np
    >>> round(freq_var(np.eye(2), np.array([0.3, 0.7])), 12)   # exact reports: 1 - ‖P‖² (Var of a one-hot)
    0.42
    """
    val, _ = _value_grad(np.asarray(Q, float), np.asarray(prior, float), grad=False)
    return val


def freq_var_grad(Q: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """∇V(Q), shape of Q (zeros where V is infinite); see the module docstring for the formula.

    >>> import numpy as np
    >>> P = np.array([0.2, 0.3, 0.5]); Q = np.array([[.6, .3, .1], [.2, .5, .3], [.1, .2, .7]])
    >>> E = np.zeros_like(Q); E[1, 2] = 1e-6
    >>> fd = (freq_var(Q + E, P) - freq_var(Q - E, P)) / 2e-6
    >>> bool(abs(fd - freq_var_grad(Q, P)[1, 2]) < 1e-6)
    True
    """
    _, g = _value_grad(np.asarray(Q, float), np.asarray(prior, float), grad=True)
    return g


def _value_grad(Q: np.ndarray, P: np.ndarray, grad: bool) -> tuple[float, np.ndarray | None]:
    G = Q @ Q.T
    try:
        H = np.linalg.inv(G)
    except np.linalg.LinAlgError:
        return np.inf, np.zeros_like(Q) if grad else None
    lam = P @ Q
    R = H @ Q
    w = (R**2).sum(axis=0)
    val = float(lam @ w - P @ P)
    if not np.isfinite(val) or np.linalg.matrix_rank(G) < Q.shape[0]:
        return np.inf, np.zeros_like(Q) if grad else None
    if not grad:
        return val, None
    H2 = H @ H
    M = (Q * lam) @ Q.T
    K = H @ (H @ M + M @ H) @ H
    return val, 2 * H2 @ Q * lam - 2 * K @ Q + np.outer(P, w)


def freq_var_nlp(prog: ColumnProgram) -> NLPForm:
    """The NLP of a frequency-estimation design on the support (``prog`` from ``problem.reduced()``)."""
    P = prog.prior
    d = P.size
    constraints = channel_constraints(prog, d)

    def fun(x: np.ndarray) -> float:
        return freq_var(np.clip(x.reshape(d, d), 0.0, None), P)

    def jac(x: np.ndarray) -> np.ndarray:
        return freq_var_grad(np.clip(x.reshape(d, d), 0.0, None), P).ravel()

    @last_point
    def private(x: np.ndarray) -> np.ndarray:
        """The solver's point as an exactly private channel (no column dropped: that would lose rank)."""
        return make_private(x.reshape(d, d), P, prog.notion, dust=0.0)

    return NLPForm(
        fun=fun,
        jac=jac,
        bounds=[(0.0, 1.0)] * (d * d),
        constraints=constraints,
        starts=private_starts(prog, d),
        recover=lambda x: prog.restore(private(x)),
        value_of=lambda x: freq_var(private(x), P),
        sense="min",
        objective=prog.objective,
        baselines=lambda: [(name, Q.ravel()) for name, Q in channel_baselines(prog, d) if name != "constant"],
        repairs=True,
    )
