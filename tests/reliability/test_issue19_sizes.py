"""Issue 19: sizes of k-subset output sets in log space (no million-digit integers).

Input: the k-subset mechanism at d = 10⁷, k = 3 386 969 (the MI-optimal k at ε = 1).
Old: ``KSubsetMechanism.outputs`` and ``ksubset_mi`` computed ``math.comb(d, k)`` exactly, a
9.2-million-bit integer (461 s here; ``to_dict`` then could not even print it).
New: sizes come from ``lgamma`` (:mod:`mechopt.model.counting`); exact integers only where they are small.
"""

from __future__ import annotations

import json
import math

import pytest

import mechopt.problems.kss.formulas as F
from mechopt.model.counting import comb_at_most, log_comb
from mechopt.problems.kss.problems import KSubsetMechanism, ksubset_mi

D, K = 10**7, 3_386_969


@pytest.fixture
def no_big_comb(monkeypatch):
    """math.comb refuses anything that is not small (the old code called it with n = 10⁷)."""
    small = math.comb

    def guarded(n: int, k: int) -> int:
        assert n < 10**5, f"math.comb({n}, {k}) called"
        return small(n, k)

    monkeypatch.setattr(math, "comb", guarded)


def test_outputs_is_a_float_estimate_beyond_2_53(no_big_comb):
    m = KSubsetMechanism(d=D, k=K, eps=1.0)
    assert m.outputs == math.inf and not m.materialisable
    doc = json.loads(json.dumps(m.to_dict(), allow_nan=False))
    assert doc["outputs"] is None and doc["log10_outputs"] == pytest.approx(2_780_207.916, abs=1e-3)
    assert KSubsetMechanism(d=60, k=30, eps=1.0).outputs == pytest.approx(118_264_581_564_861_424, rel=1e-12)
    assert KSubsetMechanism(d=20, k=10, eps=1.0).outputs == 184_756  # exact int while small


def test_ksubset_mi_at_ten_million_matches_the_closed_form(no_big_comb):
    """Uniform prior, d = 10⁷: the grouped sum in log space equals eq. (6) of the paper."""
    assert ksubset_mi([1.0 / D] * D, K, 1.0) == pytest.approx(F.mi_ksubset(D, K, 1.0), rel=1e-12)


def test_ksubset_mi_small_is_still_exact():
    """Below the float limit the weights are exact integer ratios, as before."""
    P = [0.1, 0.2, 0.3, 0.4]
    # the 50-digit value is 0.10379074750587001268 (the weights are exact; issue 26 sums non-negative terms,
    # 1.7e-16 from it, where the former I = Σ w (ε e^ε u − t log t) gave 0.10379074750586993, 8e-16)
    assert ksubset_mi(P, 2, 1.0) == pytest.approx(0.10379074750587001268, rel=4e-16, abs=0)
    assert ksubset_mi([0.25] * 4, 2, 1.0) == pytest.approx(F.mi_ksubset(4, 2, 1.0), abs=1e-15)


@pytest.mark.parametrize("n, k", [(6, 3), (40, 20), (200, 3), (1000, 2), (20_001, 1)])
def test_comb_at_most_agrees_with_math_comb(n, k):
    for bound in (20_000, 40, math.comb(n, k), math.comb(n, k) - 1):
        assert comb_at_most(n, k, bound) == (math.comb(n, k) <= bound)
    assert log_comb(n, k) == pytest.approx(math.log(math.comb(n, k)), rel=1e-12)
