"""Hostile pass, sixth session: certificate files and checker options that hung, raised or misjudged.

Each case was found by mutating a genuine certificate (``mechopt check FILE``): a number such as "1e-100000000"
made ``fractions.Fraction`` compute 10^100000000 (no answer in 30 s); JSON ``Infinity`` as an edge end, "1e400"
in ν or "1e5000" in the values ended in ``internal error: OverflowError``; ``--gap nan`` / ``--privacy 1e300``
likewise; a ball file with all counts 0 or δ = 0 raised ZeroDivisionError; a row of Q was summed again for each
of its entries (20 000 outputs: more than 300 s). Now each is a one-line bad file (exit 2) or option error.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import mechopt
from mechopt import certball, certcheck
from mechopt.cli import main
from mechopt.problems.design import ChannelDesign
from mechopt.problems.robust import BallDesign, RobustDesign


@pytest.fixture(scope="module")
def cert(tmp_path_factory) -> dict:
    prob = ChannelDesign.from_params(prior="0.1,0.2,0.3,0.4", notion="ldp", utility="mse", eps=1.0)
    res = mechopt.solve(prob, solver="exact")
    path = tmp_path_factory.mktemp("cert") / "c.json"
    res.save_certificate(str(path))
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def ball(tmp_path_factory) -> dict:
    prob = BallDesign.from_params(prior_counts="30,20,10,5,5,5,5,5,5,5,5", delta=0.05, notion="ldp", eps=1.0)
    res = mechopt.solve(prob, solver="robust-lp")
    path = tmp_path_factory.mktemp("ball") / "c.json"
    res.save_certificate(str(path))
    return json.loads(path.read_text())


def _run(doc: dict, path: Path, run=certcheck.run) -> tuple[int, dict]:
    path.write_text(json.dumps(doc))
    return run(str(path))


def _set(doc: dict, where: tuple, value) -> dict:
    """A copy of ``doc`` with the field at ``where`` (keys and indices) set to ``value``."""
    doc = json.loads(json.dumps(doc))
    *path, last = where
    node = doc
    for key in path:
        node = node[key]
    node[last] = value
    return doc


def test_the_genuine_files_verify(cert, ball, tmp_path):
    assert _run(cert, tmp_path / "a.json")[0] == 0
    assert _run(ball, tmp_path / "b.json", certball.run)[0] == 0


@pytest.mark.parametrize(
    "where, number",
    [
        (("problem", "notion", "eps"), "1e-100000000"),
        (("claim", "value"), "1e100000000"),
        (("claim", "value"), "1E+401"),
        (("claim", "bound"), str(2**1100)),
        (("problem", "prior", 0), "1e-99999"),
    ],
)
def test_a_number_beyond_the_double_range_is_a_bad_file_at_once(where, number, cert, tmp_path):
    code, out = _run(_set(cert, where, number), tmp_path / "m.json")
    assert code == 2 and "beyond the double range" in out["reason"], out


def test_numbers_within_the_range_still_read():
    assert certcheck.num("1e-400") == Fraction(1, 10**400) and certcheck.num("-2.5e300") == Fraction(-25 * 10**299)
    assert certcheck.num(" 1e-0400 ") == Fraction(1, 10**400)


@pytest.mark.parametrize(
    "where, value, words",
    [
        (("dual", "nu"), ["1e400"] * 4, "beyond the double range"),
        (("problem", "utility", "values"), ["1e5000", "0", "1", "2"], "beyond the double range"),
        (("problem", "notion", "edges"), [[float("inf"), 1, "1"]], "edge end inf"),
        (("problem", "notion", "edges"), [[0.5, 1, "1"]], "edge end 0.5"),  # int(0.5) read it as input 0
        (("claim", "status"), ["optimal"], "status must be a string"),
        (("version",), True, "version"),
    ],
)
def test_out_of_range_or_mistyped_fields_are_bad_files(where, value, words, cert, tmp_path):
    code, out = _run(_set(cert, where, value), tmp_path / "m.json")
    assert code == 2 and words in out["reason"], out


@pytest.mark.parametrize("where, value", [(("claim", "status"), ["optimal"]), (("version",), True)])
def test_a_robust_or_ball_file_with_a_mistyped_status_or_version_is_a_bad_file(where, value, ball, tmp_path):
    """The prior-set and ball readers return before the generic checks: ["optimal"] read "verified" there."""
    code, out = _run(_set(ball, where, value), tmp_path / "m.json", certball.run)
    assert code == 2 and ("status" in out["reason"] or "version" in out["reason"]), out
    prob = RobustDesign.from_params(prior_set="0.1,0.2,0.3,0.4;0.4,0.3,0.2,0.1", notion="lip", utility="mse", eps=1.0)
    path = tmp_path / "r.json"
    mechopt.solve(prob, solver="robust-rays").save_certificate(str(path))
    code, out = _run(_set(json.loads(path.read_text()), where, value), tmp_path / "rm.json")
    assert code == 2 and ("status" in out["reason"] or "version" in out["reason"]), out


def test_values_whose_squares_overflow_a_double_are_a_bad_file_not_an_internal_error(cert, tmp_path):
    doc = json.loads(json.dumps(cert))
    doc["problem"]["utility"]["values"] = ["1e300", "0", "1", "2"]  # in range, but the MSE is about 1e599
    code, out = _run(doc, tmp_path / "m.json")
    assert code in (1, 2) and out["verdict"] != "verified", out


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda b: b.update(counts=["0"] * 11), "counts must not all be 0"),
        (lambda b: b.update(delta="0"), "delta must lie in (0, 1)"),
        (lambda b: b.update(delta="1"), "delta must lie in (0, 1)"),
        (lambda b: b.update(delta="-1/10"), "delta must lie in (0, 1)"),
    ],
)
def test_a_ball_file_with_no_samples_or_delta_outside_0_1_is_a_bad_file(edit, words, ball, tmp_path):
    doc = json.loads(json.dumps(ball))
    edit(doc["problem"]["ball"])
    code, out = _run(doc, tmp_path / "m.json", certball.run)
    assert code == 2 and words in out["reason"], out


@pytest.mark.parametrize("flag", ["--gap=nan", "--gap=inf", "--privacy=1e300", "--match=-1", "--row-sum=2"])
def test_a_tolerance_outside_0_1_is_an_option_error(flag, cert, tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    assert main(["check", str(path), flag]) == 2
    err = capsys.readouterr().err
    assert "a tolerance is a number in [0, 1]" in err and "internal error" not in err, err
    for module in (certcheck, certball):
        with pytest.raises(SystemExit):
            module.main([str(path), flag])
    with pytest.raises(Exception, match=r"in \[0, 1\]"):
        certcheck.run(str(path), {"gap": float("nan")})


class _Row(list):
    """A row of Q that counts how often it is read whole."""

    reads = 0

    def __iter__(self):
        _Row.reads += 1
        return super().__iter__()


def test_each_row_of_q_is_summed_once_not_once_per_entry():
    """The rows were normalised by q / sum(row) for each q: quadratic (a 9.6 MB file of 200 000 outputs did
    not finish; 20 000 outputs took more than 300 s)."""
    n = 500
    Q = [_Row([Fraction(1, n)] * n) for _ in range(3)]
    _Row.reads = 0
    cols = certcheck.columns(Q, certcheck.tolerances(None))
    assert len(cols) == n and all(sum(c) == Fraction(3, n) for c in cols)
    assert _Row.reads <= 3 * len(Q), _Row.reads


def test_ksubset_with_a_boolean_k_is_refused():
    """k = True read as k = 1 before (hostile-six, left alone there)."""
    from mechopt.errors import ProblemError
    from mechopt.oracles import KSubset

    with pytest.raises(ProblemError, match="k must be an integer"):
        KSubset(256, 1.0, True)
    assert KSubset(256, 1.0, 1).k == 1


def test_ksubset_item_reports_beyond_memory_are_a_too_large_error_not_a_raw_memory_error():
    """d = 2^40 asked numpy for a 2 TiB bitmap (a bare MemoryError); now a TooLargeError naming the way out."""
    import numpy as np

    from mechopt.errors import TooLargeError
    from mechopt.oracles import KSubset

    with pytest.raises(TooLargeError, match="simulate_counts"):
        KSubset(2**40, 1.0, 3).randomize(np.array([0, 5]), 1)
    rep = KSubset(2**12, 1.0, 3).randomize(np.array([0, 5]), 1)  # below the limit: reports as before
    assert rep.shape == (2, 3) and all(len(set(r)) == 3 for r in rep.tolist())
