"""The values a_x of an mse/mae design travel with it: Result, ``design --out`` JSON, mechanism file, Mechanism.

The issue-25 example (U1): a design for values 0, 1e-9, 4e-9 saved and loaded back gave posterior means
[0.512, 1.032] (the labels 0, 1, 2 taken as values) instead of the design's own [6.80e-10, 1.84e-9].
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import mechopt
from mechopt import Mechanism
from mechopt.errors import ProblemError
from mechopt.mechanism import files

P = np.array([0.5, 0.3, 0.2])
A = np.array([0.0, 1e-9, 4e-9])
ARGS = ["design", "--notion", "ldp", "--utility", "mse", "--prior", "0.5,0.3,0.2", "--eps", "1"]


def _posterior_means(Q: np.ndarray, prior: np.ndarray, a: np.ndarray) -> np.ndarray:
    """E[a_X | Y = y] by Bayes' rule, written out (no mechopt code)."""
    joint = prior[:, None] * Q
    return (a @ joint) / joint.sum(axis=0)


def _design_file(cli, tmp_path, values: str = "0,1e-9,4e-9", utility: str = "mse"):
    path = tmp_path / f"{utility}.json"
    args = [a if a != "mse" else utility for a in ARGS]
    run = cli(*args, "--values", values, "--out", path)
    assert run.code == 0, run.err
    return path


def test_the_issue_example_loads_with_its_own_values(cli, tmp_path) -> None:
    path = _design_file(cli, tmp_path)
    doc = json.loads(path.read_text())
    assert doc["mechanism"]["values"] == [0.0, 1e-9, 4e-9]
    m = Mechanism.load(path)
    Q = np.array(doc["mechanism"]["Q"])
    expected = _posterior_means(Q, P, A)
    np.testing.assert_allclose(expected, [6.80311e-10, 1.84171e-9], rtol=1e-5)  # the issue's numbers
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # values carried: no warning
        np.testing.assert_allclose(m.posterior_means(), expected, rtol=1e-12)
    assert m.values.tolist() == A.tolist() and not m.values.flags.writeable


def test_result_carries_values_and_from_result_uses_them(tmp_path) -> None:
    r = mechopt.design(prior=P, notion="ldp", utility="mse", values=A, eps=1.0, solver="exact")
    assert r.values.tolist() == A.tolist() and r.to_dict()["mechanism"]["values"] == A.tolist()
    m = Mechanism.from_result(r, prior=P)
    expected = _posterior_means(r.Q, P, A)
    np.testing.assert_allclose(m.posterior_means(), expected, rtol=1e-12)
    # the design's MSE is the expected squared error of these very estimates
    joint = P[:, None] * r.Q
    mse = float(np.sum(joint * (A[:, None] - expected[None, :]) ** 2))
    assert mse == pytest.approx(r.value, rel=1e-7)
    m.save(tmp_path / "m.json")  # our own file (version 2) keeps them
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["version"] == files.VERSION == 2 and doc["mechanism"]["values"] == A.tolist()
    np.testing.assert_allclose(Mechanism.load(tmp_path / "m.json").posterior_means(), expected, rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-9, 1e9])
def test_estimates_are_unit_free(cli, tmp_path, scale) -> None:
    base = Mechanism.load(_design_file(cli, tmp_path, "0,1,4")).posterior_means()
    (tmp_path / "s").mkdir()
    scaled = Mechanism.load(_design_file(cli, tmp_path / "s", ",".join(repr(v * scale) for v in (0.0, 1.0, 4.0))))
    np.testing.assert_allclose(scaled.posterior_means(), base * scale, rtol=1e-9)
    assert not np.allclose(base, Mechanism.load(tmp_path / "mse.json").posterior_means(values=[0, 1, 2]))


def test_an_mae_design_carries_its_values(cli, tmp_path) -> None:
    m = Mechanism.load(_design_file(cli, tmp_path, "0,1e-9,4e-9", utility="mae"))
    assert m.values.tolist() == A.tolist() and m.certificate["objective"] == "mae"


def test_an_mi_design_has_no_values(cli, tmp_path) -> None:
    run = cli(*[a if a != "mse" else "mi" for a in ARGS], "--json")
    assert run.code == 0 and "values" not in run.json()["mechanism"]


def test_an_old_design_file_keeps_todays_behaviour_and_warns(cli, tmp_path) -> None:
    path = _design_file(cli, tmp_path)
    doc = json.loads(path.read_text())
    del doc["mechanism"]["values"]  # a file written before values were carried
    path.write_text(json.dumps(doc))
    m = Mechanism.load(path)
    assert m.values is None
    with pytest.warns(UserWarning, match="carries no values"):
        means = m.posterior_means()
    np.testing.assert_allclose(means, _posterior_means(np.array(doc["mechanism"]["Q"]), P, np.arange(3.0)), rtol=1e-12)
    np.testing.assert_allclose(means, [0.512, 1.032], atol=5e-4)  # the issue's label-valued numbers
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.posterior_means(values=A)  # values given: no warning


def test_a_version_1_mechanism_file_still_loads(tmp_path) -> None:
    path = tmp_path / "v1.json"
    doc = {
        "format": "mechopt.mechanism",
        "version": 1,
        "mechanism": {"Q": [[0.75, 0.25], [0.25, 0.75]], "inputs": [0, 1], "outputs": [0, 1], "prior": [0.5, 0.5]},
        "privacy": {"notion": "ldp", "eps": 1.1},
        "certificate": None,
        "provenance": {"source": "v1"},
    }
    path.write_text(json.dumps(doc))
    m = Mechanism.load(path)
    assert m.values is None and m.claim == {"notion": "ldp", "eps": 1.1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not an mse/mae design: labels as values, silently as before
        assert m.posterior_means().tolist() == [0.25, 0.75]


@pytest.mark.parametrize("bad", [[0.0, 1.0], ["0", 1.0, 2.0], [0.0, True, 2.0], [0.0, 1e400, 2.0]])
def test_bad_values_in_a_file_are_refused(cli, tmp_path, bad) -> None:
    path = _design_file(cli, tmp_path)
    text = path.read_text()
    doc = json.loads(text)
    doc["mechanism"]["values"] = bad
    path.write_text(json.dumps(doc).replace("Infinity", "1e400"))
    with pytest.raises(ProblemError, match='"values" in .* must be a list of 3 finite numbers'):
        Mechanism.load(path)
