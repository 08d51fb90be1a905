import numpy as np
import pytest
from scipy.stats import binom

from mechopt.errors import ProblemError
from mechopt.model.priors import Support, binomial_prior, parse_prior, poisson_binomial, validate_prior


@pytest.mark.parametrize(
    "bad, words",
    [
        ([0.5, 0.6], "sums to 1.1"),
        ([0.5, -0.1, 0.6], "negative entry at index 1"),
        ([0.5, float("nan")], "non-finite entry at index 1"),
        ([[0.5, 0.5]], "1-D"),
        ([], "non-empty"),
        ("abc", "vector of numbers"),
    ],
)
def test_validate_prior_rejects(bad, words):
    with pytest.raises(ProblemError, match=words):
        validate_prior(bad)


def test_error_messages_are_one_line():
    with pytest.raises(ProblemError) as info:
        validate_prior([0.2, 0.2])
    assert "\n" not in str(info.value)


def test_parse_prior_forms(tmp_path):
    assert np.allclose(parse_prior("0.1, 0.2,0.7"), [0.1, 0.2, 0.7])
    assert np.allclose(parse_prior("uniform:5"), np.full(5, 0.2))
    np.save(tmp_path / "p.npy", np.array([0.25, 0.75]))
    assert np.allclose(parse_prior(str(tmp_path / "p.npy")), [0.25, 0.75])
    (tmp_path / "p.txt").write_text("0.5 0.3\n0.2\n")
    assert np.allclose(parse_prior(str(tmp_path / "p.txt")), [0.5, 0.3, 0.2])
    (tmp_path / "c.txt").write_text("0.5,0.5")
    assert np.allclose(parse_prior(tmp_path / "c.txt"), [0.5, 0.5])


@pytest.mark.parametrize(
    "text, words",
    [
        ("uniform:x", "integer"),
        ("uniform:0", "d ≥ 1"),
        ("0.1,zz", "comma-separated"),
        ("/no/such/file.npy", "does not exist"),
        ("0.3,0.3", "sums to"),
    ],
)
def test_parse_prior_rejects(text, words):
    with pytest.raises(ProblemError, match=words):
        parse_prior(text)


def test_unreadable_prior_file(tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not an npy file")
    with pytest.raises(ProblemError, match="cannot read prior file"):
        parse_prior(str(bad))


def test_support_drops_and_restores_zero_mass():
    s = Support.of([0.2, 0.0, 0.8, 0.0])
    assert s.dropped and list(s.index) == [0, 2]
    Q = np.array([[0.9, 0.1], [0.3, 0.7]])
    full = s.restore(Q)
    lam = np.array([0.2, 0.8]) @ Q
    assert np.allclose(full[[0, 2]], Q) and np.allclose(full[1], lam) and np.allclose(full[3], lam)
    assert Support.of([0.5, 0.5]).restore(Q) is Q


def test_binomial_and_poisson_binomial():
    assert np.allclose(binomial_prior(7, 0.3), binom.pmf(np.arange(8), 7, 0.3))
    assert np.allclose(poisson_binomial([0.3] * 7), binomial_prior(7, 0.3))
    pb = poisson_binomial([0.1, 0.5, 0.9])
    assert np.isclose(pb.sum(), 1) and np.isclose(pb @ np.arange(4), 1.5)
