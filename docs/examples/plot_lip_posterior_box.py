r"""
LIP in pictures: the posterior box, its vertices, and a closed form outside it
==============================================================================

ε-LIP constrains each output's **posterior** :math:`p_y = P(X = \cdot \mid Y = y)`
to the box

.. math::

   B = \{p \in \Delta : e^{-\varepsilon} P \le p \le e^{\varepsilon} P\},

and a mechanism is a way of writing the prior as an average of posteriors,
:math:`P = \sum_y \lambda_y p_y` (the outputs' probabilities are the weights).
For three symbols the simplex is a triangle and :math:`B` a polygon around
:math:`P`. The MSE of the sum is :math:`E[a_X^2] - \sum_y \lambda_y (a^\top p_y)^2`:
a convex function of the posteriors is *maximised*, so the optimum puts its
posteriors on **vertices** of :math:`B` — the extreme rays of the column LP.

We draw :math:`B`, solve the LP over its vertices with HiGHS, and also draw the
posteriors of the LIP paper's Theorem 3 channel, which leave the box when
:math:`\min_m P_m < 1/(1 + e^{\varepsilon})`.
"""

# %%
import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import linprog

P = np.array([0.1, 0.2, 0.7])
a = np.array([0.0, 1.0, 2.0])  # the values whose sum is estimated


def to_xy(p: np.ndarray) -> np.ndarray:
    """Barycentric (p0, p1, p2) -> the plane (symbol 0 bottom-left, 1 bottom-right, 2 top)."""
    p = np.atleast_2d(p)
    return np.c_[p[:, 1] + p[:, 2] / 2, p[:, 2] * math.sqrt(3) / 2]


def box_vertices(P: np.ndarray, eps: float) -> np.ndarray:
    """Vertices of B: every coordinate at a bound except one, fixed by 1ᵀp = 1."""
    lo, hi = math.exp(-eps) * P, np.minimum(math.exp(eps) * P, 1.0)
    out = []
    for free in range(P.size):
        others = [i for i in range(P.size) if i != free]
        for bits in itertools.product([0, 1], repeat=P.size - 1):
            p = np.zeros(P.size)
            p[others] = [hi[i] if b else lo[i] for i, b in zip(others, bits)]
            p[free] = 1 - p[others].sum()
            if lo[free] - 1e-12 <= p[free] <= hi[free] + 1e-12:
                out.append(p)
    V = np.unique(np.round(out, 12), axis=0)
    c = V.mean(axis=0)
    xy, cxy = to_xy(V), to_xy(c)[0]
    return V[np.argsort(np.arctan2(xy[:, 1] - cxy[1], xy[:, 0] - cxy[0]))]  # in polygon order


def lp_optimum(P: np.ndarray, eps: float) -> tuple[float, np.ndarray, np.ndarray]:
    V = box_vertices(P, eps)
    R = V.T  # normalised rays = posteriors
    gain = (a @ R) ** 2  # μ of a normalised ray
    lp = linprog(-gain, A_eq=R, b_eq=P, bounds=(0, None), method="highs")
    mse = float(P @ a**2 + lp.fun)
    return mse, V, lp.x


def theorem3_posteriors(P: np.ndarray, eps: float) -> np.ndarray:
    """Posteriors of q_mm = 1 − (1 − P_m)e^{-ε}, q_mk = P_k e^{-ε}: its output marginal is P."""
    Q = np.outer(np.ones(P.size), P) * math.exp(-eps)
    np.fill_diagonal(Q, 1 - (1 - P) * math.exp(-eps))
    joint = P[:, None] * Q
    return (joint / joint.sum(axis=0)).T


# %%
for eps in (0.5, 1.0, 3.0):
    mse, V, theta = lp_optimum(P, eps)
    inside = np.all(theorem3_posteriors(P, eps) <= math.exp(eps) * P + 1e-12)
    print(
        f"eps = {eps}: {len(V)} vertices, certified MSE = {mse:.6f}, "
        f"outputs used = {int(np.sum(theta > 1e-12))}, Theorem 3 posteriors inside B: {bool(inside)}"
        f"  (needs min P >= {1 / (1 + math.exp(eps)):.3f})"
    )

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
tri = to_xy(np.eye(3))
for ax, eps in zip(axes, (0.5, 1.0, 3.0)):
    mse, V, theta = lp_optimum(P, eps)
    ax.fill(*to_xy(np.eye(3)).T, color="0.95", ec="0.6")
    ax.fill(*to_xy(V).T, color="C0", alpha=0.25, ec="C0", label="posterior box B")
    used = theta > 1e-12
    lam = theta[used]
    ax.scatter(*to_xy(V[used]).T, s=600 * lam, color="C0", ec="k", zorder=3, label="LP optimum (size = P(Y = y))")
    ax.scatter(
        *to_xy(theorem3_posteriors(P, eps)).T, marker="x", s=60, color="C3", zorder=4, label="Theorem 3 posteriors"
    )
    ax.scatter(*to_xy(P).T, marker="*", s=120, color="k", zorder=5, label="prior P")
    for (x, y), name in zip(tri, ("x = 0", "x = 1", "x = 2")):
        ax.annotate(
            name, (x, y), textcoords="offset points", xytext=(0, -12 if y < 0.1 else 9), ha="center", fontsize=8
        )
    ax.set_title(f"ε = {eps}: MSE* = {mse:.4f}")
    ax.set_aspect("equal")
    ax.axis("off")
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, markerscale=0.5)
fig.tight_layout(rect=(0, 0.08, 1, 1))
plt.show()
