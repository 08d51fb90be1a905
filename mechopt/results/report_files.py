"""Write a privacy report (:func:`mechopt.results.report.privacy_report`) as JSON, a PNG page or a one-page HTML.

The format follows the file name's suffix: ``.json``, ``.png`` or ``.html``
(the HTML is self-contained: the PNG is embedded as base64). Files are written
by :mod:`mechopt.io.writer`: on any failure the target is untouched and no
temporary file is left behind; a device or FIFO is written through. The figure is a
:class:`matplotlib.figure.Figure` (no pyplot, no backend change).

Examples
--------
>>> import numpy as np, tempfile, os
>>> from mechopt.results.report import privacy_report
>>> from mechopt.results.report_files import write_report
>>> rep = privacy_report(np.array([[0.75, 0.25], [0.25, 0.75]]))
>>> path = os.path.join(tempfile.mkdtemp(), "r.html")
>>> write_report(rep, path).name
'r.html'
>>> "data:image/png;base64," in open(path).read()
True
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError
from mechopt.io.writer import write_bytes, write_text
from mechopt.results.result import jsonable

__all__ = ["write_report", "report_figure", "report_html", "REPORT_SUFFIXES", "MEASURES", "measure_value"]

REPORT_SUFFIXES = (".json", ".html", ".png")


def _num(v: Any, digits: int = 6) -> str:
    return "∞" if v is None else f"{float(v):.{digits}g}"


#: The report's scalar measures (nats): a label and the path of the value in the report's dict.
MEASURES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ε-LDP (smallest ε)", ("notions", "ldp", "eps")),
    ("ε-LIP (smallest ε)", ("notions", "lip", "eps")),
    ("ε-MIP (smallest ε = I(X;Y))", ("notions", "mip", "eps")),
    ("maximal leakage", ("maximal_leakage",)),
    ("mutual information I(X;Y)", ("mutual_information",)),
    ("Bayes vulnerability of the prior", ("bayes", "prior_vulnerability")),
    ("attacker success rate (one guess)", ("bayes", "attacker_success")),
    ("multiplicative leakage", ("bayes", "multiplicative_leakage")),
    ("min-entropy leakage", ("bayes", "min_entropy_leakage")),
)


def measure_value(rep: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at ``path`` in the report (None: an infinite ε).

    >>> measure_value({"bayes": {"attacker_success": 0.5}}, ("bayes", "attacker_success"))
    0.5
    """
    for key in path:
        rep = rep[key]
    return rep


def measure_rows(rep: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs of the report's scalar measures, in nats."""
    return [(label, _num(measure_value(rep, path))) for label, path in MEASURES]


def report_figure(rep: dict[str, Any], Q: Any = None) -> Any:
    """A one-page :class:`~matplotlib.figure.Figure`: δ(ε) profile, the measures and (given ``Q``) a heat map."""
    import numpy as np

    from mechopt.runtime.optional import require

    Figure = require("matplotlib.figure", "plot", "plots").Figure
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 3 if Q is not None else 2, width_ratios=[1.2, 1.1, 1] if Q is not None else [1.2, 1.1])
    ax = axes[0]
    hs = rep["hockey_stick"]
    ax.plot(hs["eps"], hs["delta"], marker=".", color="C0")
    if rep["notions"]["ldp"]["eps"] is not None:
        ax.axvline(rep["notions"]["ldp"]["eps"], color="C3", ls="--", lw=1, label="ε-LDP (δ = 0 from here)")
        ax.legend(loc="upper right", fontsize=8)
    ax.set(xlabel="ε (nats)", ylabel="δ(ε)", title="(ε, δ)-LDP profile: smallest δ", ylim=(-0.02, 1.02))
    ax.grid(alpha=0.3)
    tab = axes[1]
    tab.axis("off")
    tab.set_title(f"{rep['inputs']} × {rep['outputs']}, prior {rep['prior_source']}", fontsize=9)
    t = tab.table(
        cellText=[[k, v] for k, v in measure_rows(rep)],
        colLabels=["measure (nats)", "value"],
        loc="center",
        cellLoc="left",
        colLoc="left",
        colWidths=[0.78, 0.32],
    )
    t.auto_set_font_size(False)
    t.set_fontsize(8)
    t.scale(1.0, 1.3)
    if Q is not None:
        im = axes[2].imshow(np.asarray(Q, float), aspect="auto", cmap="viridis", interpolation="nearest")
        axes[2].set(xlabel="output y", ylabel="input x", title="Q[x, y]")
        fig.colorbar(im, ax=axes[2], shrink=0.8)
    return fig


def _png_bytes(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def report_html(rep: dict[str, Any], png: bytes, title: str = "privacy report") -> str:
    """A self-contained HTML page: the measures, the δ(ε) table and the embedded PNG."""
    esc = html.escape
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in measure_rows(rep))
    hs = rep["hockey_stick"]
    prof = "".join(f"<tr><td>{e:.4g}</td><td>{d:.6g}</td></tr>" for e, d in zip(hs["eps"], hs["delta"]))
    img = base64.b64encode(png).decode("ascii")
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{esc(title)}</title>'
        "<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto}td,th{padding:2px 10px;"
        "text-align:left}table{border-collapse:collapse}tr:nth-child(even){background:#f3f3f3}</style>"
        f"</head><body><h1>{esc(title)}</h1>"
        f"<p>{rep['inputs']} inputs × {rep['outputs']} outputs; prior: {esc(rep['prior_source'])}; "
        "all measures in nats; ∞ = no finite ε.</p>"
        f'<img alt="privacy report figure" src="data:image/png;base64,{img}" style="width:100%">'
        f"<h2>Measures</h2><table><tr><th>measure</th><th>value</th></tr>{rows}</table>"
        "<h2>(ε, δ)-LDP profile</h2><p>δ(ε) = max over input pairs x ≠ x' of "
        "Σ<sub>y</sub> max(0, Q[x,y] − e<sup>ε</sup> Q[x',y]).</p>"
        f"<table><tr><th>ε</th><th>δ(ε)</th></tr>{prof}</table></body></html>\n"
    )


def write_report(rep: dict[str, Any], path: str | os.PathLike, Q: Any = None, title: str = "privacy report") -> Path:
    """Write ``rep`` to ``path`` as JSON, PNG or HTML (by suffix) with :mod:`mechopt.io.writer`; return the path."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in REPORT_SUFFIXES:
        raise ParamError(
            f"--report {str(p)!r}: unknown format {suffix or '(no suffix)'!r}; end the name in .json, .html or .png"
        )
    if suffix == ".json":
        write_text(p, json.dumps(jsonable(rep), indent=1, allow_nan=False) + "\n")
        return p
    png = _png_bytes(report_figure(rep, Q))
    if suffix == ".png":
        write_bytes(p, png)
    else:
        write_text(p, report_html(rep, png, title))
    return p
