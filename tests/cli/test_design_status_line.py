"""``mechopt design`` text output: the status line says what backs the status (issue 15)."""

from __future__ import annotations

import pytest

FLAGS = ["design", "--notion", "lip", "--utility", "mse", "--prior", "0.1,0.2,0.7", "--values", "0,1,2", "--eps", "1"]


def _status(run) -> str:
    line = next(ln for ln in run.out.splitlines() if ln.startswith("status "))
    return line.removeprefix("status").strip()


def test_exact_says_its_proof_and_gap(cli):
    run = cli(*FLAGS, "--solver", "exact")
    assert run.code == 0, run.err
    assert _status(run).startswith("optimal (proof: certificate, gap ")


def test_sqp_says_local_and_no_certificate(cli):
    """3 random starts after sqp's baselines (GRR, shrunk identity, constant here). Whether a start or a
    baseline wins depends on the CPU's BLAS kernels; the line says which word applies, never optimal."""
    run = cli(*FLAGS, "--solver", "sqp", "--opt", "n_starts=3", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    starts = doc["extras"]["starts"]
    assert starts == 3 + len(doc["extras"]["baselines"])
    text = cli(*FLAGS, "--solver", "sqp", "--opt", "n_starts=3")
    assert (
        _status(text)
        == {
            "locally_optimal": f"locally_optimal: best local optimum of {starts} sqp starts, no certificate",
            "feasible": "feasible: audited private, optimality not proven (sqp)",
        }[doc["status"]]
    )


@pytest.mark.parametrize(
    "solver,start", [("greedy", "feasible: audited private, optimality not proven (greedy is a heuristic)")]
)
def test_heuristic_says_feasible(cli, solver, start):
    run = cli("design", "--problem", "gauss-dataset1", "--set", "delta=0.3", "--solver", solver)
    assert run.code == 0, run.err
    assert _status(run) == start
    # the Gauss paper's level is delta (information the utility may lose), not an eps: the line names it so
    privacy = next(line for line in run.out.splitlines() if line.startswith("privacy"))
    assert "delta=0.3  audited delta=" in privacy and "eps" not in privacy


def test_closed_form_outside_its_region_says_not_private(cli):
    # Theorem 3's channel at this prior and eps is not eps-LIP (min P < 1/(1 + e^eps))
    run = cli(*FLAGS, "--solver", "closed-form")
    assert _status(run).startswith("infeasible_point: the returned mechanism fails its privacy audit (violation ")
    assert _status(run).endswith("its value is not an answer")
