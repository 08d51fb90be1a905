"""Channels: row-stochastic matrices Q[x, y] = P(Y=y | X=x).

Examples
--------
>>> import numpy as np
>>> from mechopt.model.channel import Channel
>>> ch = Channel([[0.75, 0.25], [0.25, 0.75]])
>>> ch.output_marginal([0.5, 0.5])
array([0.5, 0.5])
>>> ch.posterior([0.5, 0.5])[:, 0]
array([0.75, 0.25])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model._matrix import checked_prior, posterior_matrix, validate_channel

__all__ = ["Channel", "validate_channel", "merge_outputs"]


@dataclass(frozen=True, eq=False)
class Channel:
    """A row-stochastic matrix with optional input and output labels.

    Parameters
    ----------
    matrix : array_like, shape (d, m)
        ``matrix[x, y] = P(Y=y | X=x)``; validated on construction.
    inputs, outputs : sequence, optional
        Labels; default ``0..d-1`` and ``0..m-1``.
    """

    matrix: np.ndarray
    inputs: tuple[Any, ...] | None = None
    outputs: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        M = np.array(validate_channel(self.matrix))  # its own copy: a Channel never aliases the caller's array
        object.__setattr__(self, "matrix", M)
        for attr, size in (("inputs", M.shape[0]), ("outputs", M.shape[1])):
            labels = getattr(self, attr)
            if labels is None:
                labels = tuple(range(size))
            labels = tuple(labels)
            if len(labels) != size:
                raise ProblemError(f"{len(labels)} {attr} labels for {size} {attr}")
            object.__setattr__(self, attr, labels)

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def _prior(self, prior) -> np.ndarray:
        return checked_prior(prior, self.shape[0])

    def joint(self, prior) -> np.ndarray:
        """Joint P(X=x, Y=y) = P(x) Q[x, y]."""
        return self._prior(prior)[:, None] * self.matrix

    def output_marginal(self, prior) -> np.ndarray:
        """λ_y = Σ_x P(x) Q[x, y]."""
        return self._prior(prior) @ self.matrix

    def posterior(self, prior) -> np.ndarray:
        """P(X=x | Y=y) as a (d, m) matrix; columns of zero-probability outputs are NaN-free zeros."""
        return posterior_matrix(self.matrix, self._prior(prior))

    def compose(self, other: "Channel | np.ndarray") -> "Channel":
        """The channel X → Y → Z: ``self.matrix @ other.matrix``."""
        B = other.matrix if isinstance(other, Channel) else validate_channel(other, name="second channel")
        if B.shape[0] != self.shape[1]:
            raise ProblemError(f"cannot compose: {self.shape[1]} outputs feed {B.shape[0]} inputs")
        outs = other.outputs if isinstance(other, Channel) else None
        return Channel(self.matrix @ B, inputs=self.inputs, outputs=outs)

    def merged(self, prior=None, tol: float | None = None) -> "Channel":
        """Merge outputs with identical likelihood-ratio columns (identical posteriors).

        Outputs never produced are dropped. Merging keeps every notion's
        audited ε and every sublinear utility unchanged.
        """
        Q, groups = merge_outputs(self.matrix, tol=tol)
        outputs = self.outputs if self.outputs is not None else tuple(range(self.shape[1]))
        labels = tuple(tuple(outputs[j] for j in g) if len(g) > 1 else outputs[g[0]] for g in groups)
        return Channel(Q, inputs=self.inputs, outputs=labels)

    def plot(self, ax: Any = None, prior: Any = None, **kwargs: Any) -> Any:
        """Draw the heatmap of Q (with the prior and posteriors when given): :func:`mechopt.plot.plot_channel`.

        >>> Channel([[0.75, 0.25], [0.25, 0.75]]).plot(prior=[0.5, 0.5]).get_title()
        'Q[x, y] = P(Y=y | X=x)'
        """
        from mechopt.plot import plot_channel

        return plot_channel(self, prior=prior, ax=ax, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        inputs, outputs = self.inputs or (), self.outputs or ()
        return {"Q": self.matrix.tolist(), "inputs": list(inputs), "outputs": [str(o) for o in outputs]}


def merge_outputs(Q: np.ndarray, tol: float | None = None) -> tuple[np.ndarray, list[list[int]]]:
    """Merge proportional columns of ``Q``; return the new matrix and the groups.

    Two columns with q_y ∝ q_y' give the same posterior under every prior, so
    summing them loses nothing.
    """
    tol = settings.tolerance("merge") if tol is None else tol
    Q = np.asarray(Q, dtype=float)
    mass = Q.sum(axis=0)
    keep = np.flatnonzero(mass > 0)
    shapes = Q[:, keep] / mass[keep]
    keys = np.round(shapes / max(tol, 1e-15)).T
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # groups in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    groups: list[list[int]] = [[] for _ in order]
    for j, g in zip(keep, rank[np.ravel(inverse)]):
        groups[g].append(int(j))
    merged = np.stack([Q[:, g].sum(axis=1) for g in groups], axis=1)
    return merged, groups


def as_matrix(mech: "Channel | np.ndarray | Sequence") -> np.ndarray:
    """The matrix of a Channel or an array-like, validated."""
    if isinstance(mech, Channel):
        return mech.matrix
    return validate_channel(mech)
