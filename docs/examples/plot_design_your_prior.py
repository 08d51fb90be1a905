r"""
Design a mechanism for your own prior (Python)
==============================================

Users report a value :math:`X \in \{0, 1, 2\}` with prior
:math:`P = (0.1, 0.2, 0.7)`; the aggregator estimates the sum of the values and
wants the smallest mean squared error under :math:`\varepsilon`-LIP with
:math:`\varepsilon = 1`. This is the Python version of the command-line walk-through
in :doc:`/getting_started`.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import mechopt
from mechopt.problems.design import ChannelDesign

# %%
# One call: :func:`mechopt.design` builds the problem from names and solves it. Every
# result is re-audited from the problem data: ``violation`` is the audited privacy
# excess (0 when private), ``eps_audited`` the smallest ε the mechanism satisfies.
# The ``exact`` solver certifies the optimum; where it is not installed the local ``sqp`` is used.
best = ("exact", {}) if "exact" in mechopt.registry.solver_names() else ("sqp", {"n_starts": 10})
res = mechopt.design(
    prior="0.1,0.2,0.7", notion="lip", utility="mse", values=[0, 1, 2], eps=1.0, solver=best[0], **best[1]
)
print("solver:", res.solver, "| certificate:", res.certificate)
print(res.status.value, "proof:", res.proof, res.sense, res.objective, "value =", round(res.value, 6))
print(
    "privacy:", res.notion, "eps =", res.eps, "audited eps =", round(res.eps_audited, 6), "violation =", res.violation
)
print("Q (rows are inputs x, columns outputs y):")
print(np.round(res.Q, 4))

# %%
# The same through a problem object, which lets you try several solvers on one
# instance. Which solvers apply is decided by the forms the problem offers. (When the
# LIP paper's module is installed, ``closed-form`` applies too, and comes back
# ``infeasible_point``: Theorem 3's channel is not ε-LIP for a prior with
# ``min P < 1/(1 + e^ε)`` — the audit catches it.)
problem = ChannelDesign.from_params(prior="0.1,0.2,0.7", notion="lip", utility="mse", values="0,1,2", eps=1.0)
print("solvers that apply:", mechopt.registry.solvers_for(problem))
results = {}
for name in mechopt.registry.solvers_for(problem):
    opts = {"n_starts": 10} if name == "sqp" else {}  # each solver has its own options
    r = mechopt.solve(problem, solver=name, **opts)
    results[name] = r
    cert = f"gap {r.certificate.gap:.1e}" if r.certificate else "no certificate"
    print(f"{name:12s} {r.status.value:18s} MSE = {r.value:.8f}   {cert}   {r.time_s:.2f} s")

# %%
# The mechanism as a picture, and the privacy-utility tradeoff against LDP at the
# same ε (LIP uses the prior, LDP protects against every prior).
eps_grid = np.linspace(0.2, 3.0, 8)
curves = {}
for notion in ("lip", "ldp"):
    curves[notion] = [
        mechopt.design(
            prior="0.1,0.2,0.7", notion=notion, utility="mse", values=[0, 1, 2], eps=e, solver=best[0], **best[1]
        ).value
        for e in eps_grid
    ]

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
ax = axes[0]
im = ax.imshow(res.Q, cmap="viridis", vmin=0, vmax=1)
for (x, y), q in np.ndenumerate(res.Q):
    ax.text(y, x, f"{q:.2f}", ha="center", va="center", color="w" if q < 0.6 else "k")
ax.set_xticks(range(res.Q.shape[1]))
ax.set_yticks(range(res.Q.shape[0]))
ax.set_xlabel("output y")
ax.set_ylabel("input x")
ax.set_title("Q[x, y] = P(Y = y | X = x), ε = 1")
fig.colorbar(im, ax=ax, fraction=0.046)
ax = axes[1]
for notion, vals in curves.items():
    ax.plot(eps_grid, vals, "o-", label=notion.upper())
ax.set_xlabel("ε")
ax.set_ylabel("MSE of the sum (per user)")
ax.set_title("Tradeoff for P = (0.1, 0.2, 0.7)")
ax.legend()
fig.tight_layout()
plt.show()
