"""Mechanism files and the audit document: round trips and agreement with the notions' audits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt.errors import ProblemError
from mechopt.io.mechfile import audit, read_mechanism, write_mechanism
from mechopt.io.writer import write_text
from mechopt.notions import LDP, LIP, MIP


@st.composite
def channels(draw):
    d = draw(st.integers(2, 4))
    m = draw(st.integers(1, 4))
    raw = draw(st.lists(st.lists(st.floats(0.0, 1.0), min_size=m, max_size=m), min_size=d, max_size=d))
    Q = np.array(raw) + 1e-3 * draw(st.booleans())  # sometimes strictly positive, sometimes with zeros
    Q[Q.sum(axis=1) == 0, 0] = 1.0
    Q = Q / Q.sum(axis=1, keepdims=True)
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=d, max_size=d)))
    return Q, w / w.sum()


@settings(max_examples=40, deadline=None)
@given(channels())
def test_write_read_audit_round_trip(tmp_path_factory, qp):
    Q, P = qp
    path = tmp_path_factory.mktemp("m") / "m.json"
    write_mechanism(path, Q, prior=P, notion="lip", eps=1.0)
    doc = read_mechanism(path)
    assert np.allclose(doc["Q"], Q, atol=1e-15) and np.allclose(doc["prior"], P)
    rep = audit(doc["Q"], doc["prior"])["notions"]
    for name, cls in (("ldp", LDP), ("lip", LIP), ("mip", MIP)):
        eps = cls(0.0).audit(Q, P).eps
        if math.isinf(eps):
            assert rep[name]["eps"] is None
        else:
            assert rep[name]["eps"] == pytest.approx(eps, rel=1e-9, abs=1e-12)
    # LDP ⇒ LIP ⇒ 2·LDP (LIP paper, Theorem 1) holds for the audited levels
    if rep["ldp"]["eps"] is not None:
        assert rep["lip"]["eps"] is not None and rep["lip"]["eps"] <= rep["ldp"]["eps"] + 1e-9


def test_constant_channel_is_zero_private():
    rep = audit(np.full((3, 2), 0.5), "uniform:3")["notions"]
    assert rep == {"ldp": {"eps": 0.0}, "lip": {"eps": 0.0}, "mip": {"eps": 0.0}, "pml": {"eps": 0.0}}


def test_write_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "f.json"
    path.write_text("old")

    class Boom(Exception):
        pass

    def bad_replace(*a, **k):
        raise Boom

    monkeypatch.setattr("os.replace", bad_replace)
    with pytest.raises(Boom):
        write_text(path, "new")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["f.json"]


@pytest.mark.parametrize(
    "content,match",
    [
        ('{"Q": [[0.5, 0.5], [1, "x"]]}', "non-numeric"),
        ('{"Q": [[0.5, 0.5], [1]]}', "equal length"),
        ('{"Q": [[0.5, 0.5]], "prior": [0.5, 0.6]}', "sums to"),
        ('{"Q": [[Infinity, 0]]}', "not valid JSON"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_bad_files(tmp_path, content, match):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ProblemError, match=match):
        read_mechanism(path)


def test_extra_keys_are_kept(tmp_path):
    path = tmp_path / "m.json"
    write_mechanism(path, np.eye(2), solver="exact", value=0.0)
    doc = json.loads(path.read_text())
    assert doc["solver"] == "exact" and doc["mechanism"]["inputs"] == [0, 1] and doc["mechanism"]["outputs"] == [0, 1]
    assert read_mechanism(path)["value"] == 0.0


def test_old_flat_layout_still_read(tmp_path):
    """Files written before the one-layout change ({"Q", "prior", "notion", "eps"} at the top) still audit."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    Q, P = [[0.75, 0.25], [0.25, 0.75]], [0.4, 0.6]
    old.write_text(json.dumps({"Q": Q, "prior": P, "notion": "ldp", "eps": 1.1, "solver": "x"}))
    write_mechanism(new, Q, prior=P, notion="ldp", eps=1.1, solver="x")
    assert "Q" not in json.loads(new.read_text()) and json.loads(new.read_text())["mechanism"]["Q"] == Q
    a, b = read_mechanism(old), read_mechanism(new)
    assert np.array_equal(a["Q"], b["Q"]) and np.array_equal(a["prior"], b["prior"])
    assert (a["notion"], a["eps"], a["solver"]) == (b["notion"], b["eps"], b["solver"]) == ("ldp", 1.1, "x")


def test_values_are_written_checked_and_read(tmp_path) -> None:
    path = tmp_path / "m.json"
    write_mechanism(path, [[0.75, 0.25], [0.25, 0.75]], values=np.array([0, 3]))
    assert read_mechanism(path)["values"].tolist() == [0.0, 3.0]
    for bad in ([1.0], [1.0, "x"], [1.0, float("nan")], [True, 1.0]):
        with pytest.raises(ProblemError, match='"values" in .* 2 finite numbers, one per row of Q'):
            write_mechanism(tmp_path / "bad.json", [[0.75, 0.25], [0.25, 0.75]], values=bad)
    assert not (tmp_path / "bad.json").exists()
