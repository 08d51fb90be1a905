"""``mechopt compare``: the table (:mod:`.table`), running its rows (:mod:`.rows`) and drawing them (:mod:`.plot`)."""

from mechopt.jobs.compare.plot import plot_compare
from mechopt.jobs.compare.rows import can_isolate, hard_deadline
from mechopt.jobs.compare.table import DEFAULT_TIME_LIMIT, ROW_FIELDS, compare
from mechopt.jobs.flags import flag_rows

__all__ = ["compare", "flag_rows", "plot_compare", "hard_deadline", "can_isolate", "ROW_FIELDS", "DEFAULT_TIME_LIMIT"]
