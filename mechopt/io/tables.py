"""One column of a CSV or Parquet file, read in chunks and written safely (the ``data`` extra: pandas, pyarrow).

:func:`read_column` yields the column as strings, ``rows`` at a time, with the
row number of each chunk's first value (0 = the first data row). A
:class:`ColumnWriter` streams string chunks through :mod:`mechopt.io.writer`
(a private temporary beside the target, renamed over it only when
:meth:`ColumnWriter.commit` runs; a device or FIFO written through): an error or
an interrupt leaves no half-written file (the temporary is removed). The format
follows the extension: ``.csv`` or ``.parquet``.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> with ColumnWriter(os.path.join(d, "r.csv"), "y") as w:
...     w.write(["a", "b"]); w.commit()
>>> [(s, list(v)) for s, v in read_column(os.path.join(d, "r.csv"), "y", rows=1)]
[(0, ['a']), (1, ['b'])]
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError, ProblemError

__all__ = ["read_column", "count_rows", "ColumnWriter", "FORMATS", "table_format"]

FORMATS = (".csv", ".parquet")


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ParamError("reading and writing data files needs pandas: pip install 'mechopt[data]'") from None
    return pandas


def table_format(path: str | os.PathLike) -> str:
    """``.csv`` or ``.parquet`` from the file name; ParamError otherwise.

    >>> table_format("x.PARQUET")
    '.parquet'
    """
    ext = Path(path).suffix.lower()
    if ext not in FORMATS:
        raise ParamError(f"{str(path)!r}: the data file must end in .csv or .parquet, got {ext or 'no extension'!r}")
    return ext


def count_rows(path: str | os.PathLike) -> int | None:
    """Data rows of a Parquet file (its metadata) or of a CSV file (lines after the header); None if unknown."""
    if table_format(path) == ".parquet":
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    lines, last = 0, b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(1 << 24):
            lines += block.count(b"\n")
            last = block[-1:]
    return max(lines + (last != b"\n") - 1, 0)


def _check_column(path: str | os.PathLike, column: str, names: Sequence[str]) -> None:
    """Refuse a ``column`` missing from the file's column ``names`` or named more than once in them.

    >>> _check_column("d.parquet", "x", ["x", "y", "x"])
    Traceback (most recent call last):
    ...
    mechopt.errors.ProblemError: 'd.parquet' has 2 columns named 'x' (columns 1, 3): rename them ...ed once
    """
    if column not in names:
        raise ProblemError(f"{str(path)!r} has no column {column!r}; columns: {', '.join(names)}")
    if names.count(column) > 1:
        where = ", ".join(str(i + 1) for i, h in enumerate(names) if h == column)
        raise ProblemError(
            f"{str(path)!r} has {names.count(column)} columns named {column!r} (columns {where}): "
            "rename them so that each name is used once"
        )


def read_column(path: str | os.PathLike, column: str, rows: int) -> Iterator[tuple[int, Any]]:
    """(first row number, values as str with None for missing) for each chunk of ``rows`` rows of ``column``."""
    pd = _pandas()
    if not Path(path).is_file():
        raise ProblemError(f"{str(path)!r}: no such data file")
    if table_format(path) == ".parquet":
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        _check_column(path, column, pf.schema_arrow.names)
        start = 0
        for batch in pf.iter_batches(batch_size=rows, columns=[column]):
            # Python values: an integer beside a null stays "1" (pandas would make it "1.0"), a null is None
            values = [None if v is None or v != v else str(v) for v in batch.column(0).to_pylist()]
            yield start, values
            start += len(values)
        return
    try:  # the header line as written: pandas renames a repeated name ("x", "x" -> "x", "x.1")
        header = [str(h) for h in pd.read_csv(path, nrows=1, header=None, dtype=str, keep_default_na=False).iloc[0]]
    except pd.errors.EmptyDataError:
        raise ProblemError(
            f"{str(path)!r} is empty: a CSV data file starts with a header line naming its columns"
        ) from None
    _check_column(path, column, header)
    start = 0
    for chunk in pd.read_csv(path, usecols=[column], dtype=str, keep_default_na=False, chunksize=rows):
        values = chunk[column]
        yield start, values.where(values != "", None)
        start += len(values)


class ColumnWriter:
    """Write one string column to ``path`` (.csv or .parquet) through :class:`mechopt.io.writer.Output`
    (a private temporary beside the target, or a device or FIFO written through); :meth:`commit` publishes it."""

    def __init__(self, path: str | os.PathLike, column: str) -> None:
        from mechopt.io.writer import Output

        self.path, self.column, self.fmt = Path(path), column, table_format(path)
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not parent.is_dir():
            raise ProblemError(f"cannot write {str(self.path)!r}: no directory {str(parent)!r}")
        self._out = Output(self.path).open()
        self._writer: Any = None
        self._file: Any = None
        self.rows = 0

    def write(self, values: Sequence[Any]) -> None:
        """Append a chunk of values (written as strings)."""
        pd = _pandas()
        frame = pd.DataFrame({self.column: pd.Series(values, dtype=object).map(str)})
        if self.fmt == ".csv":
            self._out.write(frame.to_csv(index=False, header=self.rows == 0).encode("utf-8"))
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(frame, preserve_index=False)
            if self._writer is None:
                self._file = os.fdopen(os.dup(self._out.fd), "wb")
                self._writer = pq.ParquetWriter(self._file, table.schema)
            self._writer.write_table(table)
        self.rows += len(frame)

    def commit(self) -> None:
        """Finish the file and publish it over the target (the only moment the target changes)."""
        if self.rows == 0:
            self.write([])
        self._close()
        self._out.close(publish=True)

    def _close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> ColumnWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self._close()
        finally:
            self._out.close()  # an unpublished temporary is removed
