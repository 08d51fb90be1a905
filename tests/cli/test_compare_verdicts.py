"""``mechopt compare`` judges each row against the right reference and agrees with ``mechopt verify``.

The built-in catalog is run once through ``mechopt compare --json`` and the claims its closed forms
link through ``mechopt verify --json`` (both in-process, the CLI entry of the other CLI tests).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mechopt import registry
from mechopt.cli import main
from mechopt.jobs.compare import compare
from mechopt.jobs.flags import FLAGS, flag_rows, summary_lines
from mechopt.model.solver import Solver
from mechopt.results.result import Status
from mechopt.solvers.conic import ConicSolver
from mechopt.solvers.spectral import SpectralSolver

FISHER_IDS = ["fisher-interval", "fisher-box", "fisher-output", "fisher-gaussian", "fisher-lti", "fisher-weighted"]
# the continuous optima of the Fisher paper that the catalog checks (Corollaries 1, 3, 5, the box,
# family (ii), Corollary 6 / Theorem 3): exact, so never flagged
FISHER_EXACT = {
    ("fisher-interval", "[-1,1] n=400 (Corollary 1, J = pi^2)"): "fisher.cor1",
    ("fisher-interval", "[0,3] n=400 average query (Corollary 3)"): "fisher.cor3",
    ("fisher-interval", "[-1,1] n=300 variance query (Corollary 5)"): "fisher.cor5",
    ("fisher-box", "[-1,1]x[0,3] 20x20 (Corollary 1, box)"): "fisher.cor1_box",
    ("fisher-output", "Y=[0,10], f in [2,6] (family ii)"): "fisher.cor1",
    ("fisher-gaussian", "m=2 sigma2=4 (Problem 4, Corollary 6)"): "fisher.cor6",
    ("fisher-gaussian", "m=1 xi=4 (Problem 3, Corollary 6)"): "fisher.thm3",
}
# known failures: (problem, instance) -> (claim, relative deviation from the certified optimum)
KNOWN_FAILURES = {
    ("lip-mimo", "uniform:4 eps=1 LDP"): ("lip.ldp_mimo", 0.0971),
    ("design", "d=4 ldp histogram eps=0.5"): ("lip.ldp_mimo", 0.00489),
}
COR4 = ("fisher-weighted", "X=[0,4] weight exp:0.5 nw=11 (Corollary 4, reconstructed)")
LOCAL_OR_HEURISTIC = {"sqp", "gd-penalty", "greedy", "anneal"}


def _run_json(*argv: str) -> Any:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    assert code == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _run_json("compare", "--json")["rows"]


@pytest.fixture(scope="module")
def verdicts(rows: list[dict[str, Any]]) -> dict[str, str]:
    ids = sorted({r["claim"] for r in rows if r["claim"]})
    argv = ["verify", "--json"] + [arg for cid in ids for arg in ("--claim", cid)]
    return {c["id"]: c["verdict"] for c in _run_json(*argv)["claims"]}


def _by(rows: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["problem"], r["instance"], r["solver"]): r for r in rows}


def _flags(row: dict[str, Any]) -> set[str]:
    return set(row["flag"].split(",")) - {""}


def test_closed_form_failures_link_claims_that_verify_reports_failing(rows, verdicts) -> None:
    fails = [r for r in rows if "claim-fails" in _flags(r)]
    outside = [r for r in rows if "outside-region" in _flags(r)]
    assert fails and outside  # not vacuous
    for r in fails:
        assert r["solver"] == "closed-form" and r["claim"], r
        assert verdicts[r["claim"]] == "fails", (r["problem"], r["instance"], r["claim"])
        assert _flags(r) & {"infeasible", "suboptimal"}
    for r in outside:  # outside a proven region: the claim holds in its region only
        assert r["solver"] == "closed-form" and r["in_region"] is False
        assert verdicts[r["claim"]] == "holds-in-region", (r["problem"], r["instance"], r["claim"])
        assert "claim-fails" not in _flags(r)
    # every closed-form row links the claim it checks, and every linked claim is registered
    assert all(r["claim"] for r in rows if r["solver"] == "closed-form")
    assert {r["claim"] for r in rows if r["claim"]} <= set(verdicts)


def test_local_and_heuristic_solvers_are_never_optimal(rows) -> None:
    """Depends on the status vocabulary: sqp/gd-penalty are local methods, greedy/anneal heuristics."""
    local = [r for r in rows if r["solver"] in LOCAL_OR_HEURISTIC]
    assert {r["solver"] for r in local} == LOCAL_OR_HEURISTIC
    assert not [(r["problem"], r["instance"], r["solver"]) for r in local if r["status"] == "optimal"]
    assert not any(r["certified"] for r in local)


def test_json_rows_carry_proof_and_claim(rows) -> None:
    assert all({"proof", "claim", "reference", "deviation", "allowance", "error_estimate"} <= set(r) for r in rows)
    for r in rows:
        assert r["claim"] is None or r["solver"] == "closed-form"
        assert (r["proof"] is not None) == (r["status"] == "optimal")
        if r["certified"]:
            assert r["proof"] in ("certificate", "convex", "eigenproblem")
    assert {r["proof"] for r in rows if r["solver"] == "exact"} == {"certificate"}


def test_fisher_closed_forms_are_not_flagged(rows) -> None:
    by = _by(rows)
    for (pid, name), claim in FISHER_EXACT.items():
        cf = by[(pid, name, "closed-form")]
        assert cf["flag"] == "" and cf["claim"] == claim, (name, cf["flag"])
        grid = by[(pid, name, "conic")]  # the grid value is biased low, within its error estimate
        assert grid["value"] < cf["value"] and grid["flag"] in ("", "certified")
        assert 0 < cf["value"] - grid["value"] <= grid["error_estimate"]


def test_known_failures_are_still_flagged(rows) -> None:
    by = _by(rows)
    for (pid, name), (claim, dev) in KNOWN_FAILURES.items():
        cf = by[(pid, name, "closed-form")]
        assert _flags(cf) == {"suboptimal", "claim-fails"} and cf["claim"] == claim
        assert cf["reference"] == "exact" and cf["deviation"] == pytest.approx(dev, rel=0.01)
    cf, grid = by[(*COR4, "closed-form")], by[(*COR4, "conic")]
    assert cf["claim"] == "fisher.cor4"
    if grid["certified"]:  # the conic grid optimum is proven (proof "convex")
        assert _flags(cf) == {"suboptimal", "claim-fails"} and cf["deviation"] == pytest.approx(0.974, abs=0.002)
    else:  # an unproven grid value condemns no closed form
        assert _flags(cf) == {"worse-than-best"}


def test_summary_names_the_failures_and_not_the_exact_fisher_forms(rows) -> None:
    lines = summary_lines(rows)
    head = "closed forms that fail their claim (counterexamples; mechopt verify --claim ID checks the claim):"
    out = (
        "closed forms outside the region where their theorem is proven (no optimality is claimed there; "
        "not counterexamples):"
    )
    assert head in lines and out in lines
    fails = lines[lines.index(head) + 1 : lines.index(out)]
    assert any(
        line.startswith(
            "  lip-mimo / uniform:4 eps=1 LDP [lip.ldp_mimo]: worse than the certified "
            "optimum 1.0364477 (exact) by 0.100685"
        )
        for line in fails
    )
    assert not any(
        pid in line for line in fails for pid in ("fisher-interval", "fisher-box", "fisher-output", "fisher-gaussian")
    )
    outside = lines[lines.index(out) + 1 :]
    assert (
        "  lip-binary / P1=0.1 eps=1 LIP (outside Theorem 2 region) [lip.thm2]: violates privacy by 0.9 nats of eps"
        in outside
    )


class _ProvenConic(ConicSolver):
    """conic as the status branch makes it: a convex program solved to tolerance is optimal, proof convex."""

    def _solve(self, problem, opts):
        res = super()._solve(problem, opts)
        return res.replace(proof="convex") if res.status is Status.OPTIMAL and res.proof is None else res


class _ProvenSpectral(SpectralSolver):
    def _solve(self, problem, opts):
        res = super()._solve(problem, opts)
        return res.replace(proof="eigenproblem") if res.status is Status.OPTIMAL and res.proof is None else res


@pytest.fixture(scope="module")
def proven_fisher_rows() -> list[dict[str, Any]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._extra_solvers, "conic", _ProvenConic)
        mp.setitem(registry._extra_solvers, "spectral", _ProvenSpectral)
        return compare(problems=FISHER_IDS, time_limit=30)


def test_grid_optima_judge_the_fisher_closed_forms_within_their_error_estimates(proven_fisher_rows) -> None:
    by = _by(proven_fisher_rows)
    for pid, name in FISHER_EXACT:
        assert by[(pid, name, "conic")]["flag"] == by[(pid, name, "spectral")]["flag"] == "certified"
        cf = by[(pid, name, "closed-form")]
        assert cf["flag"] == "" and cf["reference"] == "spectral"  # the most precise certified row
    cf = by[(*COR4, "closed-form")]
    assert _flags(cf) == {"suboptimal", "claim-fails"} and cf["reference"] == "conic"
    assert cf["deviation"] == pytest.approx(0.974, abs=0.002)
    line = next(s for s in summary_lines(proven_fisher_rows) if "[fisher.cor4]" in s)
    assert re.search(
        r"worse than the certified optimum 5\.09377\d* \(conic\) by 4\.96\d* \(0\.974 relative\), "
        r"beyond the error estimate 0\.9\d* and the tolerance",
        line,
    ), line


def test_a_raw_grid_value_would_condemn_the_exact_closed_form(proven_fisher_rows) -> None:
    """Why the error estimate matters: without it the grid optimum (biased low by O(h²)) flags Corollary 1."""
    name = "[-1,1] n=400 (Corollary 1, J = pi^2)"
    inst = [r for r in proven_fisher_rows if r["instance"] == name]
    raw = [{**r, "error_estimate": None} if r["solver"] == "conic" else r for r in inst]
    flags = {r["solver"]: r["flag"] for r in flag_rows(raw)}
    assert flags["closed-form"] == "suboptimal,claim-fails"
    assert {r["solver"]: r["flag"] for r in flag_rows(inst)}["closed-form"] == ""


class _ClosedFormWithClaim(Solver):
    """A closed form that names its claim in ``extras`` (as the paper modules will)."""

    name = "closed-form"

    def can_solve(self, problem):
        return True

    def _solve(self, problem, opts):
        from mechopt import solve

        return solve(problem, solver="exact").replace(
            solver="closed-form", certificate=None, proof=None, extras={"claim": "demo.from_extras"}
        )


def test_the_catalog_claim_wins_over_the_result_claim(monkeypatch) -> None:
    from mechopt.io.catalog import parse_catalog

    monkeypatch.setitem(registry._extra_solvers, "closed-form", _ClosedFormWithClaim)
    text = (
        '[[instance]]\nproblem = "design"\nname = "{}"\nparams = {{ prior = "0.3,0.7", notion = "lip", '
        'utility = "histogram", eps = 1.0 }}\n'
    )
    insts = parse_catalog(text.format("a") + 'claim = "demo.from_catalog"\n' + text.format("b"))
    got = {r["instance"]: r["claim"] for r in compare(instances=insts, solvers=["closed-form"])}
    assert got == {"a": "demo.from_catalog", "b": "demo.from_extras"}


def test_every_flag_is_explained_in_help_and_docs(capsys) -> None:
    main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    docs = (Path(__file__).resolve().parents[2] / "docs" / "getting_started.rst").read_text(encoding="utf-8")
    for flag, meaning in FLAGS.items():
        assert f"{flag} {' '.join(meaning.split())}" in text, flag
        assert f"``{flag}``" in docs, flag
    assert "* certified = status optimal with a machine-checked proof" in text
