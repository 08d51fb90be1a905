"""``mechopt dominates Q1 Q2``: exit 0 with a garbling, 1 with a separating gain, 2 on bad input."""

from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np

from mechopt.dominance.blackwell import bayes_gain, garbling_residual


def _write(folder, name: str, Q) -> str:
    path = folder / name
    if name.endswith(".npy"):
        np.save(path, np.asarray(Q, dtype=float))
    elif name.endswith(".csv"):
        path.write_text("\n".join(",".join(str(v) for v in row) for row in Q) + "\n")
    else:
        path.write_text(json.dumps({"mechanism": {"Q": Q}}))
    return str(path)


GRR3 = [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]  # e^eps = 3
GRR2 = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]  # e^eps = 2


def test_yes_exit_0_with_an_exact_garbling_from_decimal_json(cli, tmp_path) -> None:
    a, b = _write(tmp_path, "a.json", GRR3), _write(tmp_path, "b.json", GRR2)
    run = cli("dominates", a, b, "--json")
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["dominates"] and doc["verdict"] == "garbling" and doc["exact"]
    assert doc["inputs"] == 3 and doc["outputs"] == [3, 3]
    R = [[F(v) for v in row] for row in doc["witness"]["R"]]
    exact = lambda Q: [[F(str(v)) for v in row] for row in Q]  # noqa: E731
    assert garbling_residual(exact(GRR3), exact(GRR2), R) == 0


def test_no_exit_1_with_a_gain_that_separates(cli, tmp_path) -> None:
    a, b = _write(tmp_path, "a.csv", GRR2), _write(tmp_path, "b.json", GRR3)
    run = cli("dominates", a, b, "--json")
    assert run.code == 1, run.err
    w = json.loads(run.out)["witness"]
    G = [[F(v) for v in row] for row in w["gain"]]
    prior = [F(v) for v in w["prior"]]
    exact = lambda Q: [[F(str(v)) for v in row] for row in Q]  # noqa: E731
    assert bayes_gain(exact(GRR3), G, prior) - bayes_gain(exact(GRR2), G, prior) == F(w["margin"]) > 0


def test_text_output_says_exact_or_within_tolerance(cli, tmp_path) -> None:
    run = cli("dominates", _write(tmp_path, "a.json", GRR3), _write(tmp_path, "b.json", GRR2))
    assert run.code == 0 and "exactly (verified in rational arithmetic)" in run.out
    # .npy: the binary values of 0.6, 0.2, ... are not an exact garbling pair; said so
    run = cli("dominates", _write(tmp_path, "a.npy", GRR3), _write(tmp_path, "b.npy", GRR2))
    assert run.code == 0
    assert "exactly" in run.out or "within tolerance: exact residual" in run.out
    run = cli("dominates", _write(tmp_path, "c.json", GRR2), _write(tmp_path, "d.json", GRR3), "--prior", "0.2,0.3,0.5")
    assert run.code == 1 and "strictly better" in run.out and "G (3 x 3)" in run.out


def test_different_numbers_of_inputs_exit_2(cli, tmp_path, one_line_error) -> None:
    run = cli("dominates", _write(tmp_path, "a.json", GRR3), _write(tmp_path, "b.json", [[0.5, 0.5], [0.5, 0.5]]))
    one_line_error(run)
    assert "inputs" in run.err


def test_unreadable_or_non_stochastic_exit_2(cli, tmp_path, one_line_error) -> None:
    one_line_error(cli("dominates", str(tmp_path / "missing.json"), _write(tmp_path, "b.json", GRR2)))
    one_line_error(cli("dominates", _write(tmp_path, "a.json", [[0.5, 0.6]]), _write(tmp_path, "b.json", [[1.0]])))
    one_line_error(
        cli("dominates", _write(tmp_path, "a.json", GRR3), _write(tmp_path, "b.json", GRR2), "--prior", "1,0,0")
    )


def test_decimal_json_a_hair_better_is_no_exit_1_not_a_yes_within_tolerance(cli, tmp_path) -> None:
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text('{"Q": [[0.75, 0.25], [0.25, 0.75]]}')
    b.write_text('{"Q": [[0.7500000001, 0.2499999999], [0.25, 0.75]]}')  # exactly more informative than a
    run = cli("dominates", str(a), str(b))
    assert run.code == 1, run.out
    assert "does not dominate" in run.out and "below the garbling tolerance" in run.out
