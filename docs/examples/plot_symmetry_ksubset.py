r"""
Symmetry: from 2^d extreme rays to d − 1 orbits, and the k-subset mechanism
============================================================================

For a **uniform** prior every permutation of the inputs leaves the prior and
ε-LDP unchanged. Averaging an optimal mechanism over its permuted copies keeps
the mutual information (Corollary 2.1 of the k-subset paper; the mathematical
notes, §2), so the LP over the :math:`2^d - 2` staircase rays can be reduced to
one column per *orbit* — the patterns with :math:`k` entries at
:math:`e^{\varepsilon}`, :math:`k = 1, \dots, d-1`. The best single orbit is the
k-subset mechanism, and the k-subset paper's Theorem 2.1 says which :math:`k`.
"""

# %%
import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import linprog

from mechopt.utilities import MutualInfo

d, eps = 8, 1.0
P = np.full(d, 1 / d)
E = math.exp(eps)

# %%
# The full LP: all :math:`2^d - 2 = 254` staircase rays.
patterns = np.array([s for s in itertools.product([1.0, E], repeat=d) if len(set(s)) > 1])
R = (P * patterns).T
R /= R.sum(axis=0)
mu = MutualInfo(P).gain(R)
full = linprog(-mu, A_eq=R, b_eq=P, bounds=(0, None), method="highs")
print(f"full LP: {R.shape[1]} rays, I* = {-full.fun:.10f}")

# %%
# The orbit LP. The average of the normalised rays of orbit :math:`k` is exactly the
# uniform prior, so the constraint :math:`\sum_k w_k \bar r_k = P` is just
# :math:`\sum_k w_k = 1` and the LP picks the best orbit: :math:`I^* = \max_k I_k`.
ks = np.arange(1, d)


def orbit_gain(k: int) -> float:
    s = np.r_[np.full(k, E), np.ones(d - k)]
    r = P * s / (P @ s)  # a normalised ray of orbit k
    return float(MutualInfo(P).gain(r[:, None])[0])


I_k = np.array([orbit_gain(k) for k in ks])
# the paper's formula for I_k (Theorem 2.1) is the same number
I_paper = (ks * E * np.log(d * E / (ks * E + d - ks)) + (d - ks) * np.log(d / (ks * E + d - ks))) / (ks * E + d - ks)
assert np.allclose(I_k, I_paper)
orbit = linprog(-I_k, A_eq=np.ones((1, d - 1)), b_eq=[1.0], bounds=(0, None), method="highs")
k_best = int(ks[np.argmax(orbit.x)])
print(f"orbit LP: {d - 1} columns, I* = {-orbit.fun:.10f}, active orbit k = {k_best}")

# %%
# Theorem 2.1: the optimum is attained at :math:`k = \lfloor\beta\rfloor` or
# :math:`\lceil\beta\rceil` with
# :math:`\beta = (\varepsilon e^{\varepsilon} - e^{\varepsilon} + 1)\,d/(e^{\varepsilon} - 1)^2`.
beta = (eps * E - E + 1) * d / (E - 1) ** 2
print(f"beta = {beta:.4f}  ->  k in {{{math.floor(beta)}, {math.ceil(beta)}}}; the LP says k = {k_best}")
assert abs(full.fun - orbit.fun) < 1e-9

# %%
# The same over a range of ε: the optimal subset size shrinks as ε grows, and
# :math:`\beta` tracks it.
eps_grid = np.linspace(0.2, 4.0, 40)
k_lp, betas = [], []
for e in eps_grid:
    Ee = math.exp(e)
    Ik = [
        (k * Ee * math.log(d * Ee / (k * Ee + d - k)) + (d - k) * math.log(d / (k * Ee + d - k))) / (k * Ee + d - k)
        for k in ks
    ]
    k_lp.append(int(ks[int(np.argmax(Ik))]))
    betas.append((e * Ee - Ee + 1) * d / (Ee - 1) ** 2)

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
axes[0].bar(ks, I_k, color=["C1" if k == k_best else "C0" for k in ks])
axes[0].set_xlabel("orbit k (entries at e^ε)")
axes[0].set_ylabel("I_k  [nats]")
axes[0].set_title(f"d = {d}, ε = {eps}: the orbit LP picks k = {k_best}")
axes[1].step(eps_grid, k_lp, where="mid", label="optimal k (orbit LP)")
axes[1].plot(eps_grid, betas, "k--", lw=0.8, label="β of Theorem 2.1")
axes[1].set_xlabel("ε")
axes[1].set_ylabel("subset size")
axes[1].set_title("The optimal subset size")
axes[1].legend()
fig.tight_layout()
plt.show()
