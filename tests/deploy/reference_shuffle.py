"""Recompute the recorded reference numbers of tests/deploy/data/shuffle_reference.json (a helper, not a test).

Runs the public reference implementations themselves — apple/ml-shuffling-amplification
(``computeamplification.py``) and wangsw/PrivacyAmplification (``unifiedamplification.py``) —
imported from a directory holding those two files at the commits recorded in the JSON:

    python tests/deploy/reference_shuffle.py REFDIR > tests/deploy/data/shuffle_reference.json

The β handed to the variation-ratio reference is read from each Q by mechopt (GRR's also equals
the closed form in the reference's README table), so the comparison checks the numerics; the tests
check β against the closed forms separately.
"""

from __future__ import annotations

import json
import math
import sys
import time

from mechopt.deploy.shuffle import randomizer_params
from mechopt.oracles import GRR, OUE

T = 24  # bisection steps of the variation-ratio reference: resolution eps0 / 2^24
CASES = [("grr", d, e, n) for d in (4, 16) for e in (1.0, 3.0) for n in (10**4, 10**5)]
CASES += [("oue", d, e, n) for d in (4, 6) for e in (1.0, 3.0) for n in (10**4,)]
DELTA = 1e-6


def main(refdir: str) -> None:
    sys.path.insert(0, refdir)
    import computeamplification as apple  # noqa: PLC0415
    import unifiedamplification as wang  # noqa: PLC0415

    out = {"delta": DELTA, "T": T, "apple_example": {}, "variation_ratio": [], "stronger_clone": []}
    ex = out["apple_example"]
    ex["readme_upper"] = apple.numericalanalysis(10**5, 4, 1e-6, 10, 100, True)
    ex["readme_lower"] = apple.numericalanalysis(10**5, 4, 1e-6, 10, 100, False)
    ex["step1_upper"] = apple.numericalanalysis(10**5, 4, 1e-6, 20, 1, True)
    ex["step1_lower"] = apple.numericalanalysis(10**5, 4, 1e-6, 20, 1, False)
    ex["closed_form"] = apple.closedformanalysis(10**5, 4, 1e-6)
    e4 = math.exp(4.0)
    ex["wang_core_clone_pair"] = wang.amplificationUBCore(e4, 1 / (e4 + 1), 0.5 / e4, 0.5 / e4, 10**5, 1e-6, T)
    for kind, d, eps0, n in CASES:
        Q = (GRR if kind == "grr" else OUE)(d=d, eps=eps0).matrix()
        prm = randomizer_params(Q)
        t0 = time.perf_counter()
        ub = wang.amplificationUB(prm["p"], prm["beta"], prm["q"], prm["q"], n, DELTA, T)
        row = {"mechanism": kind, "d": d, "eps0": eps0, "n": n, "beta": prm["beta"], "eps": ub}
        out["variation_ratio"].append({**row, "seconds": time.perf_counter() - t0})
        p = math.exp(eps0)
        sc = wang.amplificationUBCore(p, 1 / (p + 1), 1 / (p + 1), 1 / (p + 1), n, DELTA, T)
        out["stronger_clone"].append({"eps0": eps0, "n": n, "eps": sc})
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
