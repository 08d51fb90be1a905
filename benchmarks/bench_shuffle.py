"""Shuffled (ε, δ) of a d = 64 randomizer at n = 10^6 and 10^8 users: mechopt vs the reference implementations.

The randomizer is GRR with d = 64 at ε₀ = 3 (its Q, 64 × 64, is what mechopt reads the parameters
from), δ = 1e-8 (quick: n = 10^5 only). Two pairs, each bound against the implementation of the
same bound:

- ``variation-ratio``: :func:`mechopt.deploy.shuffle.central_guarantee` vs wangsw/PrivacyAmplification's
  ``amplificationUB`` (T = 20 bisection steps);
- ``clone``: the same function with ``bound="clone"`` vs apple/ml-shuffling-amplification's
  ``numericalanalysis`` (its example's settings: step 100, 10 bisection steps).

The references are not packages: set ``MECHOPT_SHUFFLE_REFS`` to a folder holding their
``unifiedamplification.py`` and ``computeamplification.py`` (commits in
tests/deploy/data/shuffle_reference.json). ``ratio`` = reference_s / ours_s (> 1: ours faster);
the ε of both sides are in the notes (the references bisect more coarsely, so their ε can differ
in the 4th digit; Apple's is looser by construction: its stopping rule adds the unexplored mass).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mechopt.deploy.shuffle import central_guarantee, randomizer_params
from mechopt.jobs.bench import timed
from mechopt.oracles import GRR

D, EPS0, DELTA = 64, 3.0, 1e-8


def _references() -> tuple[Any, Any]:
    folder = os.environ.get("MECHOPT_SHUFFLE_REFS")
    if not folder:
        return None, None
    sys.path.insert(0, folder)
    try:
        import computeamplification as apple  # noqa: PLC0415
        import unifiedamplification as wang  # noqa: PLC0415
    except ImportError:
        return None, None
    finally:
        sys.path.remove(folder)
    return apple, wang


def case_shuffle(quick: bool = False) -> list[dict[str, Any]]:
    """mechopt's variation-ratio and clone bounds vs the fastest reference of each, at n = 1e6 and 1e8."""
    apple, wang = _references()
    Q = GRR(d=D, eps=EPS0).matrix()
    prm = randomizer_params(Q)
    rows = []
    for n in (10**5,) if quick else (10**6, 10**8):
        refs = {
            "variation-ratio": wang
            and (lambda: wang.amplificationUB(prm["p"], prm["beta"], prm["q"], prm["q"], n, DELTA, 20)),
            "clone": apple and (lambda: apple.numericalanalysis(n, EPS0, DELTA, 10, 100, True)),
        }
        for bound, ref in refs.items():
            t_ours, g = timed(lambda: central_guarantee(Q, n, DELTA, bound), 1, best=True)
            t_ref, e_ref = timed(ref, 1, best=True) if ref else (None, None)
            name = {"variation-ratio": "wangsw amplificationUB", "clone": "apple numericalanalysis"}[bound]
            rows.append(
                {
                    "group": "shuffle",
                    "case": f"GRR d={D} eps0={EPS0} n={n:.0e} delta={DELTA:g} {bound}",
                    "ours": f"mechopt central_guarantee({bound})",
                    "ours_s": t_ours,
                    "reference": name if ref else None,
                    "reference_s": t_ref,
                    "repeats": 1,
                    "notes": f"eps ours {g.eps:.6g}"
                    + (f", reference {e_ref:.6g}" if ref else ", reference not run: set MECHOPT_SHUFFLE_REFS"),
                }
            )
    return rows


CASES = [case_shuffle]
