"""A checkable witness for a ball design's LP bound: finitely many priors of the ball whose vertex-form LP proves it.

The robust LP over a ball (:mod:`mechopt.solvers.robust.ball`) writes each min / max over the ball as its LP
dual, so its duals speak of dual variables, not of priors, and the standalone checker cannot replay them. But
every finite set V of priors of the ball gives a relaxation (privacy and the worst loss at V only) whose optimum
is a lower bound on the ball's, and LP duality says some finite V (the priors where the optimum's constraints are
tight) makes it equal. Constraint generation finds one: start from the worst priors of the ball's optimum Q*
(:meth:`~mechopt.problems.robust.BallDesign.worst_priors`, on the tight sides only) and the inner minimisers the
ball LP's duals name (:func:`~mechopt.solvers.robust.ball.inner_priors`), solve the vertex-form LP
over V (``robust-lp``, certified), and add the priors of the ball where its answer breaks privacy or loses more
than its value, until its certified bound reaches the ball's. Its duals (weights on V, ν, cone multipliers) are
the certificate file's (:class:`~mechopt.results.ball_certificate.BallEvidence`); the checker verifies each
prior of V lies in the ball, so the bound holds for every channel private over the ball.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.robust import BallDesign
>>> prob = BallDesign.from_params(notion="pml", eps=1.0, prior_ball="0.05:tv", prior="0.4,0.3,0.2,0.1")
>>> r = mechopt.solve(prob, solver="robust-lp")
>>> ev = r.certificate.evidence.build()        # found when first asked for (save_certificate asks)
>>> type(ev).__name__, ev.priors.shape[1], bool(ev.rounds >= 1)
('BallEvidence', 4, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from mechopt.problems.robust import PriorSet, RobustDesign, box_factors

__all__ = ["BallWitness", "ball_witness", "breaking_priors", "proven_bound"]

#: Rounds of constraint generation before giving up (no certificate file then; the result's own bound stands).
MAX_ROUNDS = 25


@dataclass(eq=False)
class BallWitness:
    """A ball design's certificate evidence, found when first asked for (:meth:`build`: a few vertex-form LPs, so
    a solve that writes no file pays nothing); :meth:`save` writes it, or raises CertificateError."""

    problem: Any
    Q: np.ndarray
    value: float
    solve: Callable[[Any, bool], Any]
    rows: Callable[[Any], np.ndarray]
    start: np.ndarray | None = None  # priors of the ball from the ball LP's duals (its inner minimisers)
    _built: list = field(default_factory=list, repr=False)

    def build(self) -> Any:
        """The :class:`~mechopt.results.ball_certificate.BallEvidence`, or None (:func:`ball_witness`), cached."""
        if not self._built:
            args = (self.problem, self.Q, self.value, self.solve, self.rows)
            self._built.append(ball_witness(*args, start=self.start))
        return self._built[0]

    def save(self, path: str, **kw: Any) -> None:
        """Write the file (:meth:`mechopt.results.ball_certificate.BallEvidence.save`), or raise CertificateError."""
        from mechopt.errors import CertificateError

        ev = self.build()
        if ev is None:
            raise CertificateError(
                f"no witness for this ball design's bound in {MAX_ROUNDS} rounds of constraint generation: no "
                "certificate file is written (the result's own certificate, the ball LP's dual bound, stands)"
            )
        ev.save(path, **kw)


def ball_witness(
    problem: Any, Q: np.ndarray, value: float, solve: Callable[[Any], Any], rows: Callable, start: Any = None
) -> Any:
    """The :class:`~mechopt.results.ball_certificate.BallEvidence` of ``problem`` (a BallDesign) whose proven bound
    (:func:`proven_bound`) is within half the ``gap`` tolerance of ``value``, or None; ``solve`` runs robust-lp on a
    vertex-form design, ``rows`` gives its cone rows (:func:`mechopt.solvers.robust.lp.cone_rows`), ``start`` more
    priors to begin with (those of the ball among them: :func:`mechopt.solvers.robust.ball.inner_priors`)."""
    from mechopt import settings
    from mechopt.model.problem import objective_scale
    from mechopt.results.ball_certificate import BallEvidence
    from mechopt.results.certificate import relative_gap

    B = problem.prior_set
    inner = [P for P in np.asarray(start if start is not None else [], float).reshape(-1, B.d) if B.contains(P)]
    # L∞: the ball LP's inner minimisers (one round where the tight priors took 18: d = 16, 34 s -> 1 s); TV: the
    # optimum's tight priors (at d = 64 the inner minimisers' first LP was 50 s and its HiGHS multipliers missed
    # the bound by more than half the gap, so it went on: slower than the tight priors' 4 rounds)
    V = np.array([B.inner(), *inner]) if inner and B.kind == "linf" else breaking_priors(problem, Q, np.inf)
    half, scale = 0.5 * settings.tolerance("gap"), objective_scale(problem, Q)
    for rounds in range(1, MAX_ROUNDS + 1):
        sub = RobustDesign(prior_set=PriorSet(V, "priors of the ball"), notion=problem.notion, utility=problem.utility)
        r = solve(sub, False)
        if r.certificate is None or r.mechanism is None:
            return None
        if relative_gap(value, r.certificate.bound, scale) <= 0.5 * half:  # close: the multipliers, and what they prove
            ev = solve(sub, True).certificate.evidence
            proven = -np.inf if ev is None else proven_bound(sub, ev, rows(sub))
            if relative_gap(value, proven, scale) <= half:
                return BallEvidence(problem, Q, ev.weights, ev.nu, ev.mu, method="robust-lp over the ball (its dual "
                                    f"bound, witnessed by {len(V)} priors of the ball, {rounds} rounds)",
                                    priors=sub.prior_set.vertices, rounds=rounds, proven=proven)  # fmt: skip
        new = breaking_priors(problem, r.Q, float(r.value))
        if len(new) == 0:
            return None
        V = np.vstack([V, new])
    return None


def proven_bound(sub: Any, ev: Any, A: np.ndarray) -> float:
    """What the checker will prove from the evidence, in floats less a rounding allowance: 1ᵀν + Σ_x min_y R[y][x],
    R[y] = P_w ∘ L[:, y] − ν − Σ_k μ_yk a_k (:func:`mechopt.certcheck.check_robust`; the cone multipliers are
    HiGHS's, so this can lie ~1e-9 below the LP's own bound)."""
    w = np.asarray(ev.weights, float)
    Pw = (w / w.sum()) @ sub.prior_set.vertices
    L, nu = sub.loss_matrix(), np.asarray(ev.nu, float)
    R = Pw[:, None] * L - nu[:, None] - (np.asarray(ev.mu, float) @ A).T
    scale = float(np.abs(nu).sum() + np.abs(L).max() + np.abs(ev.mu).sum() * np.abs(A).max())
    return float(nu.sum() + R.min(axis=1).sum()) - 64 * float(np.finfo(float).eps) * scale * L.shape[0]


def breaking_priors(problem: Any, Q: np.ndarray, value: float) -> np.ndarray:
    """The priors of the ball at which ``Q`` is tight or broken: the worst loss when it exceeds ``value`` (always,
    for ``value`` = inf), and per used column the extreme prior of each privacy side where the bound is within
    1e-9 of tight or broken; the ball's inner prior first when ``value`` is inf (every row constrained)."""
    M = np.asarray(Q, float)
    B = problem.prior_set
    ell = np.sum(M * problem.loss_matrix(), axis=1)
    worst = B.extreme(-ell)
    rows = [B.inner(), *_extremes(B, -ell)] if value == np.inf else []
    rows += [] if value == np.inf or worst @ ell <= value * (1 + 1e-12) else _extremes(B, -ell)
    f = box_factors(problem.notion)
    S = B.support
    for q in M[:, M.max(axis=0) > 0].T:
        if f is None:
            break
        lo, hi = f
        if q[S].max() >= hi * (B.extreme(q) @ q) * (1 - 1e-9):
            rows += _extremes(B, q)
        if lo > 0 and q[S].min() <= lo * (B.extreme(-q) @ q) * (1 + 1e-9):
            rows += _extremes(B, -q)
    return np.array(rows).reshape(-1, B.d)


def _extremes(B: Any, q: np.ndarray) -> list[np.ndarray]:
    """Two priors of the ball minimising P·q: ties broken by the first and by the last symbol (an optimum's columns
    have ties, and the ball's LP needs the priors on both ends of them)."""
    from mechopt.problems.robust import BallSet

    flip = BallSet(B.center[::-1], B.radius, B.kind)
    return [B.extreme(q), flip.extreme(q[::-1])[::-1]]
