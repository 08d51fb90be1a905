"""Mutual information over a TV prior ball by vertex generation: ray LPs over a few of its vertices, proven at all.

The ball's polytope has many vertices (:meth:`~mechopt.problems.robust.ballset.BallSet.all_vertices`: 126 at d = 8,
1328 at d = 16 for the counts 50·(d − i), δ = 10⁻³), and the vertex form's ray LP (``robust-rays`` over the whole
list) carries one score row and one block of cone rows per vertex: at d = 8 it did not certify in 120 s. But a
design over a subset W of the ball's priors is a relaxation of the ball's (privacy at fewer priors, the worst
information over fewer), so its certified bound (``robust-rays`` on W, exact pricing) is an upper bound on the
ball's optimum. Constraint generation grows W: solve over W, then take the channel Q to the whole ball, adding
the priors where a column breaks privacy (the closed-form extreme prior of each used column,
:meth:`~mechopt.problems.robust.ballset.BallSet.extreme`) and the vertices where Q's information is below the
bound (evaluated at every vertex), until neither is left. The answer is ``optimal`` only when Q is audited
private at every prior of the ball (closed form), its worst information over **every** vertex of the ball is
within the ``gap`` tolerance of W's bound, and W's bound is itself proven. Its certificate file carries W, λ
and ν of the round with the least bound (:func:`_evidence`; :mod:`mechopt.certball` re-proves it). Each round
starts from the last one's columns still private at the new W and its pricer's cut points (:class:`WarmStart`).

Option ``ball_exact`` (``"auto"``: above :data:`EXACT_ABOVE` = 8 symbols; ``"always"``; ``"never"``) puts the ball
itself in the pricer (:class:`~mechopt.solvers.robust.cone.ballbox.BallMIPricer`, the ball's LP dual
rows in place of W's cone rows): every column is then private over the whole ball, W holds only the
information-worst vertices, and the bound is over the ball's own privacy cone (the file says ``"cone": "ball"``;
certball enumerates that cone's rays, its rows at every vertex of the ball). No round ends ``infeasible_point``
then: a round stopped by the time limit still has a channel private over the ball.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.robust import BallDesign
>>> prob = BallDesign.from_params(notion="pml", eps=1.0, utility="mi", prior_counts="120,80,40,20", delta=1e-3)
>>> r = mechopt.solve(prob, solver="robust-rays")
>>> r.status.value, r.extras["ball_vertices"], r.extras["relative_gap"] <= 1e-7
('optimal', 15, True)
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError
from mechopt.model.problem import value_gap
from mechopt.problems.robust import PriorSet, RobustDesign, box_factors
from mechopt.problems.robust.gains import VertexGains
from mechopt.results.result import Certificate, Result, Status
from mechopt.solvers.robust.cone.ballbox import BALL_WORD

__all__ = ["solve_ball", "ball_route", "new_priors", "EXACT_ABOVE", "MAX_OUTER", "WarmStart"]

#: Rounds of vertex generation (each a certified ray LP over the priors so far) before giving up.
MAX_OUTER = 200
#: Symbols above which ``ball_exact="auto"`` puts the ball in the box pricer (below ``cone_max`` too, where the rays
#: of W's cone would be enumerated). Measured (pml ε = 1, counts 50·(d − i), δ = 1e-3, load 4–5, benchmarks/RESULTS.md):
#: d = 8: 40 s against 31 s for the enumerated rays (certball 13 s against 222 s); d = 9: 37 s against 491 s.
EXACT_ABOVE = 8


def solve_ball(problem: Any, opts: dict[str, Any], inner: Callable[[Any, dict[str, Any]], Result]) -> Result:
    """The ball design (mi over a TV :class:`~mechopt.problems.robust.BallDesign`) by vertex generation (module
    docstring); ``inner`` solves a vertex-form design (``robust-rays``' own ``_solve``) with options ``opts``."""
    t0 = time.perf_counter()
    B, tol = problem.prior_set, settings.tolerance("gap")
    base = dict(sense=problem.sense, objective=problem.objective, solver="robust-rays")
    V = np.unique(np.array([B.inner(), B.center]), axis=0)
    tl = opts.get("time_limit")
    batch = opts["ball_batch"]
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not 1 <= batch <= 10**6:
        raise ParamError(f"ball_batch must be a whole number of vertices per round in [1, 1e6], got {batch!r}")
    if not isinstance(opts["ball_warm"], bool):
        raise ParamError(
            f"ball_warm must be True or False (carry each round's columns to the next), got {opts['ball_warm']!r}"
        )
    inner_opts = ball_route(B, opts)
    r: Result | None = None
    warm = WarmStart(box_factors(problem.notion)) if opts["ball_warm"] else None
    late, best = False, np.inf  # best: the least bound proven so far (every W's bound bounds the ball's optimum)
    witness: Any = None  # (bound, evidence: W, λ, ν) of the least bound a round wrote duals for
    for outer in range(1, MAX_OUTER + 1):
        left = None if tl is None else float(tl) - (time.perf_counter() - t0)
        if left is not None and left <= 0:
            late = True
            break
        sub = RobustDesign(prior_set=PriorSet(V, "priors of the ball"), notion=problem.notion, utility=problem.utility)
        r = inner(sub, {**inner_opts, "time_limit": left, "_warm": warm})
        if r.certificate is not None:
            best = min(best, float(r.certificate.bound))
            ev = r.certificate.evidence
            if ev is not None and (witness is None or float(r.certificate.bound) < witness[0]):
                witness = (float(r.certificate.bound), ev, r.extras.get("pricing") == BALL_WORD)
        if r.mechanism is None or r.certificate is None or r.status is not Status.OPTIMAL:
            break
        new = _fresh(new_priors(problem, r.Q, float(r.certificate.bound), batch), V)
        if len(new) == 0:
            break
        V = np.unique(np.vstack([V, new]), axis=0)
    if r is None or r.mechanism is None:
        msg = "no channel: the time limit ended the first ray LP" if r is None else r.message
        return Result(status=Status.TIME_LIMIT if r is None else r.status, value=None, message=msg, **base)
    return _verdict(problem, r, V, outer, base, tol, late, best, witness)


def ball_route(B: Any, opts: dict[str, Any]) -> dict[str, Any]:
    """The inner ray LPs' options: the ball ``B`` in the box pricer (``_ball``, and ``cone_pricer="box"`` where the
    rays would be enumerated) per ``ball_exact``: ``"always"``, ``"never"`` or ``"auto"`` (above :data:`EXACT_ABOVE`
    symbols; above ``cone_max`` wherever the box pricer runs; ``cone_pricer="rays"`` keeps the enumerated rays).

    >>> from mechopt.problems.robust import BallSet
    >>> opts = {"ball_exact": "auto", "cone_pricer": "auto", "cone_max": 10}
    >>> [ball_route(BallSet(np.full(d, 1 / d), 0.05), opts).get("cone_pricer") for d in (8, 9)]
    ['auto', 'box']
    """
    exact = opts["ball_exact"]
    if exact not in ("auto", "always", "never"):
        raise ParamError(f"ball_exact must be 'auto', 'always' or 'never' (the ball's own privacy cone in the box "
                         f"pricer: above {EXACT_ABOVE} symbols, at any d, or not at all), got {exact!r}")  # fmt: skip
    inner = dict(opts)
    if exact != "never" and bool(B.support.all()):
        inner["_ball"] = B  # used wherever the box pricer runs (above cone_max, or where cone_pricer is "box")
        auto = exact == "auto" and EXACT_ABOVE < B.d <= int(opts["cone_max"]) and opts["cone_pricer"] == "auto"
        if exact == "always" or auto:
            inner["cone_pricer"] = "box"
    return inner


def _fresh(new: np.ndarray, V: np.ndarray) -> np.ndarray:
    """The priors of ``new`` not in W = ``V`` (W's own priors are within the ray LP's gap already)."""
    return new[[not np.any(np.all(P == V, axis=1)) for P in new]].reshape(-1, V.shape[1])


def _verdict(problem: Any, r: Result, V: np.ndarray, rounds: int, base: dict[str, Any], tol: float,
             late: bool = False, best: float = np.inf, witness: Any = None) -> Result:  # fmt: skip
    """The result: Q audited over the whole ball (privacy in closed form, information at every vertex), the bound
    of the last ray LP over the priors W; ``optimal`` only when all three hold (module docstring). ``witness``:
    (bound, evidence) of the round with the least bound that wrote duals, for the certificate file."""
    Q = r.Q
    audit = problem.audit_channel(Q)
    value = float(audit.value)
    bound = None if not np.isfinite(best) else best  # a time-limited last round may prove less than an earlier one
    gap = None if bound is None else value_gap(problem, Q, value, bound)
    private = audit.violation <= 1e-9 * max(1.0, problem.notion.eps)
    n_all = len(problem.ball_vertices())
    where = f"the ray LP over {len(V)} priors of the ball, generated in {rounds} rounds"
    if r.status is Status.OPTIMAL and private and gap is not None and gap <= tol:
        status, proof = Status.OPTIMAL, "certificate"
        msg = (f"certified: relative gap {gap:.3g} between the worst information over all {n_all} vertices of the "
               f"ball and the proven bound of {where}; private at every prior of the ball (closed form)")  # fmt: skip
    else:
        proof = None
        status = r.status if r.status in (Status.TIME_LIMIT, Status.ITERATION_LIMIT) else Status.OPTIMAL_INACCURATE
        status = Status.TIME_LIMIT if late else status
        status = status if private else Status.INFEASIBLE_POINT
        left = "unknown" if gap is None else f"{gap:.3g}"
        msg = (f"not certified: relative gap {left} over the whole ball, privacy violation {audit.violation:.3g} "
               f"({where}; last ray LP: {r.status.value})")  # fmt: skip
    extras = {
        "relative_gap": gap,
        "ball_vertices": n_all,
        "priors_generated": len(V),
        "rounds": rounds,
        "inner_rounds": r.extras.get("rounds"),
        "pricing": r.extras.get("pricing"),
        "eps_audited": audit.eps_audited,
        "method": "vertex generation over the ball's priors; LP over extreme rays at each (HiGHS)",
    }
    cert = None if bound is None or gap is None else Certificate(bound, gap, evidence=_evidence(problem, Q, witness))
    return Result(status=status, value=value, mechanism=Q, certificate=cert, proof=proof, message=msg,
                  iterations=rounds, extras=extras, **base)  # fmt: skip


class WarmStart:
    """What one round of vertex generation hands the next (option ``ball_warm``): the ray LP's columns and, for the
    box pricer, its tangent cut points of each prior still in W and the columns it returned (its ascents' starts).

    W only grows, so its privacy cone only shrinks: a column of the last round joins the next round's seed only when
    it is private at every prior of the new W (to a relative 1e-12: the audit of Q allows 1e-9); the seed's own
    columns stay. The cut points are tangents of ψ(t) = −t log t, valid anywhere, so carrying them loses nothing;
    the bound of each round is proven as before (the pricing is the same branch and bound).
    """

    def __init__(self, factors: Any) -> None:
        self.factors, self.R, self.pricer = factors, None, None

    def seed(self, seed: np.ndarray, pricer: Any, cone: np.ndarray) -> np.ndarray:
        """``seed`` with the last round's columns private over ``cone`` (the new W on its support rows) appended,
        and the last pricer's state moved into ``pricer`` where both are box pricers over the same rows."""
        old = self.pricer
        if old is not None and type(old) is type(pricer) and hasattr(pricer, "taus") and old.n == pricer.n:
            where = {row.tobytes(): i for i, row in enumerate(old.V)}
            for i, row in enumerate(pricer.V):
                if row.tobytes() in where:
                    pricer.taus[i] = list(old.taus[where[row.tobytes()]])
            pricer.history = list(old.history)
        if self.R is None or self.R.shape[0] != seed.shape[0]:
            return seed
        R, keep = self.R, np.ones(self.R.shape[1], bool)
        if self.factors is not None:  # q_x ≤ hi·P·q and q_x ≥ lo·P·q at every prior P of the new W
            lo, hi = self.factors
            t = cone @ R
            keep = R.max(axis=0) <= hi * t.min(axis=0) * (1 + 1e-12)
            keep &= (lo == 0) | (R.min(axis=0) >= lo * t.max(axis=0) * (1 - 1e-12))
        return np.hstack([seed, R[:, keep]])

    def keep(self, out: dict[str, Any], pricer: Any) -> None:
        """Remember the ray LP's columns and its pricer for the next round."""
        self.R, self.pricer = out.get("R"), pricer


def _evidence(problem: Any, Q: np.ndarray, witness: Any) -> Any:
    """The certificate file's evidence: the priors W of the round with the least bound that wrote duals, its
    weights λ and ν (:func:`mechopt.solvers.robust.rays._evidence`); :mod:`mechopt.certball` proves the bound over
    the extreme rays of W's privacy cone and re-checks privacy and the value over the whole ball."""
    from mechopt.results.ball_certificate import BallEvidence

    if witness is None:
        return None
    bound, ev, ball = witness
    W = ev.problem.prior_set.vertices
    how = f"robust-rays by vertex generation (the ray LP over {len(W)} priors of the ball)"
    how += "; priced over the ball's own privacy cone" if ball else ""
    return BallEvidence(problem, Q, ev.weights, ev.nu, None, priors=W, proven=bound, method=how,
                        cone="ball" if ball else "priors")  # fmt: skip


def new_priors(problem: Any, Q: np.ndarray, bound: float, batch: int) -> np.ndarray:
    """The priors of the ball that cut ``Q`` off: for each used column breaking privacy (beyond a relative 1e-9),
    its extreme prior (the closed form; both tie-breaks, as the witness takes, made 46 priors at d = 8 where one
    makes 35), and the ``batch`` vertices of least information below ``bound`` less half the ``gap`` tolerance;
    none when Q is proven."""
    B, M = problem.prior_set, np.asarray(Q, float)
    rows: list[np.ndarray] = []
    f = box_factors(problem.notion)
    for q in M[:, M.max(axis=0) > 0].T if f is not None else []:
        lo, hi = f
        low, high = B.extreme(q), B.extreme(-q)
        if q.max() > hi * (low @ q) * (1 + 1e-9):
            rows.append(low)
        if lo > 0 and q.min() < lo * (high @ q) * (1 - 1e-9):
            rows.append(high)
    Vall = problem.ball_vertices()
    vals = VertexGains(Vall, problem.utility).values(M)
    cut = bound - 0.5 * settings.tolerance("gap") * abs(bound)
    low = np.flatnonzero(vals < cut)
    rows += list(Vall[low[np.argsort(vals[low], kind="stable")][:batch]])
    return np.array(rows).reshape(-1, B.d)
