"""The notebook view of a :class:`~mechopt.results.result.Result` (``Result._repr_html_``).

Examples
--------
>>> from mechopt.results.result import PROOFS, Result
>>> r = Result(status="optimal", value=0.1875, sense="min", objective="mse", proof="theorem",
...            mechanism=[[0.75, 0.25], [0.25, 0.75]], unit="squared units of the values")
>>> html = result_html(r, PROOFS)
>>> "0.1875 squared units of the values" in html, html.count("<tr>") >= 3
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from mechopt.model._mechanism import _channel_matrix

__all__ = ["result_html", "heatmap_img", "png_img", "MAX_TABLE"]

#: Largest number of inputs and outputs for which the notebook view prints Q as a table.
MAX_TABLE = 16


def _num(v: Any, digits: int = 6) -> str:
    return "–" if v is None else f"{v:.{digits}g}"


def png_img(fig: Any, alt: str, dpi: int = 110) -> str:
    """An ``<img>`` holding the figure as an inline base64 PNG (a page that opens from disk, no files beside it).

    >>> from matplotlib.figure import Figure
    >>> png_img(Figure(figsize=(1, 1)), "empty <fig>")[:61]
    '<img alt="empty &lt;fig&gt;" src="data:image/png;base64,iVBOR'
    """
    import base64
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}" style="max-width:100%">'


def heatmap_img(Q: Any) -> str:
    """The heat map of Q (rows: input index x, columns: output index y) as an inline PNG ``<img>``.

    Needs matplotlib (``mechopt[plot]``); the figure is a :class:`matplotlib.figure.Figure` (no pyplot).

    >>> heatmap_img([[0.75, 0.25], [0.25, 0.75]]).startswith('<img alt="heat map of Q')
    True
    """
    import numpy as np

    from mechopt.runtime.optional import require

    M = np.asarray(Q, dtype=float)
    fig = require("matplotlib.figure", "plot", "plots").Figure(figsize=(5.5, 4.2), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(M, aspect="auto", cmap="viridis", interpolation="nearest", vmin=0.0)
    ax.set(xlabel="output index y", ylabel="input index x", title="Q[x, y] = P(Y=y | X=x)")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(require("matplotlib.ticker", "plot", "plots").MaxNLocator(integer=True))
    fig.colorbar(im, ax=ax, shrink=0.85)
    return png_img(fig, f"heat map of Q, {M.shape[0]} inputs x {M.shape[1]} outputs")


def result_html(res: Any, proofs: Mapping[str, str]) -> str:
    """Status, value with its unit, proof or certificate, privacy audit and (d ≤ 16) a Q table.

    ``res`` is a :class:`~mechopt.results.result.Result` and ``proofs`` its
    :data:`~mechopt.results.result.PROOFS` (passed in: this view sits below ``result``,
    which calls it from ``Result._repr_html_``).
    """
    unit = f" {escape(res.unit)}" if res.unit else ""
    sense = "minimised" if res.sense == "min" else "maximised"
    if res.proof is not None:
        proof = f"{escape(res.proof)}: {escape(proofs.get(res.proof, ''))}"
    else:
        proof = "none (not proven optimal)"
    cert = (
        "none (this method gives no bound)"
        if res.certificate is None
        else f"bound {_num(res.certificate.bound, 10)}{unit}, gap {_num(res.certificate.gap, 3)}"
    )
    rows = [
        ("status", escape(res.status.value)),
        ("value", f"{_num(res.value, 10)}{unit} ({escape(res.objective)}, {sense})"),
        ("proof", proof),
        ("certificate", cert),
        (
            "privacy",
            f"{escape(str(res.notion or '–'))} ε={_num(res.eps)}"
            + ("" if res.eps_lower is None else f", ε_l={_num(res.eps_lower)}")
            + f"; audited ε={_num(res.eps_audited)}, "
            f"violation {_num(res.violation, 3)}",
        ),
        ("solver", f"{escape(res.solver or '–')} in {res.time_s:.3g} s"),
    ]
    if res.message:
        rows.append(("message", escape(res.message)))
    body = "".join(
        f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>" for k, v in rows
    )
    html = f"<div class='mechopt-result'><table>{body}</table>"
    Q = _channel_matrix(res.mechanism)
    if Q is not None and max(Q.shape) <= MAX_TABLE:
        head = "".join(f"<th>y={j}</th>" for j in range(Q.shape[1]))
        cells = "".join(
            f"<tr><th>x={i}</th>" + "".join(f"<td>{v:.4f}</td>" for v in row) + "</tr>" for i, row in enumerate(Q)
        )
        html += (
            f"<p>Q[x, y] = P(Y=y | X=x), {Q.shape[0]} inputs × {Q.shape[1]} outputs</p>"
            f"<table><tr><th></th>{head}</tr>{cells}</table>"
        )
    elif Q is not None:
        html += f"<p>Q: {Q.shape[0]} inputs × {Q.shape[1]} outputs (too large for a table; result.Q)</p>"
        html += _heatmap_or_nothing(Q)
    elif res.mechanism is not None:
        html += f"<p>mechanism: {escape(type(res.mechanism).__name__)} (result.mechanism)</p>"
    return html + "</div>"


def _heatmap_or_nothing(Q: Any) -> str:
    """The heat map of a Q too large for a table, or nothing without matplotlib (a notebook view never fails)."""
    from mechopt.errors import MissingDependency

    try:
        return heatmap_img(Q)
    except MissingDependency:
        return ""
