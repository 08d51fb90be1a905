"""Issue 19, the remaining defects: time limits that bound the whole call, memory of the local NLP.

Each test states the input, the old behaviour and the new one.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import mechopt
from mechopt.errors import TooLargeError
from mechopt.problems.design import ChannelDesign
from mechopt.programs.nlp import MAX_DENSE_BYTES, channel_constraints, dense_jacobian_bytes

fork_only = pytest.mark.skipif(not hasattr(os, "fork"), reason="the hard deadline needs os.fork")


@fork_only
def test_sqp_limit_bounds_an_iteration_that_never_returns(monkeypatch):
    """d = 3 MIP design, sqp with time_limit=0.5, where one scipy call never returns (a stand-in for one
    SLSQP iteration at d = 40: 7-9 s in C, holding the GIL). Old: the call waited for scipy (here: for ever,
    in practice ~10 s on `--time-limit 5`). New: the call returns at the deadline with status time_limit and
    the best feasible point seen (a baseline), audited."""

    def stuck(*args, **kwargs):
        time.sleep(3600)

    monkeypatch.setattr("mechopt.solvers._sqp_run.minimize", stuck)
    prob = ChannelDesign.from_params(prior="uniform:3", notion="mip", utility="histogram", eps=1.0)
    t0 = time.perf_counter()
    r = mechopt.solve(prob, solver="sqp", n_starts=3, time_limit=0.5)
    assert time.perf_counter() - t0 < 60  # returned at all (the stand-in would block an hour)
    assert r.status.value == "time_limit"
    assert r.mechanism is not None and r.violation <= 1e-7
    # the interrupted start 1 is sqp's first baseline (GRR), so the best point is that baseline
    assert "time limit reached after 0 of" in r.message and r.extras["best_from"] == "baseline GRR"
    assert "not a local optimum" in r.message and r.proof is None and r.certificate is None


def test_sqp_limit_keeps_the_best_iterate_of_a_stopped_start(monkeypatch):
    """sqp in-process (no fork) on a d = 4 LDP design, with a clock that passes the deadline after a few
    readings. Old: a start stopped by the limit was dropped whole, so the result had no mechanism.
    New: the deadline is checked at each iteration boundary (scipy callback) and the best feasible
    iterate of the stopped start is returned with status time_limit."""
    import mechopt.solvers._sqp_run as run

    monkeypatch.delattr(os, "fork", raising=False)  # the in-process path
    clock = {"t": 0.0}

    def fake_clock() -> float:  # every reading advances 0.01 s
        clock["t"] += 0.01
        return clock["t"]

    monkeypatch.setattr(run.time, "perf_counter", fake_clock)
    prob = ChannelDesign.from_params(prior="0.1,0.2,0.3,0.4", notion="ldp", utility="histogram", eps=1.0)
    form = prob.nlp_form()
    starts = form.starts(np.random.default_rng(0), 2)
    best = run.run_multistart(form, starts, "SLSQP", {"ftol": 1e-12}, 500, deadline=0.2)
    assert best.stopped and best.partial and best.tried == 0
    assert best.x is not None and run.feasible(form, best.x)
    assert best.fun <= form.fun(starts[0])  # no worse than the feasible start


def test_sqp_without_limit_is_unchanged():
    """sqp with no time limit runs in-process and converges as before: locally_optimal, all starts."""
    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=0.5)
    r = mechopt.solve(prob, solver="sqp", n_starts=4)
    assert r.status.value in ("locally_optimal", "feasible") and r.extras["starts"] == 4 + len(r.extras["baselines"])


@fork_only
def test_sqp_with_a_generous_limit_finishes_in_the_child():
    """sqp with time_limit=60 on a small design: the forked loop finishes and reports every start."""
    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=0.5)
    r = mechopt.solve(prob, solver="sqp", n_starts=4, time_limit=60, seed=1)
    free = mechopt.solve(prob, solver="sqp", n_starts=4, seed=1)
    assert r.status.value == free.status.value and r.extras["starts"] == 4 + len(r.extras["baselines"])
    assert r.value == pytest.approx(free.value, abs=1e-12) and r.iterations == free.iterations


def test_ldp_constraints_are_sparse():
    """The NLP constraints of a d = 40 LDP design. Old: dense np.kron, 62 440 x 1600 (0.74 GiB; refused
    above 256 MiB, 143 MiB peak already at d = 25). New: CSR with 126 400 nonzeros (4 MiB peak), SLSQP,
    which densifies, is refused with the size, trust-constr takes them sparse."""
    prog = ChannelDesign.from_params(prior="uniform:40", notion="ldp", utility="mi", eps=1.0).column_program()
    cons = channel_constraints(prog, 40)
    assert sum(c.A.nnz for c in cons) == 1600 + 124_800
    assert all(not isinstance(c.A, np.ndarray) for c in cons)
    assert dense_jacobian_bytes(cons, 1600) == 8 * 62_440 * 1600 > MAX_DENSE_BYTES
    with pytest.raises(TooLargeError, match="method='trust-constr'"):
        mechopt.solve(
            ChannelDesign.from_params(prior="uniform:40", notion="ldp", utility="mi", eps=1.0), solver="sqp", n_starts=1
        )


def test_small_ldp_constraints_equal_the_dense_ones():
    """The sparse rows are the old dense np.kron rows, entry for entry (d = 3 LDP, 3 outputs)."""
    prog = ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="ldp", utility="mi", eps=1.0).column_program()
    P, m = prog.prior, 3
    AP = prog.notion.cone(P) * P[None, :]
    rows, cone = channel_constraints(prog, m)
    np.testing.assert_array_equal(rows.A.toarray(), np.kron(np.eye(3), np.ones(m)))
    np.testing.assert_array_equal(cone.A.toarray(), np.kron(AP, np.eye(m)))
