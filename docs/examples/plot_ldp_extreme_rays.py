r"""
Why an LP over extreme rays solves a non-convex design problem
===============================================================

The problem: for a prior :math:`P` on :math:`d = 3` symbols, find the
:math:`\varepsilon`-LDP channel :math:`Q` (rows are inputs,
:math:`Q[x, y] = P(Y = y \mid X = x)`) that **maximises** the mutual information
:math:`I(X; Y)`.

The feasible set is a polytope (each LDP constraint
:math:`Q[x, y] \le e^{\varepsilon} Q[x', y]` is linear), but :math:`I(X;Y)` is a
*convex* function of :math:`Q` for a fixed prior, and we maximise it: a local
method can stop at a poor vertex. This example shows the non-convexity, then
solves the problem exactly with a linear program over the extreme rays of the
column cone (the mathematical notes, §1), with ``scipy.optimize.linprog``
directly, and compares with mechopt's solvers.
"""

# %%
# Setting up
# ----------
import itertools

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import linprog

import mechopt
from mechopt.model.info import mutual_information
from mechopt.problems.design import ChannelDesign
from mechopt.utilities import MutualInfo

P = np.array([0.5, 0.3, 0.2])
eps = 1.0
problem = ChannelDesign.from_params(prior=P, notion="ldp", utility="mi", eps=eps)
print(problem.notion, problem.sense, problem.objective)

# %%
# 1. A local method finds different answers from different starts
# ----------------------------------------------------------------
# The ``sqp`` solver runs SLSQP from ``n_starts`` random feasible starts and keeps
# the best. One start at a time shows the landscape: several distinct local optima.
local = np.array([mechopt.solve(problem, solver="sqp", n_starts=1, seed=s).value for s in range(12)])
print("single-start SQP values:", np.round(np.sort(local), 5))

# %%
# 2. Why: a convex objective over a polytope
# ------------------------------------------
# Relabelling the outputs of an optimal channel gives another optimal channel with
# the same :math:`I(X;Y)`. The segment between the two is feasible (the polytope is
# convex) but the objective along it is convex, hence *lower* inside: the
# maximisation is not a convex program, and its maxima sit at vertices.
best = mechopt.solve(problem, solver="sqp", n_starts=12, seed=0)
Q1 = best.Q
Q2 = Q1[:, ::-1]  # same mechanism, outputs relabelled
ts = np.linspace(0, 1, 41)
segment = [mutual_information(P, (1 - t) * Q1 + t * Q2) for t in ts]
audits = [problem.notion.audit((1 - t) * Q1 + t * Q2, P).violation for t in ts]
print(
    f"I at the ends {segment[0]:.5f}, in the middle {segment[20]:.5f}; "
    f"max LDP violation along the segment {max(audits):.1e}"
)

# %%
# 3. The column program and its extreme rays
# ------------------------------------------
# Write the channel through its joint columns :math:`c_y(x) = P(x) Q[x, y]`, so that
# :math:`\sum_y c_y = P`. The LDP condition is a condition on each column alone,
# linear and homogeneous: the admissible columns form a polyhedral cone
# :math:`K`. The objective is a sum over columns of a gain
#
# .. math::
#
#    \mu(c) = \sum_x c_x \log \frac{c_x}{P(x)\, \mathbf 1^\top c},
#    \qquad I(X;Y) = \sum_y \mu(c_y),
#
# which is convex and positively homogeneous, hence subadditive: splitting a
# column never hurts, so an optimum uses only extreme rays of :math:`K`. For LDP on
# the complete graph the extreme rays are the columns proportional to
# :math:`P \circ s` with a *staircase pattern* :math:`s \in \{1, e^{\varepsilon}\}^d`
# (not constant): :math:`2^3 - 2 = 6` of them here. The design problem becomes the
# linear program
#
# .. math::
#
#    \max_{\theta \ge 0} \ \sum_j \theta_j \mu(r_j)
#    \quad \text{s.t.} \quad \sum_j \theta_j r_j = P .
patterns = [np.array(s) for s in itertools.product([1.0, np.exp(eps)], repeat=3) if len(set(s)) > 1]
R = np.column_stack([P * s for s in patterns])
R /= R.sum(axis=0)  # normalise each ray: 1ᵀr = 1
mu = MutualInfo(P).gain(R)  # μ of each ray
for s, m in zip(patterns, mu):
    print("pattern", np.round(s, 3), " mu =", round(float(m), 5))

lp = linprog(-mu, A_eq=R, b_eq=P, bounds=(0, None), method="highs")
theta = lp.x
print("LP status:", lp.message, "\noptimum I* =", -lp.fun)

# %%
# Recover the channel, :math:`Q[x, j] = \theta_j r_j(x) / P(x)`, keeping the
# columns with positive weight (a basic solution has at most :math:`d` of them),
# and audit it.
used = theta > 1e-12
Q_lp = R[:, used] * theta[used] / P[:, None]
print(np.round(Q_lp, 4))
print("rows sum to 1:", np.allclose(Q_lp.sum(axis=1), 1), "| I(X;Y) =", mutual_information(P, Q_lp))
print("audited LDP eps:", problem.notion.audit(Q_lp, P).eps)

# %%
# The dual of the LP is a certificate: with :math:`\nu` the equality duals, every
# ray has reduced gain :math:`\mu(r) - \nu^\top r \le 0`, so no channel can beat
# :math:`\nu^\top P` — the LP value is the *global* optimum of the non-convex
# problem, not merely a good local one.
nu = -lp.eqlin.marginals  # duals of the maximisation
print("bound nuᵀP =", nu @ P, "| max reduced gain =", float(np.max(mu - nu @ R)))

# %%
# 4. Compare with mechopt's solvers
# ---------------------------------
# ``sqp`` with many starts finds the optimum here (but cannot certify it); the
# ``exact`` solver, when installed, solves the same LP and returns the certificate.
rows = [("LP over rays (by hand)", -lp.fun, "dual bound"), ("sqp, 12 starts", best.value, "none")]
if "exact" in mechopt.registry.solver_names():
    ex = mechopt.solve(problem, solver="exact")
    rows.append(("exact", ex.value, f"gap {ex.certificate.gap:.1e}" if ex.certificate else "none"))
for name, val, cert in rows:
    print(f"{name:24s} I = {val:.8f}   certificate: {cert}")

# %%
# The picture
# -----------
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
ax.plot(ts, segment, color="C0")
ax.set_xlabel("t  (channel = (1 − t) Q* + t Q* relabelled)")
ax.set_ylabel("I(X; Y)  [nats]")
ax.set_title("Along a feasible segment the objective is convex")
ax = axes[1]
ax.scatter(np.arange(local.size), np.sort(local), color="C1", label="single-start SQP")
ax.axhline(-lp.fun, color="k", ls="--", label="LP over extreme rays (global)")
ax.set_xlabel("start (sorted)")
ax.set_ylabel("I(X; Y)  [nats]")
ax.set_title("Local optima vs the certified optimum")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()
