"""The referee's corrected LIP verdicts (issue 26): Proposition 5's region shown exact, the Introduction's
"especially when the prior is not uniform" and Fig. 5's "gap increases at P1 = 0.99" judged per eps."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.claims.lip.relations import prop5_bands_coincide, prop5_grid
from mechopt.claims.lip.theorems import CLAIMS
from mechopt.problems.lip import closed as cf

BY_ID = {c.id: c for c in CLAIMS}


def test_prop5_region_is_exact_on_189_instances() -> None:
    v = BY_ID["lip.prop5"].run().result
    assert v.verdict == "holds-in-region" and v.checked == 189 == len(prop5_grid())
    assert v.region_kind == "exact boundary" and "exact region (checked on 189 instances)" in v.region
    ce = v.counterexample
    assert not cf.binary_lip_region(ce["p1"], ce["eps"]) and ce["prop5"] < ce["definition4"] - 1e-6
    assert "114 of the 114" in v.note  # every instance outside the region differs


def test_prop5_grid_has_both_sides_for_every_n() -> None:
    grid = prop5_grid()
    for n in (2, 3, 4):
        inside = [cf.binary_lip_region(p, e) for m, p, e in grid if m == n]
        assert 0 < sum(inside) < len(inside)


@pytest.mark.parametrize("p1", np.linspace(0.01, 0.99, 23))
@pytest.mark.parametrize("eps", [0.05, 0.3, 1.0, 2.2, 4.0])
def test_prop5_bands_coincide_exactly_on_the_region(p1: float, eps: float) -> None:
    assert prop5_bands_coincide(float(p1), eps) == cf.binary_lip_region(float(p1), eps)
