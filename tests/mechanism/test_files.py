"""Mechanism files: save/load round trip, large Q beside the JSON, other mechanism files, the CLI audit reads ours."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mechopt
from mechopt import Mechanism
from mechopt.errors import ProblemError
from mechopt.mechanism import files

P12 = np.array([0.303, 0.18, 0.119, 0.087, 0.069, 0.061, 0.05, 0.042, 0.033, 0.025, 0.018, 0.013])
P12 = P12 / P12.sum()


def _same(a: Mechanism, b: Mechanism) -> None:
    np.testing.assert_array_equal(a.Q, b.Q)
    assert a.inputs == b.inputs and a.outputs == b.outputs
    assert (a.prior is None) == (b.prior is None) and (a.prior is None or np.array_equal(a.prior, b.prior))
    assert a.claim == b.claim and a.certificate == b.certificate and a.provenance == b.provenance


def test_save_load_round_trip_of_a_design(tmp_path) -> None:
    r = mechopt.design(prior=P12, notion="ldp", utility="histogram", eps=1.0, solver="exact")
    labels = [f"s{i}" for i in range(12)]
    m = r.to_mechanism(prior=P12, inputs=labels)
    path = tmp_path / "hist.json"
    m.save(path)
    back = Mechanism.load(path)
    _same(m, back)
    doc = json.loads(path.read_text())
    assert doc["format"] == "mechopt.mechanism" and doc["version"] == files.VERSION
    assert doc["privacy"] == {"notion": "ldp", "eps": 1.0}
    assert back.certificate["status"] == "optimal" and back.certificate["gap"] <= 1e-9
    assert set(back.provenance) == {"mechopt", "date", "source"} and back.provenance["mechopt"] == mechopt.__version__
    x = np.array(labels)[np.random.default_rng(0).integers(0, 12, 1000)]
    assert m.randomize(x, rng=4).tolist() == back.randomize(x, rng=4).tolist()


@pytest.mark.parametrize(("inputs", "outputs"), [(None, None), ([3, 1, 2], ["x", "y"]), (["a", 2.5, "c"], [0, "one"])])
def test_labels_of_every_kind_round_trip(tmp_path, inputs, outputs) -> None:
    m = Mechanism([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]], inputs=inputs, outputs=outputs, claim=("ldp", 2.0))
    m.save(tmp_path / "m.json")
    _same(m, Mechanism.load(tmp_path / "m.json"))


def test_a_large_q_goes_to_npy_beside_the_json(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(files, "JSON_MAX_ENTRIES", 10)
    Q = np.random.default_rng(0).dirichlet(np.ones(5), size=4)
    m = Mechanism(Q, prior=[0.1, 0.2, 0.3, 0.4])
    m.save(tmp_path / "big.json")
    doc = json.loads((tmp_path / "big.json").read_text())
    assert doc["mechanism"]["Q"] is None and doc["mechanism"]["Q_file"] == "big.Q.npy"
    assert (tmp_path / "big.Q.npy").exists()
    _same(m, Mechanism.load(tmp_path / "big.json"))


def test_loads_a_design_document_and_plain_matrices(tmp_path, cli) -> None:
    out = tmp_path / "d.json"
    run = cli("design", "--notion", "ldp", "--utility", "mi", "--prior", "0.2,0.3,0.5", "--eps", "1", "--out", str(out))
    assert run.code == 0, run.err
    m = Mechanism.load(out)
    assert m.claim == {"notion": "ldp", "eps": 1.0} and m.prior.tolist() == [0.2, 0.3, 0.5]
    assert m.certificate["status"] == "optimal" and m.certificate["objective"] == "mi"
    np.save(tmp_path / "q.npy", m.Q)
    (tmp_path / "q.csv").write_text("\n".join(",".join(map(repr, row)) for row in m.Q.tolist()))
    for name in ("q.npy", "q.csv"):
        back = Mechanism.load(tmp_path / name)
        np.testing.assert_array_equal(back.Q, m.Q)
        assert back.claim is None and back.provenance == {"source": f"{name} ({name[2:]})"}


def test_mechopt_audit_reads_a_saved_mechanism(tmp_path, cli) -> None:
    Mechanism([[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5], claim=("ldp", 1.1)).save(tmp_path / "m.json")
    run = cli("audit", str(tmp_path / "m.json"), "--json")
    assert run.code == 0, run.err
    assert abs(run.json()["notions"]["ldp"]["eps"] - np.log(3)) < 1e-12


def test_a_newer_file_version_is_refused(tmp_path) -> None:
    Mechanism(np.eye(2)).save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["version"] = files.VERSION + 1
    (tmp_path / "m.json").write_text(json.dumps(doc))
    with pytest.raises(ProblemError, match="newer than this mechopt reads"):
        Mechanism.load(tmp_path / "m.json")


def test_a_bad_file_is_refused_with_its_name(tmp_path) -> None:
    (tmp_path / "bad.json").write_text('{"mechanism": {"Q": [[0.5, 0.6]]}}')
    with pytest.raises(ProblemError, match="bad.json"):
        Mechanism.load(tmp_path / "bad.json")
    with pytest.raises(ProblemError, match="missing.json"):
        Mechanism.load(tmp_path / "missing.json")


def test_tuple_and_bool_labels_survive_save_and_load(tmp_path) -> None:
    # a built-in k-subset mechanism has tuple outputs; they came back as the strings '(0, 2)', so the loaded
    # mechanism refused the reports of the one it was saved from ("values must be one-dimensional")
    from mechopt.oracles.ksubset import KSubset

    m = KSubset(5, 1.0, 2).mechanism(inputs=list("abcde"))
    reports = m.randomize(list("abcde") * 40, rng=1)
    m.save(tmp_path / "k.json")
    back = Mechanism.load(tmp_path / "k.json")
    assert back.outputs == m.outputs and isinstance(back.outputs[0], tuple)
    assert np.array_equal(back.estimate(reports).frequencies, m.estimate(reports).frequencies)
    b = Mechanism(np.eye(2), inputs=[False, True], outputs=[None, "y"])
    b.save(tmp_path / "b.json")
    assert Mechanism.load(tmp_path / "b.json").inputs == (False, True)
    assert Mechanism.load(tmp_path / "b.json").outputs == (None, "y")


def test_a_design_document_records_its_provenance_and_a_local_status(tmp_path, cli) -> None:
    out = tmp_path / "h.json"
    args = ["design", "--notion", "ldp", "--utility", "mse", "--prior", "0.5,0.3,0.2", "--values", "0,1,4"]
    run = cli(*args, "--eps", "1", "--solver", "sqp", "--out", str(out))
    assert run.code == 0, run.err
    m = Mechanism.load(out)
    assert m.provenance["mechopt"] == mechopt.__version__ and m.provenance["date"].startswith("20")
    assert m.provenance["source"] == "h.json (json)"
    doc = json.loads(out.read_text())
    assert doc["status"] == "locally_optimal" and doc["certificate"] is None
    cert = m.certificate  # no certificate, but the status (and what was optimised) is kept
    assert (cert["status"], cert["objective"], cert["solver"]) == ("locally_optimal", "mse", "sqp")
    assert cert["value"] == doc["value"] and "bound" not in cert
    del doc["provenance"]  # a document written before provenance was recorded
    out.write_text(json.dumps(doc))
    assert Mechanism.load(out).provenance == {"source": "h.json (json)"}


def test_values_travel_with_a_q_beside_the_json(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(files, "JSON_MAX_ENTRIES", 4)
    m = Mechanism([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]], prior=[0.5, 0.5], values=[1e9, 3e9])
    m.save(tmp_path / "big.json")
    back = Mechanism.load(tmp_path / "big.json")
    assert back.values.tolist() == [1e9, 3e9]
    np.testing.assert_allclose(back.posterior_means(), [1e9, 2e9, 3e9], rtol=1e-15)
    doc = json.loads((tmp_path / "big.json").read_text())
    doc["mechanism"]["values"] = [1.0]
    (tmp_path / "big.json").write_text(json.dumps(doc))
    with pytest.raises(ProblemError, match='"values" in .*big.json.* 2 finite numbers'):
        Mechanism.load(tmp_path / "big.json")
