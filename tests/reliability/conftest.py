"""Shared settings of the reliability tests (issue 11, parts 2, 3, 4 and 6).

Hypothesis budgets: every property runs ``FAST`` examples in the default suite
and ``SLOW`` (≥ 1000) examples in its ``@pytest.mark.slow`` twin
(``python -m pytest -m slow tests/reliability/test_properties.py``).
``MECHOPT_PROPERTY_EXAMPLES`` overrides the default budget (e.g. for a local
deep run without the slow marker). The default suite's examples are derandomized
(fixed per test); the slow twins draw new ones on every run.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FAST = int(os.environ.get("MECHOPT_PROPERTY_EXAMPLES", "25"))
SLOW = 1000

_COMMON = dict(
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
# The default suite's examples are derandomized (the same examples on every run and machine: a CI result is
# reproducible); the slow twins explore fresh random examples on every run.
settings.register_profile("mechopt-fast", max_examples=FAST, derandomize=True, **_COMMON)
settings.register_profile("mechopt-slow", max_examples=SLOW, derandomize=False, **_COMMON)
