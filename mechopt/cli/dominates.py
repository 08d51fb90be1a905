"""``mechopt dominates Q1 Q2 [--prior P] [--json]``: is Q2 a garbling of Q1, with a witness.

Both mechanisms are read like ``mechopt audit`` reads one
(:func:`mechopt.io.mechfile.read_mechanism`: JSON, ``.npy`` or ``.csv``, rows are inputs) and
compared in exact arithmetic (:func:`mechopt.dominance.blackwell.dominates`): the decimals of a JSON
or CSV file are taken exactly (``0.1`` is 1/10), a ``.npy`` file's floats as their binary values.

Exit codes: 0 Q1 dominates Q2 (Q2 = Q1·R; the garbling R is the witness, exact or within the
``garbling`` tolerance, which the output says); 1 it does not (the witness is a gain under which
Q2 has a strictly larger Bayes expected gain, checked exactly); 2 bad input (unreadable file,
different numbers of inputs, rows that are not probability vectors). ``--json`` prints
:meth:`mechopt.dominance.blackwell.Dominance.to_dict` plus ``"inputs"`` and ``"outputs"``: exact
numbers as ``"p/q"`` text next to their floats.

Examples
--------
>>> import json, os, tempfile
>>> folder = tempfile.mkdtemp()
>>> for name, Q in (("a", [[1, 0], [0, 1]]), ("b", [[0.75, 0.25], [0.25, 0.75]])):
...     with open(os.path.join(folder, name + ".json"), "w") as fh:
...         _ = fh.write(json.dumps({"Q": Q}))
>>> from mechopt.cli import main
>>> main(["dominates", os.path.join(folder, "a.json"), os.path.join(folder, "b.json")])
Q1 dominates Q2: Q2 = Q1·R exactly (verified in rational arithmetic)
R (2 x 2), rows: outputs of Q1, columns: outputs of Q2:
  3/4  1/4
  1/4  3/4
0
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run_dominates"]

#: Largest R or gain printed as a matrix in the text output (--json always carries it).
PRINT_MAX = 12


def register(sub: Any) -> None:
    p = sub.add_parser(
        "dominates",
        help="is Q2 a garbling Q1·R of Q1 (Blackwell)? exit 0 yes (witness R), 1 no (a separating gain)",
        description="Decide whether mechanism Q1 dominates Q2 (Q2 = Q1·R for a row-stochastic R). Yes: "
        "exit 0 with R, checked in exact rational arithmetic. No: exit 1 with a gain function under "
        "which Q2's Bayes expected gain is strictly larger, checked exactly. Bad input: exit 2.",
    )
    p.add_argument("q1", metavar="Q1", help="mechanism file (.json, .npy, .csv; rows are inputs)")
    p.add_argument("q2", metavar="Q2", help="mechanism file with the same inputs (rows)")
    p.add_argument("--prior", metavar="P", help="prior of the separating gain (default uniform): 0.2,0.8 or uniform:d")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run_dominates)


def _exact(path: str) -> Any:
    from mechopt.io.mechfile import read_exact_entries, read_mechanism

    read_mechanism(path)  # validates the file: shape, finite, row-stochastic
    return read_exact_entries(path)


def run_dominates(args: argparse.Namespace) -> int:
    from mechopt.cli._common import emit_json
    from mechopt.dominance.blackwell import dominates
    from mechopt.model.priors import parse_prior

    Q1, Q2 = _exact(args.q1), _exact(args.q2)
    prior = None if args.prior is None else parse_prior(args.prior)
    r = dominates(Q1, Q2, prior=prior)
    if args.json:
        emit_json({**r.to_dict(), "inputs": len(Q1), "outputs": [len(Q1[0]), len(Q2[0])]})
    else:
        print("\n".join(_lines(r)))
    return 0 if r.dominates else 1


def _lines(r: Any) -> list[str]:
    from mechopt.dominance.rational import text

    if r.dominates:
        how = (
            "exactly (verified in rational arithmetic)"
            if r.exact
            else f"within tolerance: exact residual {float(r.residual):.3g} <= {r.tolerance:g}"
        )
        out = [f"Q1 dominates Q2: Q2 = Q1·R {how}"]
        M, caption = r.R, "R ({} x {}), rows: outputs of Q1, columns: outputs of Q2:"
    else:
        out = [
            "Q1 does not dominate Q2: under the gain G below Q2 is strictly better "
            f"(Bayes expected gain {float(r.v2)} > {float(r.v1)}, margin {float(r.margin):.3g}, exact)"
        ]
        M, caption = r.gain, "G ({} x {}), rows: inputs, columns: actions (values in [0, 1]):"
    if len(M) <= PRINT_MAX and len(M[0]) <= PRINT_MAX:
        out.append(caption.format(len(M), len(M[0])))
        cells = [[text(v) for v in row] for row in M]
        width = max(len(c) for row in cells for c in row)
        out += ["  " + "  ".join(c.rjust(width) for c in row) for row in cells]
    else:
        out.append(caption.format(len(M), len(M[0])).split(",")[0] + ": too large to print, see --json")
    if r.note:
        out.append(f"note: {r.note}")
    return out
