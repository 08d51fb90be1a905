"""The Mechanism object: what it is built from, identifiability, the design note, audit, posterior means."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mechopt
from mechopt import Mechanism
from mechopt.errors import NoChannelError, ParamError, ProblemError
from mechopt.mechanism.identify import NOTE_PREFIX, confounded_groups, identifiability_note, rank
from mechopt.model.channel import Channel
from mechopt.oracles.frequency import GRR

#: The newcomer report's skewed 12-symbol prior (story (a)).
P12 = np.array([0.303, 0.18, 0.119, 0.087, 0.069, 0.061, 0.05, 0.042, 0.033, 0.025, 0.018, 0.013])
P12 = P12 / P12.sum()


def test_built_from_a_matrix_a_channel_and_an_oracle() -> None:
    m = Mechanism(Channel([[0.75, 0.25], [0.25, 0.75]], inputs=("a", "b"), outputs=("A", "B")))
    assert m.inputs == ("a", "b") and m.outputs == ("A", "B") and m.shape == (2, 2)
    g = Mechanism(GRR(5, 1.0), claim=("ldp", 1.0))
    np.testing.assert_array_equal(g.Q, GRR(5, 1.0).matrix())
    assert g.audit("ldp")["claim"]["holds"] and g.identifiable
    with pytest.raises(ValueError):
        g.Q[0, 0] = 1.0  # read-only
    src = np.array([[0.5, 0.5], [0.1, 0.9]])
    m2 = Mechanism(src)
    src[0, 0] = 0.9
    assert m2.Q[0, 0] == 0.5  # its own copy


@pytest.mark.parametrize(
    ("kwargs", "err", "match"),
    [
        ({"Q": [[0.5, 0.6]]}, ProblemError, "sums to 1.1"),
        ({"Q": [[1.0]], "prior": [0.5, 0.5]}, ProblemError, "prior has 2 symbols but Q has 1 rows"),
        ({"Q": np.eye(2), "claim": "ldp"}, ProblemError, "claim must be"),
        ({"Q": np.eye(2), "claim": ("ldp", "big")}, ProblemError, "eps must be a number"),
    ],
)
def test_bad_mechanisms_are_refused(kwargs, err, match) -> None:
    with pytest.raises(err, match=match):
        Mechanism(**kwargs)


def test_confounded_groups_follow_the_null_space() -> None:
    # inputs 0,1 share a row; 2 and 3 mix to the same output distribution as 4: (Q[2] + Q[3]) / 2 = Q[4]
    Q = np.array([[0.7, 0.2, 0.1], [0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7], [0.1, 0.5, 0.4]])
    assert rank(Q) == 3 and confounded_groups(Q) == [[0, 1], [2, 3, 4]]
    assert confounded_groups(np.eye(4)) == [] and rank(np.eye(4)) == 4
    m = Mechanism(Q, inputs=list("abcde"))
    assert m.confounded() == [["a", "b"], ["c", "d", "e"]] and not m.identifiable


def test_certified_mi_design_of_a_12_symbol_skewed_prior_is_flagged_not_identifiable() -> None:
    """The newcomer report's example: ε-LDP ε = 1, mutual information, exact. Status kept, a note added."""
    r = mechopt.design(prior=P12, notion="ldp", utility="mi", eps=1.0, solver="exact")
    assert r.status.value == "optimal" and r.proof == "certificate"
    assert r.Q.shape == (12, 11)
    assert f"{NOTE_PREFIX}: Q has rank 11 < 12 inputs of positive prior" in r.message
    m = r.to_mechanism(prior=P12)
    assert not m.identifiable and m.confounded()
    assert all(("{" + ", ".join(map(str, g)) + "}") in r.message for g in m.confounded())


@pytest.mark.parametrize(("utility", "outputs"), [("mse", 2), ("histogram", 3)])
def test_mse_and_histogram_designs_are_flagged_too(utility: str, outputs: int) -> None:
    r = mechopt.design(prior=P12, notion="ldp", utility=utility, eps=1.0, solver="exact")
    assert r.Q.shape[1] == outputs and f"Q has rank {outputs} < 12" in r.message and r.status.value == "optimal"


def test_an_identifiable_design_gets_no_note() -> None:
    r = mechopt.design(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0, solver="exact")
    assert r.Q.shape == (2, 2) and NOTE_PREFIX not in r.message


def test_zero_prior_inputs_do_not_count() -> None:
    Q = np.array([[0.7, 0.3], [0.2, 0.8], [0.7, 0.3]])
    assert identifiability_note(Q, [0.5, 0.5, 0.0]) is None
    assert "rank 2 < 3 inputs of positive prior" in identifiability_note(Q, [0.4, 0.4, 0.2])


def test_the_design_report_prints_the_note_on_its_own_line(cli) -> None:
    run = cli("design", "--notion", "ldp", "--utility", "mse", "--prior", ",".join(map(str, P12)), "--eps", "1")
    assert run.code == 0, run.err
    notes = [ln for ln in run.out.splitlines() if ln.startswith("note ")]
    assert len(notes) == 1 and "not identifiable: Q has rank 2 < 12" in notes[0]
    assert not any(ln.startswith("message") and NOTE_PREFIX in ln for ln in run.out.splitlines())
    doc = cli(
        "design", "--notion", "ldp", "--utility", "mse", "--prior", ",".join(map(str, P12)), "--eps", "1", "--json"
    )
    assert NOTE_PREFIX in doc.json()["message"] and doc.json()["status"] == "optimal"


def test_from_result_carries_claim_certificate_and_refuses_a_result_without_q() -> None:
    r = mechopt.design(prior="0.2,0.8", notion="ldp", utility="histogram", eps=1.0, solver="exact")
    m = Mechanism.from_result(r, prior=[0.2, 0.8], inputs=["no", "yes"])
    assert m.claim == {"notion": "ldp", "eps": 1.0} and m.inputs == ("no", "yes")
    assert m.certificate["bound"] == r.certificate.bound and m.certificate["objective"] == "histogram"
    assert m.provenance["mechopt"] == mechopt.__version__
    bad = mechopt.Result(status="infeasible", value=None, sense="min", objective="mse")
    with pytest.raises(NoChannelError):
        bad.to_mechanism()


def test_from_result_keeps_the_design_prior_through_save_and_load(tmp_path) -> None:
    """A Result did not carry its prior: ``Mechanism.from_result(r)`` of a 1-LIP design had prior None, so its
    claim was "not checked: lip needs a prior" and a file saved from ``r.to_dict()`` lost it too."""
    P = [0.2, 0.3, 0.5]
    r = mechopt.design(prior=P, notion="lip", utility="histogram", eps=1.0, solver="exact")
    assert r.prior.tolist() == P and not r.prior.flags.writeable
    m = Mechanism.from_result(r)
    assert m.prior.tolist() == P
    claim = m.audit()["claim"]
    assert claim["checked"] and claim["holds"] and claim["eps_audited"] == pytest.approx(1.0, abs=1e-7)
    assert Mechanism.from_result(r, prior=[0.5, 0.3, 0.2]).prior.tolist() == [0.5, 0.3, 0.2]  # given: it wins
    (tmp_path / "r.json").write_text(json.dumps(r.to_dict()))  # the design document (Result.to_dict)
    assert Mechanism.load(tmp_path / "r.json").prior.tolist() == P
    m.save(tmp_path / "m.json")  # our own file
    assert Mechanism.load(tmp_path / "m.json").prior.tolist() == P
    old = r.to_dict()
    del old["mechanism"]["prior"]  # a document written before the prior was carried still loads, without one
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert Mechanism.load(tmp_path / "old.json").prior is None


def test_a_robust_design_carries_no_single_prior() -> None:
    from mechopt.problems.robust import RobustDesign

    prob = RobustDesign.from_params(prior_set=[[0.2, 0.8], [0.6, 0.4]], notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob)
    assert r.Q.shape[0] == 2 and r.prior is None and Mechanism.from_result(r).prior is None


def test_audit_checks_the_claim_and_uses_the_design_prior() -> None:
    m = Mechanism([[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5], claim=("ldp", 1.0))
    doc = m.audit()
    assert set(doc["notions"]) >= {"ldp", "lip", "mip"}
    assert doc["claim"]["holds"] is False and abs(doc["claim"]["eps_audited"] - np.log(3)) < 1e-12
    assert m.audit("ldp", prior=None)["notions"].keys() == {"ldp"}
    with pytest.raises(ParamError, match="no audit for notion 'lip'"):
        Mechanism(np.eye(2)).audit("lip")


def test_posterior_means_are_what_an_mse_design_reports() -> None:
    """For the certified mse design, E[a_X | Y = y] per output, and the mean of the posterior estimate."""
    values = np.arange(12.0)
    r = mechopt.design(prior=P12, notion="ldp", utility="mse", eps=1.0, values=values, solver="exact")
    m = r.to_mechanism(prior=P12)
    b = m.posterior_means(values)
    post = P12[:, None] * m.Q / (P12 @ m.Q)
    np.testing.assert_allclose(b, values @ post)
    # the design's MSE is E[(a_X − b_Y)²]
    mse = float(np.sum(P12[:, None] * m.Q * (values[:, None] - b[None, :]) ** 2))
    assert abs(mse - r.value) <= 1e-9 * max(1.0, r.value)
    x = np.random.default_rng(0).choice(12, size=50_000, p=P12)
    est = m.estimate(m.randomize(x, rng=1), method="posterior")
    reports = m.randomize(x, rng=1)
    np.testing.assert_allclose(values @ est.frequencies, b[reports].mean(), rtol=1e-12)


def test_repr_and_dict() -> None:
    m = Mechanism(np.eye(3), claim=("ldp", 2.5))
    assert repr(m) == "Mechanism(3 inputs x 3 outputs, claim=ldp eps=2.5)"
    assert set(m.to_dict()) == {"Q", "inputs", "outputs", "prior", "values", "claim", "certificate", "provenance"}


@pytest.mark.parametrize(
    ("claim", "prior", "why"),
    [(("lip", 0.1), None, "needs a prior"), (("alip", 0.5), [0.5, 0.3, 0.2], "not audited here")],
)
def test_a_claim_the_audit_cannot_check_says_so_instead_of_vanishing(claim, prior, why) -> None:
    # a false 0.1-LIP claim (audited LIP 0.76 at [0.5, 0.3, 0.2]) got no "claim" entry at all: silence
    Q = [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]
    doc = Mechanism(Q, prior=prior, claim=claim).audit()
    assert doc["claim"]["holds"] is None and doc["claim"]["checked"] is False and why in doc["claim"]["why"]
    assert Mechanism(Q, prior=[0.5, 0.3, 0.2], claim=("lip", 0.1)).audit()["claim"]["holds"] is False
