"""solve(): registry lookup, option checks, and the re-audit that downgrades bad results."""

import numpy as np
import pytest

import mechopt
from mechopt import registry
from mechopt.errors import ParamError, ProblemError, SolverNotFound
from mechopt.model.solver import Solver
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Certificate, Result, Status


class Liar(Solver):
    """Returns whatever mechanism/value/certificate/proof it is told to: the audit must catch lies."""

    name = "liar"
    options = {"Q": None, "value": None, "bound": None, "proof": None}

    def can_solve(self, problem):
        return True

    def _solve(self, problem, opts):
        cert = None if opts["bound"] is None else Certificate(opts["bound"], 0.0)
        return Result(
            status="optimal",
            value=opts["value"],
            sense=problem.sense,
            objective=problem.objective,
            mechanism=opts["Q"],
            certificate=cert,
            proof=opts["proof"],
        )


class LocalLiar(Liar):
    """A local method that claims ``optimal``: Solver.solve caps it at ``locally_optimal``."""

    name = "local-liar"
    guarantee = "local"


@pytest.fixture
def liar():
    registry.register_solver("liar", Liar)
    registry.register_solver("local-liar", LocalLiar)
    yield
    registry._extra_solvers.pop("liar")
    registry._extra_solvers.pop("local-liar")


@pytest.fixture
def prob():
    return ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=0.5)


def test_non_private_mechanism_is_downgraded(liar, prob):
    Q = np.eye(2)
    r = mechopt.solve(prob, solver="liar", Q=Q, value=prob.evaluate(Q), bound=prob.evaluate(Q))
    assert r.status is Status.INFEASIBLE_POINT and "privacy violated" in r.message and r.proof is None
    assert r.violation == float("inf") and r.notion == "lip" and r.eps == 0.5


def test_not_a_channel_is_an_infeasible_point(liar, prob):
    r = mechopt.solve(prob, solver="liar", Q=np.array([[0.7, 0.7], [0.5, 0.5]]), value=0.1, proof="theorem")
    assert r.status is Status.INFEASIBLE_POINT and r.proof is None and "audit:" in r.message


def test_optimal_without_a_proof_is_only_feasible(liar, prob):
    Q = np.full((2, 2), 0.5)
    r = mechopt.solve(prob, solver="liar", Q=Q, value=prob.evaluate(Q))
    assert r.status is Status.FEASIBLE and r.proof is None and "no proof of optimality" in r.message
    bogus = mechopt.solve(prob, solver="liar", Q=Q, value=prob.evaluate(Q), proof="trust me")
    assert bogus.status is Status.FEASIBLE and bogus.proof is None
    named = mechopt.solve(prob, solver="liar", Q=Q, value=prob.evaluate(Q), proof="convex")
    assert named.status is Status.OPTIMAL and named.proof == "convex"


def test_a_local_method_is_capped_at_locally_optimal(liar, prob):
    Q = np.full((2, 2), 0.5)
    v = prob.evaluate(Q)
    r = mechopt.solve(prob, solver="local-liar", Q=Q, value=v, bound=v, proof="certificate")
    assert r.status is Status.LOCALLY_OPTIMAL and r.proof is None
    wrong = mechopt.solve(prob, solver="local-liar", Q=Q, value=0.1)
    assert wrong.status is Status.LOCALLY_OPTIMAL and "mechanism gives" in wrong.message  # said, not hidden


def test_wrong_value_is_downgraded(liar, prob):
    Q = np.full((2, 2), 0.5)
    r = mechopt.solve(prob, solver="liar", Q=Q, value=0.1)
    assert r.status is Status.OPTIMAL_INACCURATE and "mechanism gives" in r.message


def test_bad_certificate_gap_is_recomputed_and_downgraded(liar, prob):
    Q = np.full((2, 2), 0.5)
    v = prob.evaluate(Q)
    r = mechopt.solve(prob, solver="liar", Q=Q, value=v, bound=v - 0.2)
    # relative at every magnitude (issue 26): to max(|bound|, |value|), with no absolute floor
    assert r.certificate.gap == pytest.approx(0.2 / max(abs(v - 0.2), abs(v))) and r.status is Status.OPTIMAL_INACCURATE
    assert r.proof is None
    ok = mechopt.solve(prob, solver="liar", Q=Q, value=v, bound=v)
    assert ok.status is Status.OPTIMAL and ok.violation == 0.0 and ok.proof == "certificate"


def test_unknown_solver_and_option(prob):
    with pytest.raises(SolverNotFound, match="unknown solver 'nope'; available: "):
        mechopt.solve(prob, solver="nope")
    with pytest.raises(ParamError, match="unknown option"):
        mechopt.solve(prob, solver="sqp", bogus=1)
    with pytest.raises(ParamError, match="time_limit"):
        mechopt.solve(prob, solver="sqp", time_limit=-1)


def test_default_solver_is_first_applicable(prob):
    names = registry.solvers_for(prob)
    assert "sqp" in names
    r = mechopt.solve(prob)
    assert r.solver == names[0] and r.status.has_solution


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(prior="0.5,0.6"), "sums to"),
        (dict(prior="0.5,-0.1,0.6"), "negative"),
        (dict(prior="0.5,nan"), "non-finite"),
        (dict(eps=0), "eps must be"),
        (dict(eps=-1), "eps must be"),
        (dict(notion="dp"), "unknown privacy notion"),
        (dict(utility="x"), "unknown utility"),
        (dict(values="0,1,2"), "3 values but the prior has 2"),
    ],
)
def test_design_rejects_bad_input(kw, words):
    base = dict(prior="0.3,0.7", notion="lip", utility="mse", eps=1.0)
    with pytest.raises(ProblemError, match=words):
        mechopt.design(**{**base, **kw})


def test_zero_mass_symbols_are_restored_in_the_mechanism():
    r = mechopt.design(prior="0.3,0,0.7", notion="lip", utility="histogram", eps=0.7, solver="sqp")
    # the NLP form does not drop zero-mass symbols; the mechanism has every row and is private
    assert r.Q.shape[0] == 3 and r.violation <= 1e-7


def test_sqp_refuses_a_utility_without_gradient_with_a_typed_error():
    from mechopt.utilities import MAE

    prob = ChannelDesign(prior=np.array([0.3, 0.7]), notion=mechopt.notions.LIP(1.0), utility=MAE([0.0, 1.0]))
    assert prob.nlp_form() is None
    with pytest.raises(SolverNotFound, match="cannot solve"):
        mechopt.solve(prob, solver="sqp")


def test_compare_sweep_verify_are_plain_functions_with_real_signatures():
    import inspect
    import types

    for fn, first in ((mechopt.compare, "problems"), (mechopt.sweep, "spec"), (mechopt.verify, "paper")):
        assert isinstance(fn, types.FunctionType)
        assert list(inspect.signature(fn).parameters)[0] == first
    import importlib

    importlib.import_module("mechopt.jobs.compare")  # importing the module does not rebind the function
    assert isinstance(mechopt.compare, types.FunctionType)


def test_a_late_finish_names_the_limit_the_user_gave(liar, prob):
    """Inside a call's deadline the solver gets what is left; the late note names the user's limit, not that."""
    from mechopt.runtime import deadline

    Q = np.full((2, 2), 0.5)
    backend = registry.get_solver("liar")
    alone = backend.solve(prob, Q=Q, value=prob.evaluate(Q), time_limit=1e-9)
    assert "past the 1e-09 s time limit" in alone.message
    with deadline.bounded(30.0):
        inside = backend.solve(prob, Q=Q, value=prob.evaluate(Q), time_limit=1e-9)
    assert "past the 30 s time limit" in inside.message
