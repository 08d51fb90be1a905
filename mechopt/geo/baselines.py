"""Baseline location-privacy mechanisms (not optimal): planar Laplace on a grid, the exponential mechanism, remapping.

- :func:`planar_laplace` — the planar Laplace mechanism of Andrés et al. (CCS 2013), density
  ε²/(2π) e^{−ε‖z − x‖}, with the noisy point snapped to the nearest grid point. Snapping is
  post-processing, so on the grid it is exactly ε-geo-indistinguishable for the Euclidean
  distance. Q[x, y] is the Laplace mass of y's cell (a rectangle, unbounded at the border),
  computed from the Gaussian scale mixture e^{−ε r} = ∫_0^∞ ε/(2√π) t^{−3/2} e^{−ε²/(4t)} e^{−t r²} dt:
  e^{−t r²} factors over the axes, so each cell mass is one integral over t of a product of two
  1-D Gaussian integrals (erf/erfc differences, each accurate to relative rounding), integrated by
  the trapezoidal rule in log t (exponentially convergent; rows sum to 1 within 1e-12). On a line
  (1 × N grid) it is the 1-D Laplace mechanism snapped, in closed form.
- :func:`exponential_mechanism` — Q[x, y] ∝ e^{−(ε/2) d(x, y)} per row: ε-private for any metric
  (each ratio is at most e^{(ε/2) d(x,x')} twice: the kernel and the normaliser).
- :func:`remap` — Bayesian remapping (Chatzikokolakis et al., PoPETs 2017): report the output that
  minimises the posterior expected loss of the mechanism's report. Post-processing: as private.

Examples
--------
>>> import numpy as np
>>> from mechopt.geo.places import grid, line
>>> Q = planar_laplace(grid(3), 1.0)
>>> bool(np.allclose(Q.sum(axis=1), 1.0)), Q.shape
(True, (9, 9))
>>> round(float(planar_laplace(line(3), np.log(2.0))[1, 1]), 12)   # 1-D: mass within 1/2 of x
0.292893218813
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf, erfc

from mechopt.errors import ProblemError

__all__ = ["planar_laplace", "exponential_mechanism", "remap"]

#: Step of the trapezoidal rule in s = log t, and how far it reaches below and above the scales.
_STEP, _BELOW, _ABOVE = 0.05, 12.0, 60.0


def _cells(k: int, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends of the k cells of an axis with spacing h (unbounded at both ends)."""
    lo = (np.arange(k) - 0.5) * h
    hi = (np.arange(k) + 0.5) * h
    lo[0], hi[-1] = -np.inf, np.inf
    return lo, hi


def _gauss_mass(t: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """∫_lo^hi e^{−t z²} dz for every t (rows) and interval (columns), without cancellation."""
    r = np.sqrt(t)[:, None]
    a, b = r * lo[None, :], r * hi[None, :]
    with np.errstate(invalid="ignore"):
        right = erfc(a) - erfc(b)  # both ends ≥ 0: erfc keeps the tail's relative accuracy
        left = erfc(-b) - erfc(-a)  # both ends ≤ 0: mirrored
        mid = erf(b) - erf(a)  # straddles 0: no cancellation
    out = np.where(a >= 0, right, np.where(b <= 0, left, mid))
    return 0.5 * np.sqrt(np.pi / t)[:, None] * out


def planar_laplace(places, eps: float) -> np.ndarray:
    """The planar Laplace mechanism at ``eps`` snapped to a grid (Euclidean), or the 1-D one on a line."""
    if places.shape is None or places.norm != "euclidean":
        raise ProblemError(
            "planar Laplace is computed on a regular grid with the Euclidean norm (grid:KxK, line:N); "
            "for other places use exponential_mechanism"
        )
    if not (np.isfinite(eps) and eps > 0):
        raise ProblemError(f"eps must be a finite number > 0, got {eps!r}")
    r, c = places.shape
    h = places.spacing
    if r == 1:
        return _laplace_1d(c, h, eps)
    t_scale = eps**2 / 4
    s = np.arange(np.log(t_scale) - _BELOW, max(np.log(t_scale), -2 * np.log(h)) + _ABOVE, _STEP)
    t = np.exp(s)
    w = (eps**3 / (4 * np.pi**1.5)) * t ** (-1.5) * np.exp(-t_scale / t) * t * _STEP  # dt = t ds
    w[0] *= 0.5
    w[-1] *= 0.5
    axes = []
    for k in (r, c):  # I[t, a, b]: mass of cell b along the axis, seen from position a
        lo, hi = _cells(k, h)
        off = np.arange(k)[:, None] * h
        I = _gauss_mass(t, (lo[None, :] - off).ravel(), (hi[None, :] - off).ravel())
        axes.append(I)  # (T, k·k)
    M = (axes[0] * w[:, None]).T @ axes[1]  # (r·r, c·c): Σ_t w I_row I_col
    Q = M.reshape(r, r, c, c).transpose(0, 2, 1, 3).reshape(r * c, r * c)
    return Q / Q.sum(axis=1, keepdims=True)


def _laplace_1d(k: int, h: float, eps: float) -> np.ndarray:
    """The 1-D Laplace mechanism (ε/2) e^{−ε|z − x|} snapped to k points h apart."""
    lo, hi = _cells(k, h)
    off = np.arange(k)[:, None] * h
    a, b = lo[None, :] - off, hi[None, :] - off
    with np.errstate(invalid="ignore", over="ignore"):
        right = 0.5 * (np.exp(-eps * a) - np.exp(-eps * b))
        left = 0.5 * (np.exp(eps * b) - np.exp(eps * a))
        mid = 1.0 - 0.5 * np.exp(-eps * b) - 0.5 * np.exp(eps * a)
    Q = np.where(a >= 0, right, np.where(b <= 0, left, mid))
    return Q / Q.sum(axis=1, keepdims=True)


def exponential_mechanism(places, eps: float, outputs=None) -> np.ndarray:
    """Q[x, y] ∝ e^{−(ε/2) d(x, y)} (rows normalised): ε-metric-private for the places' distance."""
    from mechopt.geo.places import pairwise

    if not (np.isfinite(eps) and eps > 0):
        raise ProblemError(f"eps must be a finite number > 0, got {eps!r}")
    D = places.distances() if outputs is None else pairwise(places.coords, outputs.coords, places.norm)
    K = np.exp(-(eps / 2) * (D - D.min(axis=1, keepdims=True)))
    return K / K.sum(axis=1, keepdims=True)


def remap(Q: np.ndarray, prior: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """Q followed by the Bayes-optimal remap: report z ↦ argmin_y Σ_x P(x) Q[x, z] L[x, y] (first on ties).

    >>> import numpy as np
    >>> Q = np.array([[0.6, 0.4], [0.4, 0.6]]); L = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> remap(Q, np.array([0.9, 0.1]), L).tolist()      # the prior wins: always report 0
    [[1.0, 0.0], [1.0, 0.0]]
    """
    Q, L = np.asarray(Q, float), np.asarray(loss, float)
    P = np.asarray(prior, float)
    target = np.argmin((P[:, None] * Q).T @ L, axis=1)  # (outputs of Q,) → output of the loss
    R = np.zeros((Q.shape[1], L.shape[1]))
    R[np.arange(Q.shape[1]), target] = 1.0
    return Q @ R
