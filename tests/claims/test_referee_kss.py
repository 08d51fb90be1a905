"""The k-subset paper's Algorithms 1 and 2 as claims (issue 26): the randomizer's channel is eq. (5), and the
remapping estimator is the regression estimator (QQ^T)^-1 Q."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.claims.kss.algorithms import ALG1_SAMPLES, algorithm1_channel, eq5_channel, sampled_pvalue
from mechopt.claims.kss.sections import CLAIMS
from mechopt.notions import LDP

BY_ID = {c.id: c for c in CLAIMS}


def test_alg1_claim_holds_on_every_instance() -> None:
    v = BY_ID["kss.alg1_channel"].run().result
    assert v.verdict == "holds" and v.checked == 18 and v.worst_deviation < 1e-12
    assert v.note.startswith("holds on the 18 (d, k, eps) instances checked")


@pytest.mark.parametrize("d, k", [(3, 1), (4, 2), (5, 3), (6, 5)])
def test_algorithm1_enumerated_is_eq5_and_eps_ldp(d: int, k: int) -> None:
    Q = algorithm1_channel(d, k, 1.3)
    np.testing.assert_allclose(Q, eq5_channel(d, k, 1.3), rtol=0, atol=1e-15)
    assert LDP(1.3).audit(Q).eps == pytest.approx(1.3, abs=1e-12)


def test_the_sampling_test_has_power() -> None:
    """The pooled test rejects the sampler against eq. (5) at a different eps (0.5 vs 0.7)."""
    assert ALG1_SAMPLES == 20_000
    assert sampled_pvalue(4, 2, 0.5, 7, against=0.7) < 1e-6 < sampled_pvalue(4, 2, 0.5, 7)


def test_remap_equals_regression() -> None:
    v = BY_ID["kss.remap_regression"].run().result
    assert v.verdict == "holds" and v.checked == 42 and v.worst_deviation < 1e-9


def test_appC_derivative_holds() -> None:
    v = BY_ID["kss.appC_derivative"].run().result
    assert v.verdict == "holds" and v.checked == 25 and v.worst_deviation < 1e-6


def test_richardson_differences_are_accurate_enough_to_catch_a_wrong_factor() -> None:
    from mechopt.claims.kss.algorithms import _richardson

    ks = np.linspace(0.5, 9.5, 19)
    exact = np.cos(ks)
    assert np.abs(_richardson(np.sin, ks, 1e-3) - exact).max() < 1e-9
    assert np.abs(_richardson(np.sin, ks, 1e-3) - 1.01 * exact).max() > 1e-3  # a 1 % error shows
