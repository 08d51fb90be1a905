"""Gauss reproductions: legends say which curves are certified, locally optimal or heuristic (issue 17)."""

from __future__ import annotations

import json

import pytest

from mechopt.figures.gauss.figures import FIGURES, draw
from mechopt.results.result import PROOFS


def _labels(out) -> list[str]:
    ax = draw(out.data).axes[0]
    return ax.get_legend_handles_labels()[1]


def test_fig2_every_solver_says_what_it_is(tmp_path):
    out = FIGURES["gauss-fig2"].run(tmp_path, quick=True)
    labels = _labels(out)
    words = {lab.split(" — ")[0]: lab.split(" — ")[1] for lab in labels if " — " in lab}
    assert words["greedy"] == "heuristic" and words["anneal"] == "heuristic"
    assert words["sqp"] == "locally optimal"
    gd = {r["status"] for r in out.data["rows"] if r["solver"] == "gd-penalty"}
    # gd-penalty is local, but its point needs a restoring move onto the constraints: feasible, unless it converged
    # inside
    assert words["gd-penalty"].startswith(
        "locally optimal" if gd <= {"locally_optimal", "iteration_limit", "time_limit"} else "feasible, no proof"
    )
    assert words["search (global)"] == "certified optimum"
    search = [r for r in out.data["rows"] if r["solver"] == "search"]
    assert search and all(r["status"] == "optimal" and r["proof"] in PROOFS for r in search)
    assert not any(r["status"] == "optimal" for r in out.data["rows"] if r["solver"] != "search")
    # a point that hit a limit is marked (open diamond) and counted in its curve's legend entry
    limited = [r for r in out.data["rows"] if r["status"] in ("iteration_limit", "time_limit")]
    assert ("hit a limit (best point so far)" in labels) == bool(limited)
    assert json.loads(out.files[2].read_text())["legend"] == out.data["legend"]
    assert list(out.data["legend"].values())[0] == labels


@pytest.mark.parametrize(
    "fid,ref",
    [("gauss-fig4", "search (reference) — certified optimum"), ("gauss-fig7", "sqp (reference) — locally optimal")],
)
def test_reference_curve_is_certified_only_with_a_proof(tmp_path, fid, ref):
    out = FIGURES[fid].run(tmp_path, quick=True)
    labels = _labels(out)
    assert ref in labels
    assert all(lab.endswith("— heuristic") for lab in labels if lab.startswith("greedy"))
    assert any(ref.split(" — ")[0] in n and ref.split(" — ")[1] in n for n in out.notes)
