import numpy as np
import pytest
from hypothesis import given, settings

from mechopt.errors import ProblemError
from mechopt.model.channel import Channel, merge_outputs, validate_channel
from mechopt.notions import LDP, LIP
from mechopt.testing import prior_and_channel
from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE


@pytest.mark.parametrize(
    "Q, words",
    [
        ([[0.5, 0.6], [0.5, 0.5]], "row 0 of Q sums to 1.1"),
        ([[1.2, -0.2], [0.5, 0.5]], "negative"),
        ([[np.nan, 1.0]], "not finite"),
        ([0.5, 0.5], "2-D"),
    ],
)
def test_validate_channel_rejects(Q, words):
    with pytest.raises(ProblemError, match=words):
        validate_channel(Q)


def test_rows_must_match_prior():
    with pytest.raises(ProblemError, match="2 rows but the prior has 3"):
        validate_channel(np.eye(2), n_inputs=3)
    with pytest.raises(ProblemError, match="prior has 3 symbols"):
        Channel(np.eye(2)).joint([0.2, 0.3, 0.5])


def test_joint_marginal_posterior():
    ch = Channel([[0.9, 0.1], [0.2, 0.8]], inputs=("a", "b"), outputs=("u", "v"))
    P = np.array([0.3, 0.7])
    J = ch.joint(P)
    assert np.allclose(J, [[0.27, 0.03], [0.14, 0.56]])
    assert np.allclose(ch.output_marginal(P), [0.41, 0.59])
    post = ch.posterior(P)
    assert np.allclose(post.sum(axis=0), 1) and np.isclose(post[0, 0], 0.27 / 0.41)
    assert ch.to_dict()["inputs"] == ["a", "b"]


def test_posterior_of_unused_output_is_zero_not_nan():
    post = Channel([[1.0, 0.0], [1.0, 0.0]]).posterior([0.5, 0.5])
    assert np.all(np.isfinite(post)) and np.allclose(post[:, 1], 0)


def test_compose():
    A = Channel([[0.9, 0.1], [0.2, 0.8]])
    B = Channel([[0.5, 0.25, 0.25], [0.0, 0.5, 0.5]])
    assert np.allclose(A.compose(B).matrix, A.matrix @ B.matrix)
    with pytest.raises(ProblemError, match="cannot compose"):
        A.compose(np.eye(3))


def test_merge_groups_proportional_columns():
    Q = np.array([[0.2, 0.3, 0.5, 0.0], [0.4, 0.6, 0.0, 0.0]])
    M, groups = merge_outputs(Q)
    assert groups == [[0, 1], [2]]
    assert np.allclose(M, [[0.5, 0.5], [1.0, 0.0]])


@settings(max_examples=40, deadline=None)
@given(prior_and_channel(max_size=4, max_outputs=4))
def test_merging_duplicated_outputs_preserves_audits_and_utilities(pc):
    P, Q = pc
    split = np.hstack([Q * 0.3, Q * 0.7])  # every output split in two proportional halves
    merged = Channel(split).merged().matrix
    assert merged.shape[1] <= Q.shape[1]
    a = np.arange(P.size, dtype=float)
    for u in (SumMSE(a), HistogramMSE(), MutualInfo(P)):
        assert np.isclose(u.value(merged, P), u.value(Q, P), atol=1e-10)
        assert np.isclose(u.value(split, P), u.value(Q, P), atol=1e-10)
    for n in (LDP(1.0), LIP(1.0)):
        assert np.isclose(n.audit(merged, P).eps, n.audit(Q, P).eps, atol=1e-9)
