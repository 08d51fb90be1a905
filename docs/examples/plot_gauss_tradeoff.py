r"""
Gaussian privacy-utility tradeoff: a certified optimum, a heuristic and a local method
======================================================================================

Sharma and Amariucai release :math:`Y = X + N` with independent Gaussian noise
:math:`N \sim \mathcal N(0, \operatorname{diag}(v))` on the features :math:`X`, and choose the
noise variances :math:`v` to leak as little as possible about private attributes :math:`X_p`
while keeping utility attributes :math:`X_u` predictable:

.. math::

   \min_{v \ge 0}\; I(X_p; Y) \quad \text{s.t.} \quad I(X_u; X) - I(X_u; Y) \le \delta .

The program is not convex in :math:`v`. This example solves it on the paper's sample
dataset 1 for a few utility-loss budgets :math:`\delta` with three solvers that promise
different things, and the legend says what each one proved:

- ``search``: branch and bound over :math:`s_i = \sigma_i/\sqrt{\sigma_i^2 + v_i}` with
  monotone bounds, a **certified** global optimum (a proven lower bound within the gap);
- ``greedy``: the paper's incremental noise-addition **heuristic** (feasible, no proof);
- ``sqp``: multi-start SLSQP, **locally optimal** (a KKT point, no global guarantee).
"""

# %%
import matplotlib.pyplot as plt

import mechopt
from mechopt.figures.legend import solver_guarantee
from mechopt.problems.gauss.problem import GaussProblem
from mechopt.results.words import series_label

deltas = [0.2, 0.35, 0.5, 0.65, 0.8]
solvers = ["search", "greedy", "sqp"]
results = {s: [] for s in solvers}
for delta in deltas:
    problem = GaussProblem.from_params(dataset="1", delta=delta)
    for s in solvers:
        results[s].append(mechopt.solve(problem, solver=s))

print(f"I(X_p; X) = {problem.privacy_full:.4f} nats leaked with no noise")
print(f"{'delta':>6} " + " ".join(f"{s:>26}" for s in solvers))
for i, delta in enumerate(deltas):
    cells = [f"{results[s][i].value:.6f} {results[s][i].status.value:>17}" for s in solvers]
    print(f"{delta:>6} " + " ".join(cells))

# %%
# Every answer is audited against the constraints. The certificate of ``search`` is a proven
# lower bound within its gap, so no feasible answer can leak less than the certified value minus
# the gap: the heuristic and the local method are judged against it. (A difference smaller than
# the gap, of either sign, means "equal within the certificate's tolerance".)
gap = max(r.certificate.gap for r in results["search"])
print(f"largest certificate gap of search: {gap:.1e} nats")
for s in ("greedy", "sqp"):
    excess = max(r.value - c.value for r, c in zip(results[s], results["search"]))
    verdict = "equal within the gap" if abs(excess) <= gap else "above the certified optimum"
    print(f"{s}: largest difference from the certified optimum {excess:+.1e} nats ({verdict})")

# %%
# The tradeoff curve. Each legend entry is built from the statuses and proofs of its points
# (:func:`mechopt.results.words.series_label`), so nothing unproven is called optimal.
fig, ax = plt.subplots(figsize=(6.4, 4.2))
styles = {"search": dict(marker="o", lw=2), "greedy": dict(marker="s", ls="--"), "sqp": dict(marker="^", ls=":")}
for s in solvers:
    label = series_label([(r.status.value, r.proof) for r in results[s]], guarantee=solver_guarantee(s))
    ax.plot(deltas, [r.value for r in results[s]], label=f"{s}: {label}", **styles[s])
ax.axhline(problem.privacy_full, color="0.5", lw=0.8)
ax.text(deltas[0], problem.privacy_full, " no noise", va="bottom", color="0.4")
ax.set_xlabel(r"utility loss budget $\delta$ (nats)")
ax.set_ylabel(r"leakage $I(X_p; Y)$ (nats)")
ax.set_title("Gaussian tradeoff, dataset 1")
ax.legend()
fig.tight_layout()
plt.show()
