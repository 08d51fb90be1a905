"""A mechanism's report card: one static, self-contained HTML page (and its JSON) built from a list of sections.

A section is a small function ``section(card) -> Section`` of a :class:`Card`
(the mechanism, the prior the prior-dependent measures use, its privacy report,
computed once, and free ``options`` such as a number of uses or of users for
sections that need them). A :class:`Section` carries a key, a title, its numbers
(``data``, JSON-ready) and its HTML body; :data:`SECTIONS` lists the default
ones in page order, and another section is one more function in that list. The
page and ``--json`` come from the same sections, so they show the same numbers:
every number on the page sits in an element with ``data-key`` (its path in the
JSON, dots between keys) and ``data-value`` (the number as JSON writes it,
``null`` for an infinite ε). Labels are escaped; figures are inline base64 PNGs
(matplotlib, ``mechopt[plot]``); the page has no script and needs no server.

Examples
--------
>>> from mechopt import Mechanism
>>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["no", "<b>yes</b>"], claim=("ldp", 1.1))
>>> doc = card_json(m)
>>> list(doc["sections"]), round(doc["sections"]["privacy"]["notions"]["ldp"]["eps"], 6)
(['mechanism', 'privacy', 'estimator', 'composition', 'shuffle', 'certificate'], 1.098612)
>>> page = card_html(m)
>>> "&lt;b&gt;yes&lt;/b&gt;" in page and "<b>yes" not in page
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.deploy.card_parts import Card, Section, num, rows_table
from mechopt.deploy.card_use import composition_section, shuffle_section
from mechopt.results._html import MAX_TABLE, heatmap_img, png_img
from mechopt.results._json import jsonable
from mechopt.results.report_files import MEASURES, measure_value

__all__ = [
    "Card",
    "Section",
    "SECTIONS",
    "card_sections",
    "card_json",
    "card_html",
    "write_card",
    "sections_json",
    "sections_html",
    "FORMAT",
]

FORMAT = "mechopt.card"


def _claim_eps(claim: dict[str, Any]) -> str:
    return "(none)" if claim["eps"] is None else num("mechanism.claim.eps", claim["eps"], 10)


def _labels(labels: Sequence[Any]) -> str:
    return ", ".join(f"{i}: <code>{escape(str(v))}</code>" for i, v in enumerate(labels))


# -- the sections ----------------------------------------------------------------------------------------------
def mechanism_section(card: Card) -> Section:
    """Shape, labels, privacy claim, provenance, the heat map of Q and (d, k ≤ 16) Q's entries."""
    m = card.mechanism
    d, k = m.shape
    data: dict[str, Any] = {"inputs": d, "outputs": k, "claim": m.claim}
    claim = m.claim
    rows = [
        ("inputs (index: label)", _labels(m.inputs)),
        ("outputs (index: label)", _labels(m.outputs)),
        ("privacy claim", "none" if claim is None else f"{escape(str(claim['notion']))} ε = {_claim_eps(claim)}"),
        ("provenance", escape(", ".join(f"{a}: {b}" for a, b in m.provenance.items()))),
    ]
    body = rows_table(rows) + heatmap_img(m.Q)
    if max(d, k) <= MAX_TABLE:
        data["Q"] = m.Q.tolist()
        head = "".join(f"<th>y={j}</th>" for j in range(k))
        cells = "".join(
            f"<tr><th>x={i}</th>"
            + "".join(f"<td>{num(f'mechanism.Q.{i}.{j}', v, 4)}</td>" for j, v in enumerate(r))
            + "</tr>"
            for i, r in enumerate(data["Q"])
        )
        body += f"<table class='q'><tr><th></th>{head}</tr>{cells}</table>"
    return Section("mechanism", f"Mechanism: {d} inputs × {k} outputs", data, body)


def privacy_section(card: Card) -> Section:
    """ε under LDP, LIP and MIP (the latter two under the card's prior), leakages, Bayes vulnerability, δ(ε)."""
    from mechopt.plot import new_axes

    rep = card.report
    data = {key: rep[key] for key in ("prior", "prior_source", "units", "notions", "maximal_leakage")}
    data.update({key: rep[key] for key in ("mutual_information", "bayes", "hockey_stick")})
    rows = [("prior", " ".join(num(f"privacy.prior.{i}", p, 4) for i, p in enumerate(rep["prior"])))]
    rows += [(escape(label), num("privacy." + ".".join(path), measure_value(rep, path))) for label, path in MEASURES]
    hs = rep["hockey_stick"]
    ax = new_axes(figsize=(5.5, 3.4))
    ax.plot(hs["eps"], hs["delta"], marker=".")
    ax.set(xlabel="ε (nats)", ylabel="δ(ε)", title="(ε, δ)-LDP: the smallest δ at each ε", ylim=(-0.02, 1.02))
    ax.grid(alpha=0.3)
    profile = "".join(
        f"<tr><td>{num(f'privacy.hockey_stick.eps.{i}', e, 4)}</td><td>{num(f'privacy.hockey_stick.delta.{i}', v)}</td>"
        "</tr>"
        for i, (e, v) in enumerate(zip(hs["eps"], hs["delta"]))
    )
    body = (
        f"<p>Prior of LIP, MIP, leakages and Bayes vulnerability: {escape(rep['prior_source'])}. "
        "All measures in nats; ∞: no finite ε.</p>"
        + rows_table(rows, ("measure", "value"))
        + png_img(ax.figure, "delta(eps) profile of LDP")
        + "<details><summary>δ(ε) table</summary><table><tr><th>ε</th><th>δ(ε)</th></tr>"
        + profile
        + "</table></details>"
    )
    return Section("privacy", "Privacy under every notion", data, body)


def estimator_section(card: Card) -> Section:
    """The linear (unbiased) estimator's per-report covariance at θ = the card's prior, or why it does not exist."""
    from mechopt.mechanism.estimators import linear_covariance

    m = card.mechanism
    theta = np.asarray(card.report["prior"], dtype=float)
    if not m.identifiable:
        groups = m.confounded()
        data = {"identifiable": False, "rank": m.rank, "confounded": jsonable(groups)}
        text = "; ".join("{" + ", ".join(escape(str(v)) for v in g) + "}" for g in groups)
        body = (
            f"<p>Not identifiable: Q has rank {m.rank} &lt; {m.shape[0]} inputs, so no unbiased linear estimator "
            f"exists. Inputs the reports cannot tell apart: {text}. Maximum likelihood (EM) still estimates "
            "a distribution, but not these inputs' shares.</p>"
        )
        return Section("estimator", "Estimator variance", data, body)
    cov = linear_covariance(np.asarray(m.Q), theta, 1)
    var = np.maximum(np.diag(cov), 0.0).tolist()
    data = {
        "identifiable": True,
        "theta_source": card.report["prior_source"],
        "variance": var,
        "total": float(sum(var)),
    }
    rows = [
        (f"<code>{escape(str(v))}</code>", num(f"estimator.variance.{i}", x))
        for i, (v, x) in enumerate(zip(m.inputs, var))
    ]
    rows.append(("total (n × expected squared error)", num("estimator.total", data["total"])))
    body = (
        "<p>Linear estimator θ̂ = (Qᵀ)⁺ f (unbiased; <code>Mechanism.estimate(method='linear')</code>): "
        "n · Var θ̂<sub>x</sub> = (R diag(λ) Rᵀ − diag θ)<sub>xx</sub> with λ = Qᵀθ, at θ = the prior "
        f"({escape(card.report['prior_source'])}). Divide by the number of reports n.</p>"
        + rows_table(rows, ("input", "n · Var θ̂ₓ"))
    )
    return Section("estimator", "Estimator variance", data, body)


def certificate_section(card: Card) -> Section:
    """The design's status and certificate (bound, gap, proof), and whether the audit confirms the claim."""
    m = card.mechanism
    cert = jsonable(m.certificate)
    claim = m.claim
    audit = None
    if claim is not None and claim.get("eps") is not None:  # under the design prior, as `mechopt audit` checks it
        prior, source = (m.prior, "the design prior") if m.prior is not None else (None, card.report["prior_source"])
        verdict = m.audit(prior=card.report["prior"] if prior is None else prior).get("claim")
        if verdict is not None and verdict["holds"] is not None:  # None: not checkable here (no verdict shown)
            audited, holds = verdict["eps_audited"], verdict["holds"]
            audit = {"notion": claim["notion"], "claimed": claim["eps"], "audited": audited, "holds": holds}
            audit["prior"] = source
    data = {"status": None if cert is None else cert.get("status"), "certificate": cert, "audit": audit}
    rows: list[tuple[str, str]] = []
    if cert is None:
        rows.append(("status", "no certificate: this mechanism does not come from a certified design"))
    else:
        for key, value in cert.items():
            shown = num(f"certificate.certificate.{key}", value, 10) if isinstance(value, float) else escape(str(value))
            rows.append((escape(key), shown))
    if audit is not None:
        verdict = "holds" if audit["holds"] else "FAILS"
        rows.append(
            (
                "audit of the claim",
                f"{escape(audit['notion'])}: claimed ε = {num('certificate.audit.claimed', audit['claimed'])}, "
                f"audited ε = {num('certificate.audit.audited', audit['audited'])}: {verdict}",
            )
        )
    return Section("certificate", "Certificate and status", data, rows_table(rows))


#: The default sections, in page order.
SECTIONS: list[Callable[[Card], Section]] = [
    mechanism_section,
    privacy_section,
    estimator_section,
    composition_section,
    shuffle_section,
    certificate_section,
]


# -- the card --------------------------------------------------------------------------------------------------
def card_sections(
    mech: Any, prior: Any = None, sections: Sequence[Callable[[Card], Section]] | None = None, **options: Any
) -> list[Section]:
    """Each section of the card of ``mech`` (default :data:`SECTIONS`), in order."""
    card = Card(mech, prior, options)
    return [make(card) for make in (SECTIONS if sections is None else sections)]


def sections_json(sections: Sequence[Section]) -> dict[str, Any]:
    """The numbers of computed sections: ``{"format": "mechopt.card", "sections": {key: data}}``."""
    return {"format": FORMAT, "sections": {s.key: jsonable(s.data) for s in sections}}


def sections_html(sections: Sequence[Section], title: str) -> str:
    """Computed sections as one HTML page: inline CSS and images, no script."""
    body = "".join(f'<section id="{s.key}"><h2>{escape(s.title)}</h2>{s.html}</section>' for s in sections)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>\n"
    )


def card_title(mech: Any) -> str:
    """``Report card: <the mechanism's provenance source>``."""
    return f"Report card: {mech.provenance.get('source', 'mechanism')}"


def card_json(mech: Any, prior: Any = None, **kwargs: Any) -> dict[str, Any]:
    """The card's numbers (the page shows the same): :func:`sections_json` of :func:`card_sections`."""
    return sections_json(card_sections(mech, prior, **kwargs))


STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em}td,th{padding:2px 10px;"
    "text-align:left;vertical-align:top}table{border-collapse:collapse;margin:.5em 0}"
    "tr:nth-child(even){background:#f3f3f3}table.q td{font-family:monospace}section{margin-top:1.5em}"
)


def card_html(mech: Any, prior: Any = None, title: str | None = None, **kwargs: Any) -> str:
    """The card as one HTML page: inline CSS and images, no script, every label escaped."""
    return sections_html(card_sections(mech, prior, **kwargs), title or card_title(mech))


def write_card(
    mech: Any, path: str | os.PathLike, prior: Any = None, sections: Sequence[Section] | None = None, **kwargs: Any
) -> Path:
    """Write the card (or the already computed ``sections``) to ``path`` with :mod:`mechopt.io.writer`.

    Atomic: on any failure the old file is untouched and nothing is left behind; a
    link is followed (the link stays), a dangling link is refused.

    >>> import os, tempfile
    >>> from mechopt import Mechanism
    >>> path = os.path.join(tempfile.mkdtemp(), "card.html")
    >>> write_card(Mechanism([[0.75, 0.25], [0.25, 0.75]]), path).name
    'card.html'
    """
    from mechopt.io.writer import target, write_text

    target(path)  # refused before the figures are drawn
    secs = card_sections(mech, prior, **kwargs) if sections is None else sections
    return write_text(path, sections_html(secs, card_title(mech)))
