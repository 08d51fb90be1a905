"""Labels round trip: values of any container map to inputs; reports come back as output labels, same container."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mechopt import Mechanism
from mechopt.errors import ProblemError

Q = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])


def _mech(**kw) -> Mechanism:
    return Mechanism(Q, inputs=["low", "mid", "high"], outputs=["L", "M", "H"], **kw)


def _values(n: int = 2000) -> np.ndarray:
    return np.array(["low", "mid", "high"])[np.random.default_rng(0).integers(0, 3, n)]


def test_numpy_list_and_series_give_the_same_reports() -> None:
    m, v = _mech(), _values()
    arr = m.randomize(v, rng=3)
    lst = m.randomize(v.tolist(), rng=3)
    ser = m.randomize(pd.Series(v), rng=3)
    assert isinstance(arr, np.ndarray) and isinstance(lst, list) and isinstance(ser, pd.Series)
    assert arr.tolist() == lst == ser.tolist()
    assert set(lst) <= {"L", "M", "H"}
    idx = m.randomize_indices(np.array([["low", "mid", "high"].index(s) for s in v]), 3)
    assert arr.tolist() == np.array(["L", "M", "H"])[idx].tolist()


def test_series_keeps_index_and_name_and_estimates_from_series_reports() -> None:
    m, v = _mech(), _values()
    s = pd.Series(v, index=pd.RangeIndex(100, 100 + v.size, name="row"), name="income")
    r = m.randomize(s, rng=1, chunk_size=333)
    assert r.name == "income" and r.index.equals(s.index)
    assert m.estimate(r, method="em").n == v.size
    assert (m.counts(r) == m.counts(r.to_numpy())).all()


def test_categorical_series_round_trips_as_categorical_over_the_outputs() -> None:
    m, v = _mech(), _values()
    s = pd.Series(pd.Categorical(v, categories=["high", "mid", "low", "unused"]), name="c")
    r = m.randomize(s, rng=2)
    assert isinstance(r.dtype, pd.CategoricalDtype) and list(r.cat.categories) == ["L", "M", "H"]
    assert r.astype(str).tolist() == m.randomize(v, rng=2).tolist()
    assert m.counts(r).sum() == v.size


def test_default_labels_are_indices_and_reports_are_indices() -> None:
    m = Mechanism(Q)
    x = np.random.default_rng(0).integers(0, 3, 500)
    r = m.randomize(x, rng=0)
    assert r.dtype.kind == "i" and np.array_equal(r, m.randomize_indices(x, 0))
    assert m.randomize(x.astype(float), rng=0).tolist() == r.tolist()  # 1.0 is the label 1


def test_numeric_and_mixed_labels() -> None:
    m = Mechanism(Q, inputs=[10, 20.5, "x"], outputs=[("a", 1), 2, None])
    r = m.randomize([10, "x", 20.5, 10], rng=0)
    assert len(r) == 4 and all(v in (("a", 1), 2, None) for v in r)
    with pytest.raises(ProblemError, match=r"value '10' at position 0"):  # a string is not the number 10
        m.randomize(["10"], rng=0)
    m2 = Mechanism(Q, inputs=[3, 1, 2])
    assert m2.randomize(np.array([3, 1, 2]), rng=0).shape == (3,)


@pytest.mark.parametrize(
    ("values", "match"),
    [
        (
            np.array(["low", "mid", "MID", "x"]),
            r"value 'MID' at position 2 is not one of the 3 inputs .* \(2 such values\)",
        ),
        (["low", None], "a missing value at position 1"),
        (pd.Series(["low", "bad"], index=["r1", "r2"]), r"value 'bad' at position 1 \(index 'r2'\)"),
        (pd.Series(pd.Categorical(["low", None])), "a missing value at position 1"),
        (pd.Series(pd.Categorical(["low", "zzz"])), "value 'zzz' at position 1"),
        (np.array([["low"], ["mid"]]), "one-dimensional"),
        ("low", "sequence"),
        (np.array([0.5, 1.0]), "value 0.5 at position 0"),
    ],
)
def test_values_not_in_inputs_are_refused_with_their_position(values, match) -> None:
    with pytest.raises(ProblemError, match=match):
        _mech().randomize(values, rng=0)


def test_chunked_refusal_names_the_global_position() -> None:
    v = _values(1000).astype(object)
    v[777] = "oops"
    with pytest.raises(ProblemError, match="at position 777"):
        _mech().randomize(v, rng=0, chunk_size=100)
    with pytest.raises(ProblemError, match="at position 777"):
        _mech().randomize(pd.Series(v), rng=0, chunk_size=100)


def test_reports_not_in_outputs_are_refused() -> None:
    with pytest.raises(ProblemError, match="value 'Z' at position 1 is not one of the 3 outputs"):
        _mech().estimate(["L", "Z"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"inputs": ["a", "a", "b"]}, "inputs label 'a' appears twice"),
        ({"inputs": ["a", "b"]}, "2 inputs labels for 3 inputs"),
        ({"outputs": "LMH"}, "the string"),
        ({"inputs": [[1], [2], [3]]}, "hashable"),
    ],
)
def test_bad_labels_are_refused(kwargs, match) -> None:
    with pytest.raises(ProblemError, match=match):
        Mechanism(Q, **kwargs)


def test_stream_helpers_map_chunks_with_global_positions() -> None:
    m, v = _mech(), _values(1000)
    g = np.random.default_rng(5)
    parts = [
        m.output_labels(m.randomize_indices(m.input_indices(v[s : s + 300], start=s), g)) for s in range(0, 1000, 300)
    ]
    assert np.concatenate(parts).tolist() == m.randomize(v, rng=5).tolist()
    assert sum(m.counts(p, start=0) for p in parts).sum() == 1000
    with pytest.raises(ProblemError, match="at position 612"):
        m.input_indices(np.array(["low", "x"]), start=611)
    with pytest.raises(ProblemError, match="value 'x' at position 42 is not one of the 3 outputs"):
        m.counts(["x"], start=42)
    assert m.randomize([], rng=0) == [] and m.randomize(np.array([], dtype=str), rng=0, chunk_size=5).size == 0


def test_refusals_name_the_right_kind_of_label_and_call_a_missing_value_missing() -> None:
    from mechopt import Mechanism
    from mechopt.errors import ProblemError

    m = Mechanism(np.eye(2), inputs=["a", "b"], outputs=["n", "y"])
    with pytest.raises(ProblemError, match="map it to an output label") as err:
        m.counts(["n", "z"])  # a report that is not an output: "map it to an input label" was wrong
    assert "input label" not in str(err.value)
    pd = pytest.importorskip("pandas")
    with pytest.raises(ProblemError, match="a missing value at position 1"):
        m.randomize(pd.Series(["a", None, "b"]), rng=0)  # was "value nan at position 1"
