"""Issue 27, strict readers: each finding as input, what main at 279f854 did, what happens now.

The refusals themselves (one typed line each) are rows of ``catalog_issue27``; this file holds what
a row cannot say: properties of the number reader, labels flowing from a prior file into the
report, float32/float16 files judged at their precision, and ``mechopt audit`` exiting 1 when a
file breaks its own privacy claim.
"""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mechopt
from mechopt.cli import main
from mechopt.cli.graph_file import read_graph
from mechopt.errors import ProblemError
from mechopt.io.jsontext import loads_strict
from mechopt.io.mechfile import read_mechanism
from mechopt.model.numbers import NotDecimal, ascii_float, ascii_int
from mechopt.model.priors import parse_prior, read_prior

LN3 = math.log(3.0)
Q2 = [[0.75, 0.25], [0.25, 0.75]]

# ---- numbers -----------------------------------------------------------------------------------------------------

ascii_decimal = st.from_regex(r"\A[+-]?(?:[0-9]{1,6}(?:\.[0-9]{0,6})?|\.[0-9]{1,6})(?:[eE][+-]?[0-9]{1,2})?\Z")


@given(ascii_decimal)
def test_ascii_decimals_read_exactly_as_float_does(text):
    assert ascii_float(text) == float(text)


@given(st.integers(-(10**12), 10**12))
def test_integers_round_trip(n):
    assert ascii_int(str(n)) == n and ascii_float(str(n)) == float(n)


@given(ascii_decimal, st.data())
def test_text_python_reads_but_is_not_ascii_decimal_is_refused(text, data):
    """``float()`` reads '1_0' as 10 and '١' as 1 (main read them so); only 0-9 are digits now."""
    i = data.draw(st.sampled_from([i for i, c in enumerate(text) if c.isdigit()]))
    odd = data.draw(st.sampled_from(["_", "٠", "１", "٣", "۵", "०"]))
    bad = text[: i + 1] + "_" + text[i + 1 :] if odd == "_" else text[:i] + odd + text[i + 1 :]
    try:
        float(bad)
    except ValueError:
        assert odd == "_"  # a trailing or doubled '_' Python refuses too; every other script's digit it reads
        return
    with pytest.raises(NotDecimal):
        ascii_float(bad)


def test_cli_reads_ascii_numbers_as_before(capsys):
    """The same design with eps 1, 1.0, 1e0 and +1: one answer (the strict reader takes all ASCII forms)."""
    values = set()
    for eps in ("1", "1.0", "1e0", "+1", " 1 "):
        assert main(["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.3,0.7", "--eps", eps, "--json"]) == 0
        values.add(json.loads(capsys.readouterr().out)["value"])
    assert len(values) == 1


# ---- prior files: labels, suffixes, precision ------------------------------------------------------------------------


def test_prior_csv_with_header_is_read_with_labels(tmp_path, capsys):
    """main: `could not convert string to float: 'symbol'` (rc 2). Now the labels name the inputs."""
    path = tmp_path / "prior12.csv"
    path.write_text("symbol,prob\nrain,0.5\nsun,0.3\nsnow,0.2\n")
    p, labels = read_prior(str(path))
    assert p.tolist() == [0.5, 0.3, 0.2] and labels == ("rain", "sun", "snow")
    argv = ["design", "--notion", "ldp", "--utility", "mi", "--prior", str(path), "--eps", "1"]
    assert main(argv + ["--json", "--out", str(tmp_path / "m.json")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mechanism"]["inputs"] == ["rain", "sun", "snow"]
    assert json.loads((tmp_path / "m.json").read_text())["mechanism"]["inputs"] == ["rain", "sun", "snow"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "x=rain" in text and "x=snow" in text and "x=0" not in text
    assert main(["audit", str(tmp_path / "m.json")]) == 0  # the design's own claim (ldp eps=1) holds


@pytest.mark.parametrize(
    "text",
    [
        "0.2 0.8",
        "0.2,0.8",
        "0.2\n0.8\n",
        "prob\n0.2\n0.8\n",
        "a 0.2\nb 0.8\n",
        "a;0.2\nb;0.8",
        "\ufeffs,p\na,0.2\nb,0.8",
    ],
)
def test_every_prior_layout_gives_the_same_vector(tmp_path, text):
    path = tmp_path / "p.txt"
    path.write_text(text, encoding="utf-8")
    assert parse_prior(str(path)).tolist() == [0.2, 0.8]


def test_prior_suffix_is_case_insensitive(tmp_path):
    """main: `P_UPPER.NPY` was parsed as text ('utf-8' codec can't decode byte 0x93)."""
    np.save(tmp_path / "p.npy", np.array([0.3, 0.7]))
    (tmp_path / "P_UPPER.NPY").write_bytes((tmp_path / "p.npy").read_bytes())
    assert parse_prior(str(tmp_path / "P_UPPER.NPY")).tolist() == [0.3, 0.7]


def test_prior_error_never_echoes_the_file(tmp_path):
    """main (#19): a spec prior naming /etc/hostname printed `could not convert string to float: 'vm'`."""
    path = tmp_path / "secret.txt"
    path.write_text("hunter2 correct horse\nbattery staple\n")
    with pytest.raises(ProblemError) as info:
        parse_prior(str(path))
    msg = str(info.value)
    assert "hunter2" not in msg and "horse" not in msg and "staple" not in msg and "line 2, field 2" in msg


def test_float16_prior_and_float32_mechanism_are_read_at_their_precision(tmp_path, capsys):
    """main: float16 prior [0.3, 0.7] 'sums to 1.00024414062' and float32 Q 'sums to 0.999999977648': refused."""
    np.save(tmp_path / "p16.npy", np.array([0.3, 0.7], dtype=np.float16))
    p = parse_prior(str(tmp_path / "p16.npy"))
    assert abs(p.sum() - 1) < 1e-15 and abs(p[0] - 0.3) < 1e-3
    np.save(tmp_path / "q32.npy", np.array(Q2, dtype=np.float32))
    doc = read_mechanism(tmp_path / "q32.npy")
    assert doc["precision"] == pytest.approx(8 * np.finfo(np.float32).eps)
    assert main(["audit", str(tmp_path / "q32.npy"), "--eps", str(LN3), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["check"]["private"] is True
    # still refused when the rows are off by more than the precision (1e-3 in float32)
    np.save(tmp_path / "bad32.npy", np.array([[0.5, 0.499], [0.25, 0.75]], dtype=np.float32))
    with pytest.raises(ProblemError, match="sums to"):
        read_mechanism(tmp_path / "bad32.npy")


def test_pandas_like_prior_keeps_its_labels():
    class Series(list):  # the part of pandas.Series the design reads
        index = ["a", "b"]

    prob = mechopt.registry.get_problem("design").from_params(
        prior=Series([0.3, 0.7]), notion="ldp", utility="mi", eps=1
    )
    assert prob.inputs == ("a", "b")


# ---- policy graphs ---------------------------------------------------------------------------------------------------


def test_node_link_graph_without_parallel_edges_designs_as_the_api(tmp_path):
    """The refusal of parallel edges (N7) leaves a plain node-link graph designing exactly as the API graph."""
    G = nx.Graph([(0, 1, {"weight": 9}), (1, 2, {"weight": 1.0})])
    (tmp_path / "g.JSON").write_text(json.dumps(nx.node_link_data(G, edges="edges")))
    H = read_graph(tmp_path / "g.JSON", d=3)
    a = mechopt.design(prior="uniform:3", notion="graph-ldp", utility="mi", eps=1, graph=G, solver="exact")
    b = mechopt.design(prior="uniform:3", notion="graph-ldp", utility="mi", eps=1, graph=H, solver="exact")
    assert a.value == b.value and a.status.value == "optimal"


def test_numpy_and_decimal_weights_design_as_floats():
    """main (#20): np.float32(2) and Decimal(2) weights were refused as 'not finite and > 0'."""
    from decimal import Decimal

    values = {
        mechopt.design(
            prior="uniform:3", notion="metric-ldp", utility="mi", eps=1, graph=nx.Graph([(0, 1, {"weight": w}), (1, 2)])
        ).value
        for w in (2.0, np.float32(2), Decimal(2), np.int64(2))
    }
    assert len(values) == 1


# ---- JSON the standard leaves ambiguous ------------------------------------------------------------------------------


@given(st.lists(st.sampled_from(["Q", "prior", "eps", "x"]), min_size=2, max_size=5))
def test_duplicate_keys_are_refused_at_any_depth(keys):
    body = ", ".join(f'"{k}": {i}' for i, k in enumerate(keys))
    doc = '{"a": [{"b": {' + body + "}}]}"
    if len(set(keys)) == len(keys):
        assert loads_strict(doc, "f")["a"][0]["b"] == {k: i for i, k in enumerate(keys)}
    else:
        with pytest.raises(ProblemError, match="appears twice"):
            loads_strict(doc, "f")


def test_surrogate_pairs_are_characters_lone_ones_are_not():
    assert loads_strict('["\\ud83d\\ude00"]', "f") == ["\U0001f600"]
    with pytest.raises(ProblemError, match="lone UTF-16 surrogate"):
        loads_strict('["\\ude00\\ud83d"]', "f")


# ---- the file's own privacy claim ------------------------------------------------------------------------------------


def _write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_audit_fails_a_file_that_breaks_its_own_claim(tmp_path, capsys):
    """main (N17): a ln 3-LDP Q in a file claiming eps = 0.5 printed 'ldp 1.09861' and exited 0."""
    path = _write(tmp_path, "claim.json", {"mechanism": {"Q": Q2}, "privacy": {"notion": "ldp", "eps": 0.5}})
    assert main(["audit", path]) == 1
    out = capsys.readouterr().out
    assert "CLAIM BROKEN: the file claims ldp eps = 0.5, but its Q needs eps = 1.09861" in out
    assert main(["audit", path, "--json"]) == 1
    cap = capsys.readouterr()
    claim = json.loads(cap.out)["claim"]
    assert claim["holds"] is False and claim["eps_audited"] == pytest.approx(LN3) and "CLAIM BROKEN" in cap.err


def test_audit_passes_a_file_that_keeps_its_claim(tmp_path, capsys):
    path = _write(tmp_path, "ok.json", {"mechanism": {"Q": Q2}, "privacy": {"notion": "ldp", "eps": LN3}})
    assert main(["audit", path]) == 0
    assert "claim holds: the file claims ldp eps = 1.09861" in capsys.readouterr().out


def test_audit_checks_a_lip_claim_with_the_files_prior(tmp_path, capsys):
    mech = {"Q": Q2, "prior": [0.5, 0.5]}
    lip = mechopt.io.mechfile.audit(np.array(Q2), [0.5, 0.5])["notions"]["lip"]["eps"]
    good = _write(tmp_path, "lip.json", {"mechanism": mech, "privacy": {"notion": "lip", "eps": lip}})
    bad = _write(tmp_path, "lip_bad.json", {"mechanism": mech, "privacy": {"notion": "lip", "eps": lip / 2}})
    assert main(["audit", good]) == 0 and main(["audit", bad]) == 1
    assert "CLAIM BROKEN: the file claims lip" in capsys.readouterr().out


def test_a_claim_audit_cannot_compute_is_said_not_ignored(tmp_path, capsys):
    path = _write(tmp_path, "g.json", {"mechanism": {"Q": Q2}, "privacy": {"notion": "graph-ldp", "eps": 0.1}})
    assert main(["audit", path]) == 0
    assert "claim not checked: the file claims graph-ldp eps = 0.1" in capsys.readouterr().out


def test_design_out_round_trips_through_audit_and_a_failed_design_fails_audit(tmp_path, capsys):
    """A design document keeps its claim; a closed form outside its region (infeasible_point, N16) fails it."""
    good, bad = str(tmp_path / "good.json"), str(tmp_path / "bad.json")
    assert (
        main(["design", "--notion", "lip", "--utility", "mse", "--prior", "0.2,0.3,0.5", "--eps", "1", "--out", good])
        == 0
    )
    args = ["design", "--notion", "lip", "--utility", "histogram", "--prior", "uniform:10", "--eps", "1"]
    assert main(args + ["--solver", "closed-form", "--out", bad]) == 1
    capsys.readouterr()
    assert main(["audit", good]) == 0 and main(["audit", bad]) == 1
    assert "CLAIM BROKEN: the file claims lip eps = 1" in capsys.readouterr().out


def test_a_lip_claim_is_checked_under_the_files_prior_even_with_another_prior(tmp_path, capsys):
    mech = tmp_path / "m.json"
    assert (
        main(
            [
                "design",
                "--notion",
                "lip",
                "--utility",
                "mse",
                "--prior",
                "0.1,0.2,0.7",
                "--eps",
                "1",
                "--out",
                str(mech),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["audit", str(mech), "--prior", "0.3,0.3,0.4", "--json"]) == 0  # 1.51-LIP under this prior
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert (
        doc["notions"]["lip"]["eps"] > 1.2 and doc["claim"]["holds"] is True and doc["claim"]["prior"] == "the file's"
    )
    assert "claim holds: the file claims lip (under the file's prior) eps = 1" in cap.err
