"""The k-subset paper's Table 1 end to end (issue 10, item 5).

Times ``mechopt reproduce kss-table1``: every row of Table 1 (BRR, MRR,
k*-SS, k#-SS at n = 10 000 users, 100 repetitions, ℓ2 and ℓ1 errors after the
simplex projection). There is no peer to time against, so ``reference`` is
None; the notes give how many (row, mechanism) pairs reproduce the paper.

Run ``python benchmarks/bench_table1.py [--quick]`` or ``mechopt bench``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from mechopt.jobs.bench import timed
from mechopt.registry import figures


def table1(quick: bool) -> list[dict]:
    """One timed run of the Table 1 reproduction (quick: 3 rows, n = 2000, 20 repetitions)."""
    fig = figures()["kss-table1"]
    with tempfile.TemporaryDirectory() as tmp:
        t, out = timed(lambda: fig.run(Path(tmp), quick=quick), repeats=1)
    rows = out.data.get("rows", [])
    checked = [r for r in rows if r.get("l2_reproduces") is not None]
    ok = sum(1 for r in checked if r.get("l2_reproduces") and r.get("l1_reproduces"))
    size = "quick: 3 rows, n=2000, 20 reps" if quick else "n=10000, 100 reps"
    notes = f"{len(rows)} (row, mechanism) pairs; {size}"
    if checked:
        notes += f"; {ok} of {len(checked)} reproduce the paper (l2 and l1)"
    return [
        {
            "group": "monte carlo",
            "case": "kss Table 1 end to end",
            "ours": "mechopt reproduce kss-table1",
            "ours_s": t,
            "reference": None,
            "reference_s": None,
            "ratio": None,
            "repeats": 1,
            "notes": notes,
        }
    ]


CASES = [table1]


if __name__ == "__main__":
    for row in table1("--quick" in sys.argv[1:]):
        print(f"{row['case']}: {row['ours_s']:.1f} s; {row['notes']}")
