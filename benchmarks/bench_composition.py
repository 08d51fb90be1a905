"""Accounting for repeated use: δ(ε) after k uses, exact multinomial sum vs dp_accounting's pessimistic PLD.

``ours`` = :func:`mechopt.deploy.compose` with ``method="exact"`` (log-space multinomial
sum over count vectors); the reference is the same call with ``method="accountant"``:
Google's ``dp_accounting`` privacy-loss distribution, losses rounded up to 1e-4 nats,
self-composed by FFT (its ``get_delta_for_epsilon`` loops over the composed grid in
Python). Both at ε = k·ε₀/2; the note gives both δ (the accountant's is the larger).
Cases: GRR (d = 4, ε₀ = 1) at k = 10 and 100 (quick: 10), and a random dense 5 × 5
channel (20 ordered pairs) at k = 3.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.deploy import compose
from mechopt.jobs.bench import median_time
from mechopt.oracles import GRR


def _row(name: str, mech: Any, k: int) -> dict[str, Any]:
    eps = 0.5 * k * compose(mech, uses=1, eps=0.0).eps_ldp
    exact = compose(mech, uses=k, eps=eps, method="exact")
    acc = compose(mech, uses=k, eps=eps, method="accountant")
    t_exact = median_time(lambda: compose(mech, uses=k, eps=eps, method="exact"), 1)
    t_acc = median_time(lambda: compose(mech, uses=k, eps=eps, method="accountant"), 1)
    return {
        "group": "composition",
        "case": f"{name} k={k} eps={eps:.3g}",
        "ours": "exact multinomial sum",
        "ours_s": t_exact,
        "reference": "dp_accounting PLD (pessimistic, 1e-4)",
        "reference_s": t_acc,
        "repeats": 1,
        "notes": f"delta exact {exact.delta[0, 0]:.6e}, accountant {acc.delta[0, 0]:.6e}",
    }


def case_composition(quick: bool = False) -> list[dict[str, Any]]:
    """Exact vs accountant on GRR and on a random channel."""
    rng = np.random.default_rng(0)
    Q = rng.dirichlet(np.ones(5), size=5) + 0.02
    Q /= Q.sum(axis=1, keepdims=True)
    rows = [_row("GRR d=4 eps0=1", GRR(4, 1.0), 10)]
    if not quick:
        rows += [_row("GRR d=4 eps0=1", GRR(4, 1.0), 100), _row("random 5x5", Q, 3)]
    return rows


CASES = [case_composition]
