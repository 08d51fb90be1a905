"""The PML paper's claims hold, and the check rejects a perturbed closed form (it can fail)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechopt import registry
from mechopt.claims.pml.theorems import TOL, deviation
from mechopt.errors import ProblemError
from mechopt.problems.pml import closed as cf

CLAIMS = {c.id: c for c in registry.claims("pml")}


@pytest.mark.parametrize("cid", sorted(CLAIMS))
def test_claim_holds_to_1e12(cid):
    v = CLAIMS[cid].run().result
    assert v.verdict == "holds" and v.checked >= 10
    assert v.worst_deviation <= TOL


def test_a_perturbed_high_privacy_channel_is_rejected():
    P = np.array([0.2, 0.3, 0.5])
    eps = 0.5 * cf.high_privacy_regime(P)
    Q = cf.high_privacy_channel(P, eps)
    assert deviation(P, eps, Q, "mi") <= TOL
    worse = cf.high_privacy_channel(P, 0.9 * eps)  # private at eps, but not optimal
    assert TOL < deviation(P, eps, worse, "mi") < math.inf
    leaky = cf.high_privacy_channel(P, eps * 1.01)  # more informative, but not eps-PML
    assert deviation(P, eps, leaky, "mi") == math.inf


def test_uniform_vertex_and_regimes():
    r = cf.uniform_posterior(5, 1.0)  # k = floor(5 / e) = 1
    assert r.sum() == pytest.approx(1.0, abs=1e-15) and np.count_nonzero(r) == 2
    assert cf.uniform_mi(6, math.log(3.0)) == pytest.approx(math.log(3.0), abs=1e-15)  # d e^-eps = 2: I* = eps
    assert np.array_equal(cf.binary_channel([0.3, 0.7], 5.0), np.eye(2))
    with pytest.raises(ProblemError, match="high-privacy regime"):
        cf.high_privacy_channel([0.2, 0.8], 1.0)
