"""``mechopt compare``: the table, running its rows and drawing them.

Modules: :mod:`~mechopt.jobs.compare.table`, :mod:`~mechopt.jobs.compare.rows`,
:mod:`~mechopt.jobs.compare.plot`.
"""

from mechopt.jobs.compare.plot import plot_compare
from mechopt.jobs.compare.rows import can_isolate, hard_deadline
from mechopt.jobs.compare.table import DEFAULT_TIME_LIMIT, ROW_FIELDS, compare
from mechopt.jobs.flags import flag_rows

__all__ = ["compare", "flag_rows", "plot_compare", "hard_deadline", "can_isolate", "ROW_FIELDS", "DEFAULT_TIME_LIMIT"]
