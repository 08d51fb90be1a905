"""``mechopt randomize`` / ``estimate`` on awkward files: outputs over inputs, empty files, Parquet nulls."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import assert_one_line_error

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

Q3 = [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]


@pytest.fixture
def mech(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"Q": Q3}))
    return path


def test_randomize_refuses_to_write_its_reports_over_the_raw_data(cli, mech, tmp_path) -> None:
    data = tmp_path / "raw.csv"
    data.write_text("x,name\n0,ann\n2,bob\n1,cy\n")
    before = data.read_text()
    run = cli("randomize", mech, data, "--column", "x", "--seed", "1", "--out", data)
    assert_one_line_error(run)
    assert "the run's data" in run.err
    assert data.read_text() == before  # the raw data (and its other columns) are kept
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    assert_one_line_error(cli("randomize", mech, data, "--column", "x", "--seed", "1", "--out", link))
    assert data.read_text() == before


@pytest.mark.parametrize("verb", ["randomize", "estimate"])
def test_an_empty_data_file_is_one_line_not_an_internal_error(cli, mech, tmp_path, verb) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    extra = ["--seed", "1", "--out", str(tmp_path / "r.csv")] if verb == "randomize" else []
    run = cli(verb, mech, empty, "--column", "x", *extra)
    assert_one_line_error(run)
    assert "empty" in run.err and "internal error" not in run.err
    assert not (tmp_path / "r.csv").exists()


def test_a_missing_value_in_a_parquet_integer_column_is_named_at_its_row(cli, mech, tmp_path) -> None:
    data = tmp_path / "d.parquet"
    pd.DataFrame({"x": pd.Series([0, 1, 2, None, 1], dtype="Int64")}).to_parquet(data)
    run = cli("randomize", mech, data, "--column", "x", "--seed", "1", "--out", tmp_path / "r.csv")
    assert_one_line_error(run)
    assert "row 4 " in run.err and "an empty value" in run.err  # not row 1 holding '0.0'
    full = tmp_path / "f.parquet"
    pd.DataFrame({"x": pd.Series([0, 1, 2, 1], dtype="Int64")}).to_parquet(full)
    assert cli("randomize", mech, full, "--column", "x", "--seed", "1", "--out", tmp_path / "r.csv").code == 0


def test_labels_that_read_the_same_in_a_data_file_are_refused_not_merged(cli, tmp_path) -> None:
    from mechopt import Mechanism

    mech = tmp_path / "m.json"
    Mechanism(Q3, inputs=[1, "1", 2]).save(mech)  # distinct labels, one text: a CSV "1" could be either
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n2\n")
    run = cli("randomize", mech, data, "--column", "x", "--seed", "1", "--out", tmp_path / "r.csv")
    assert_one_line_error(run)
    assert "'1'" in run.err and "same text" in run.err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.parametrize("verb", ["randomize", "estimate"])
def test_a_column_name_used_twice_is_refused_naming_it(cli, mech, tmp_path, verb) -> None:
    data = tmp_path / "dup.csv"
    data.write_text("x,x\n0,2\n2,0\n1,1\n")
    out = tmp_path / "r.csv"
    extra = ["--seed", "1", "--out", out] if verb == "randomize" else []
    run = cli(verb, mech, data, "--column", "x", *extra)
    assert_one_line_error(run)
    assert "2 columns named 'x' (columns 1, 2)" in run.err
    assert not out.exists()
    run = cli(verb, mech, data, "--column", "x.1", *extra)  # pandas' name for the second: not in the file
    assert_one_line_error(run)
    assert "no column 'x.1'; columns: x, x" in run.err
    data.write_text("x,y,y\n0,2,2\n2,0,0\n")  # another name repeated: the asked column is still one column
    run = cli(verb, mech, data, "--column", "x", *extra)
    assert run.code == 0, run.err


@pytest.mark.parametrize("verb", ["randomize", "estimate"])
def test_a_parquet_column_name_used_twice_is_refused_naming_it(cli, mech, tmp_path, verb) -> None:
    """A Parquet file may repeat a column name (pyarrow writes it); the CSV check did not reach Parquet, and
    ``--column x`` read the first of the two in silence (exit 0, estimates of the wrong column)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data, out = tmp_path / "dup.parquet", tmp_path / "r.csv"
    first, second = pa.array(["0", "1", "2"]), pa.array(["2", "2", "2"])
    pq.write_table(pa.Table.from_arrays([first, pa.array(["1", "0", "1"]), second], names=["x", "y", "x"]), data)
    extra = ["--seed", "1", "--out", out] if verb == "randomize" else []
    run = cli(verb, mech, data, "--column", "x", *extra)
    assert_one_line_error(run)
    assert "'x' (columns 1, 3)" in run.err and "rename them" in run.err
    assert not out.exists()
    run = cli(verb, mech, data, "--column", "y", *extra)  # another name repeated: the asked column is one column
    assert run.code == 0, run.err
