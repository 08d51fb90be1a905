r"""
Adding your own privacy notion and utility
==========================================

mechopt's solvers never look at a notion's name: they read a notion through
three methods and a utility through its value and column gain. Subclass
:class:`~mechopt.notions.base.PrivacyNotion` or :class:`~mechopt.utilities.Utility`,
implement those, and every solver that applies can design with them, and
:func:`mechopt.solve` audits the answers against *your* definition.

Here we protect only a **sensitive set** :math:`S` of inputs (say, the diagnoses
that must stay private) in the information-privacy sense of the LIP paper:

.. math::

   e^{-\varepsilon} \le \frac{P(X \in S \mid Y = y)}{P(X \in S)} \le e^{\varepsilon}
   \quad \text{for every output } y,

and measure utility by a **weighted histogram error**
:math:`\sum_k w_k\, E\big[(\mathbf 1\{X = k\} - P(X = k \mid Y))^2\big]`.
"""

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

import mechopt
from mechopt.notions import LIP, PrivacyNotion
from mechopt.problems.design import ChannelDesign
from mechopt.utilities import HistogramMSE, Utility

# %%
# The notion
# ----------
# Three methods:
#
# - ``epsilon(Q, prior)``: the smallest ε the channel satisfies (the audit);
# - ``cone(prior)``: a matrix :math:`A` such that the admissible joint columns
#   :math:`c(x) = P(x) Q[x, y]` are :math:`\{c \ge 0 : A c \ge 0\}` — here
#   :math:`\mathbf 1_S^\top c - e^{-\varepsilon} P(S)\, \mathbf 1^\top c \ge 0` and
#   :math:`e^{\varepsilon} P(S)\, \mathbf 1^\top c - \mathbf 1_S^\top c \ge 0`
#   (linear and homogeneous, so the exact LP over extreme rays applies);
# - ``cvxpy_constraints(Q, prior)``: the same on a cvxpy variable (for conic forms).


class SensitiveSetIP(PrivacyNotion):
    """ε-information privacy of the event {X ∈ S} only."""

    name = "sensitive-ip"
    needs_prior = True

    def __init__(self, eps: float, sensitive: list[int]) -> None:
        super().__init__(eps)
        self.sensitive = np.asarray(sensitive, dtype=int)

    def _indicator(self, d: int) -> np.ndarray:
        s = np.zeros(d)
        s[self.sensitive] = 1.0
        return s

    def epsilon(self, Q, prior):
        s = self._indicator(prior.size)
        joint = prior[:, None] * Q  # P(x, y)
        lam = joint.sum(axis=0)  # P(y)
        used = lam > 0
        post = s @ joint[:, used] / lam[used]  # P(X ∈ S | y)
        pS = s @ prior
        if np.any(post <= 0):
            return math.inf
        return float(np.max(np.abs(np.log(post / pS))))

    def cone(self, prior):
        s, ones = self._indicator(prior.size), np.ones(prior.size)
        pS = s @ prior
        return np.vstack([s - math.exp(-self.eps) * pS * ones, math.exp(self.eps) * pS * ones - s])

    def cvxpy_constraints(self, Q, prior):
        s = self._indicator(prior.size)
        pS = s @ prior
        lam = prior @ Q  # affine in Q
        post_mass = (s * prior) @ Q  # P(X ∈ S, Y = y)
        return [post_mass >= math.exp(-self.eps) * pS * lam, post_mass <= math.exp(self.eps) * pS * lam]


# %%
# The utility
# -----------
# ``value(Q, prior)`` defines it; ``sense`` says whether it is minimised. For the
# exact solver, a *sublinear* utility also gives its column gain: here
# :math:`\text{value} = \sum_k w_k P_k - \sum_y \mu(c_y)` with
# :math:`\mu(c) = \sum_k w_k c_k^2 / \mathbf 1^\top c` (convex and positively
# homogeneous), i.e. ``offset`` :math:`\sum_k w_k P_k` and ``sign`` −1.


class WeightedHistogramMSE(Utility):
    """Σ_k w_k E[(1{X=k} − P(X=k|Y))²]."""

    name = "weighted-histogram"
    sense = "min"
    sublinear = True
    sign = -1.0

    def __init__(self, weights) -> None:
        self.w = np.asarray(weights, dtype=float)

    def gain(self, C):
        mass = C.sum(axis=0)
        return np.divide(self.w @ C**2, mass, out=np.zeros_like(mass), where=mass > 0)

    def offset(self, prior):
        return float(self.w @ prior)

    def value(self, Q, prior):
        return self.offset(prior) - float(self.gain(prior[:, None] * Q).sum())

    def restrict(self, index):
        return WeightedHistogramMSE(self.w[index])


# %%
# Check the new pieces against their definitions before using them: a random channel
# is not private (large audited ε, columns outside the cone), and the gain identity
# reproduces the value.
P = np.array([0.15, 0.25, 0.35, 0.25])
notion = SensitiveSetIP(0.5, sensitive=[0])
rng = np.random.default_rng(0)
Q = rng.dirichlet(np.ones(4), size=4)
print("audit of a random channel:", notion.audit(Q, P))
u = WeightedHistogramMSE([4.0, 1.0, 1.0, 1.0])
C = P[:, None] * Q
assert np.isclose(u.offset(P) + u.sign * u.gain(C).sum(), u.value(Q, P))
A = notion.cone(P)
print("cone rows:", A.shape, "| columns inside the cone at eps = 0.5:", bool(np.all(A @ C >= -1e-12)))

# %%
# Design with it
# --------------
# :class:`~mechopt.problems.design.ChannelDesign` takes any notion and utility. The
# ``sqp`` solver builds its NLP from ``notion.cone``; ``mechopt.solve`` re-audits the
# answer with ``notion.epsilon``.
problem = ChannelDesign(prior=P, notion=notion, utility=HistogramMSE())
res = mechopt.solve(problem, solver="sqp", n_starts=8, seed=0)
print(res.status.value, "histogram MSE =", round(res.value, 6), "| audited eps =", round(res.eps_audited, 6))
print(np.round(res.Q, 3))

# %%
# Protecting only the sensitive symbol is far cheaper than full LIP at the same ε:
full = mechopt.solve(ChannelDesign(prior=P, notion=LIP(0.5), utility=HistogramMSE()), solver="sqp", n_starts=8, seed=0)
print(f"histogram MSE: sensitive-set IP {res.value:.4f}  vs  full LIP {full.value:.4f}")

# %%
# The weighted utility needs the ``exact`` solver, which reads only ``gain``: the
# ``sqp`` solver's NLP uses analytic gradients of the built-in utilities.
if "exact" in mechopt.registry.solver_names():
    weighted = mechopt.solve(ChannelDesign(prior=P, notion=notion, utility=u), solver="exact")
    print(
        "exact, weighted utility:",
        weighted.status.value,
        round(weighted.value, 6),
        "certificate gap",
        weighted.certificate.gap if weighted.certificate else None,
    )
else:
    print("the exact solver is not installed in this build")

# %%
# The tradeoff curve of the new notion against LIP
# ------------------------------------------------
eps_grid = np.linspace(0.1, 2.0, 8)
curves = {"sensitive-set IP (S = {0})": [], "LIP (every symbol)": []}
for e in eps_grid:
    for label, nt in (("sensitive-set IP (S = {0})", SensitiveSetIP(e, [0])), ("LIP (every symbol)", LIP(e))):
        r = mechopt.solve(ChannelDesign(prior=P, notion=nt, utility=HistogramMSE()), solver="sqp", n_starts=4, seed=0)
        curves[label].append(r.value)
fig, ax = plt.subplots(figsize=(6, 3.8))
for label, vals in curves.items():
    ax.plot(eps_grid, vals, "o-", label=label)
ax.set_xlabel("ε")
ax.set_ylabel("histogram MSE (per user)")
ax.set_title("Protecting less costs less")
ax.legend()
fig.tight_layout()
plt.show()
