"""Labels of a mechanism's inputs and outputs: values to row indices and indices back, container kind kept.

Values come as a numpy array, a list (or any sequence), or a pandas Series
(categorical or not; pandas is only touched when given a Series). They are
mapped to indices 0..d−1 by label equality, vectorised (a sorted lookup with
``searchsorted``, pandas' hash index for a Series); a value that is no label
raises :class:`~mechopt.errors.ProblemError` naming its position. Indices go
back to labels in the container the values came in: an array, a list, or a
Series with the same index and name (categorical when the values were).

Examples
--------
>>> import numpy as np
>>> from mechopt.mechanism.labels import Labels
>>> lab = Labels(("a", "b", "c"), "inputs")
>>> idx, kind = lab.encode(["c", "a", "c"])
>>> idx.tolist(), kind.name
([2, 0, 2], 'list')
>>> Labels(("no", "yes"), "outputs").decode(np.array([1, 0]), kind)
['yes', 'no']
>>> lab.encode(np.array(["a", "z"]))
Traceback (most recent call last):
...
mechopt.errors.ProblemError: value 'z' at position 1 is not one of the 3 inputs ('a', 'b', 'c'): ...
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.mechanism.sampling import in_range

__all__ = ["Labels", "Container", "clean_labels", "chunks"]


def clean_labels(labels: Any, size: int, what: str) -> tuple[Any, ...]:
    """``labels`` as a tuple of plain Python scalars (default 0..size−1), checked: ``size`` of them, distinct.

    >>> clean_labels(None, 3, "inputs"), clean_labels(np.array([2, 5]), 2, "outputs")
    ((0, 1, 2), (2, 5))
    """
    if labels is None:
        return tuple(range(size))
    if isinstance(labels, (str, bytes)):
        raise ProblemError(f"{what} labels must be a sequence of labels, got the string {labels!r}")
    out = tuple(v.item() if isinstance(v, np.generic) else v for v in labels)
    if len(out) != size:
        raise ProblemError(f"{len(out)} {what} labels for {size} {what}: give one label per {what[:-1]}")
    try:
        distinct = len(set(out)) == len(out)
    except TypeError:
        raise ProblemError(f"{what} labels must be hashable (numbers or strings)") from None
    if not distinct:
        seen: set[Any] = set()
        dup = next(v for v in out if v in seen or seen.add(v))  # type: ignore[func-returns-value]
        raise ProblemError(f"{what} label {dup!r} appears twice: labels must be distinct")
    return out


@dataclass(frozen=True)
class Container:
    """How values came in, to give reports back the same way: ``numpy``, ``list`` or ``series``."""

    name: str
    series: Any = None  # the pandas Series the values came in (index, name, categorical or not)


class Labels:
    """A tuple of distinct labels and their vectorised lookup.

    Parameters
    ----------
    labels : tuple
        Distinct, hashable labels (:func:`clean_labels`).
    what : str
        ``"inputs"`` or ``"outputs"`` (for messages).
    """

    def __init__(self, labels: tuple[Any, ...], what: str) -> None:
        self.labels = labels
        self.what = what
        self.is_range = labels == tuple(range(len(labels)))
        self._array: np.ndarray | None = None
        self._offset = 0

    @property
    def array(self) -> np.ndarray:
        """The labels as a numpy array (object dtype when their types are mixed)."""
        if self._array is None:
            kinds = {type(v) for v in self.labels}
            if all(issubclass(t, (int, float, np.number)) and not issubclass(t, bool) for t in kinds) or kinds == {str}:
                self._array = np.asarray(self.labels)
            else:
                self._array = np.empty(len(self.labels), dtype=object)
                self._array[:] = self.labels
        return self._array

    def encode(self, values: Any, offset: int = 0) -> tuple[np.ndarray, Container]:
        """Indices (an integer array) of ``values`` and the container they came in.

        ``offset`` is added to the position an error names (the values are a chunk starting there).
        """
        self._offset = offset
        if _is_series(values):
            return self._encode_series(values), Container("series", values)
        kind = "numpy" if isinstance(values, np.ndarray) else "list"
        if isinstance(values, (str, bytes, dict)) or np.isscalar(values):
            raise ProblemError(
                f"values must be a sequence of {self.what} (an array, a list or a pandas Series), "
                f"got {type(values).__name__}"
            )
        arr = values if isinstance(values, np.ndarray) else _as_array(values, self.array.dtype == object)
        if arr.ndim != 1:
            raise ProblemError(f"values must be one-dimensional, got shape {arr.shape}")
        return self._encode_array(arr), Container(kind)

    def _encode_array(self, arr: np.ndarray) -> np.ndarray:
        d = len(self.labels)
        if self.is_range and arr.dtype.kind in "iu":  # indices already: check the range only
            if not in_range(arr, d):
                self._refuse(arr, (arr < 0) | (arr >= d))
            return arr
        lab = self.array
        if lab.dtype != object and arr.dtype != object and _comparable(lab.dtype, arr.dtype):
            order = np.argsort(lab, kind="stable")
            ranked = lab[order]
            pos = np.minimum(np.searchsorted(ranked, arr), d - 1)
            bad = ranked[pos] != arr
            if np.any(bad):
                self._refuse(arr, bad)
            return order[pos]
        lookup = {v: i for i, v in enumerate(self.labels)}
        idx = np.fromiter((lookup.get(_plain(v), -1) for v in arr.tolist()), dtype=np.intp, count=arr.size)
        if np.any(idx < 0):
            self._refuse(arr, idx < 0)
        return idx

    def _encode_series(self, s: Any) -> np.ndarray:
        import pandas as pd

        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy()
            cats = self._encode_categories(s)
            idx = np.where(codes >= 0, cats[np.maximum(codes, 0)], -1)
        elif self.is_range and s.dtype.kind in "iu":
            return self._encode_array(s.to_numpy())
        else:
            idx = pd.Index(self.labels, dtype=object if self.array.dtype == object else None).get_indexer(s)
        if np.any(idx < 0):
            self._refuse(s.to_numpy(dtype=object), idx < 0, index=s.index)
        return idx

    def _encode_categories(self, s: Any) -> np.ndarray:
        """Label indices of the categories of a categorical Series (−1 for a category that is no label)."""
        cats = np.asarray(s.cat.categories, dtype=object)
        lookup = {v: i for i, v in enumerate(self.labels)}
        return np.array([lookup.get(_plain(c), -1) for c in cats], dtype=np.intp)

    def _refuse(self, values: np.ndarray, bad: np.ndarray, index: Any = None) -> None:
        where = np.flatnonzero(bad)
        i = int(where[0])
        at = f"position {i + self._offset}" + (f" (index {index[i]!r})" if index is not None else "")
        shown = ", ".join(repr(v) for v in self.labels[:6]) + (", ..." if len(self.labels) > 6 else "")
        v = _plain(values[i])
        missing = v is None or (isinstance(v, float) and v != v and not any(lab != lab for lab in self.labels))
        raise ProblemError(
            f"{'a missing value' if missing else f'value {v!r}'} at {at} is not one of the {len(self.labels)} "
            f"{self.what} ({shown}): map it to an {self.what[:-1]} label or drop it "
            f"({where.size} such value{'s' if where.size > 1 else ''})"
        )

    def decode(self, idx: np.ndarray, container: Container) -> Any:
        """Labels of the indices ``idx``, in the kind of ``container``."""
        if container.name == "series":
            import pandas as pd

            s = container.series
            if isinstance(s.dtype, pd.CategoricalDtype):
                data: Any = pd.Categorical.from_codes(idx, categories=pd.Index(self.labels, dtype=object))
            else:
                data = idx if self.is_range else self.array[idx]
            return pd.Series(data, index=s.index, name=s.name)
        out = idx if self.is_range else self.array[idx]
        return out if container.name == "numpy" else out.tolist()


def chunks(values: Any, size: int | None) -> Iterator[tuple[int, Any]]:
    """``(start, values[start:start + size])`` over the values (all at once when ``size`` is None).

    >>> [(s, list(p)) for s, p in chunks([1, 2, 3, 4, 5], 2)]
    [(0, [1, 2]), (2, [3, 4]), (4, [5])]
    """
    if size is None:
        yield 0, values
        return
    take = values.iloc if _is_series(values) else values
    for start in range(0, len(values), size):
        yield start, take[start : start + size]


def _is_series(values: Any) -> bool:
    mod = type(values).__module__
    return mod.startswith("pandas") and type(values).__name__ == "Series"


def _as_array(values: Any, mixed: bool) -> np.ndarray:
    """A 1-D array of the values: object dtype when the labels are of mixed types (no coercion to strings)."""
    try:
        if mixed:
            arr = np.empty(len(values), dtype=object)
            arr[:] = list(values)
            return arr
        return np.asarray(values)
    except (TypeError, ValueError):
        raise ProblemError("values must be a flat sequence of labels (one per report)") from None


def _comparable(a: np.dtype, b: np.dtype) -> bool:
    numeric = "biuf"
    return (a.kind in numeric and b.kind in numeric) or (a.kind in "US" and a.kind == b.kind)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
