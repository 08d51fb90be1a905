"""The witness of a ball design's bound: finitely many priors of the ball whose vertex-form LP proves it."""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.problems.robust import BallDesign, EmpiricalPrior, PriorSet, RobustDesign
from solvers.robust.lp import cone_rows
from solvers.robust.witness import breaking_priors, proven_bound


def _in_ball(B, P) -> bool:
    gap = P - B.center
    dist = 0.5 * np.abs(gap).sum() if B.kind == "tv" else np.abs(gap).max()
    return bool(P.min() >= 0 and abs(P.sum() - 1) <= 1e-12 and dist <= B.radius * (1 + 1e-12) + 1e-15)


CASES = [("weissman", "pml", {}), ("hoeffding", "lip", {}), ("weissman", "alip", {"eps_lower": 0.5}),
         ("hoeffding", "ldp", {})]  # fmt: skip


@pytest.mark.parametrize(("bound", "notion", "kw"), CASES)
def test_the_witness_priors_lie_in_the_ball_and_give_the_vertex_form_optimum(bound, notion, kw):
    """d = 6: the ball's optimum = the vertex form over every Qhull vertex = the vertex form over the witness's
    priors (each in the ball), to 1e-9; the bound the witness proves is within the gap tolerance of the value."""
    E = EmpiricalPrior.from_counts("30,25,20,15,10,0", 1e-3, bound)
    ball = BallDesign.from_params(prior_set=E, notion=notion, eps=0.8, **kw)
    r = mechopt.solve(ball, solver="robust-lp")
    full = mechopt.solve(RobustDesign.from_params(prior_set=E, notion=notion, utility="mae", eps=0.8, **kw),
                         solver="robust-lp")  # fmt: skip
    ev = r.certificate.evidence.build()
    assert r.status.value == full.status.value == "optimal" and ev is not None and ev.rounds >= 1
    assert all(_in_ball(ball.prior_set, P) for P in ev.priors)
    sub = RobustDesign(prior_set=PriorSet(ev.priors), notion=ball.notion, utility=ball.utility)
    w = mechopt.solve(sub, solver="robust-lp")
    assert r.value == pytest.approx(full.value, rel=1e-9) and w.value == pytest.approx(r.value, rel=1e-9)
    assert proven_bound(sub, ev, cone_rows(sub)) == pytest.approx(ev.proven, rel=0)
    assert r.value * (1 - 1e-7) <= ev.proven <= r.value * (1 + 1e-12)
    assert len(ev.priors) < len(full.extras["vertex_losses"]) or len(ev.priors) <= 2 * 6 + 2


def test_breaking_priors_are_tight_priors_of_the_ball():
    """At the optimum every prior returned is in the ball and makes a privacy bound or the worst loss tight."""
    E = EmpiricalPrior.from_counts("300,220,180,120,90,40,30,20,0,0,0,0", 1e-3)
    ball = BallDesign.from_params(prior_set=E, notion="pml", eps=1.0)
    r = mechopt.solve(ball, solver="robust-lp")
    Ps = breaking_priors(ball, r.Q, np.inf)
    assert len(Ps) >= 2 and all(_in_ball(ball.prior_set, P) for P in Ps)
    ell = np.sum(r.Q * ball.loss_matrix(), axis=1)
    assert Ps[1] @ ell == pytest.approx(r.value, rel=1e-12)  # the loss's worst prior, after the inner one
    assert len(breaking_priors(ball, r.Q, r.value * (1 + 1e-9))) <= len(Ps)  # no loss prior once the value covers it


@pytest.mark.parametrize("bound", ["weissman", "hoeffding"])
def test_the_ball_lps_inner_minimisers_are_priors_of_the_ball_that_prove_its_optimum(bound):
    """LP duality: the priors the ball LP's duals put behind its blocks lie in the ball, and the vertex form over
    them (with the ball's inner prior) has the ball's optimum (d = 16, to the gap tolerance)."""
    E = EmpiricalPrior.from_counts("300,220,180,120,90,40,30,20,10,6,3,1,1,0,0,0", 1e-3, bound)
    ball = BallDesign.from_params(prior_set=E, notion="pml", eps=1.0)
    r = mechopt.solve(ball, solver="robust-lp")
    start = r.certificate.evidence.start
    assert len(start) >= 2 and all(ball.prior_set.contains(P, 1e-9) for P in start)
    sub = RobustDesign(prior_set=PriorSet(np.vstack([ball.prior_set.inner(), start])), notion=ball.notion,
                       utility=ball.utility)  # fmt: skip
    w = mechopt.solve(sub, solver="robust-lp")
    assert w.status.value == "optimal" and w.value == pytest.approx(r.value, rel=1e-7)
