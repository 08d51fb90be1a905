"""Report-card sections about use: the guarantee after k reports per user (:mod:`mechopt.deploy.composition`) and
after shuffling the reports of n users (:mod:`mechopt.deploy.shuffle`).

Examples
--------
>>> from mechopt import Mechanism
>>> from mechopt.deploy.card_parts import Card
>>> s = composition_section(Card(Mechanism([[0.75, 0.25], [0.25, 0.75]]), options={"uses": (1, 2)}))
>>> s.data["uses"], s.data["delta"][1][0]
([1, 2], 0.5)
>>> t = shuffle_section(Card(Mechanism([[0.75, 0.25], [0.25, 0.75]]), options={"users": (10**4,)}))
>>> t.data["bound"], t.data["eps"][0] < 1.0986
('variation-ratio', True)
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import numpy as np

from mechopt.deploy.card_parts import Card, Section, num, rows_table
from mechopt.errors import TooLargeError

__all__ = ["composition_section", "shuffle_section", "DEFAULT_USES", "DEFAULT_USERS", "COMPOSITION_MAX_D"]

#: Reports per user the card shows by default (``options["uses"]``).
DEFAULT_USES = (1, 2, 5, 10)
#: Users whose reports are shuffled, by default (``options["users"]``), and the central δ (``options["delta"]``).
DEFAULT_USERS, DEFAULT_DELTA = (10**4, 10**5, 10**6), 1e-6
#: Above this many inputs the card leaves composition to ``mechopt account`` (d(d − 1) ordered pairs).
COMPOSITION_MAX_D = 64


def composition_section(card: Card) -> Section:
    """δ(ε) after k uses for k in ``options["uses"]`` (exact multinomial sums; the worst pair named).

    The ε grid runs from 0 to k_max · ε₀ (13 points), where δ is 0 for an ε₀-LDP channel. A k whose
    exact sum is too large is listed with the command that computes it through the accountant.
    """
    from mechopt.plot import new_axes
    from mechopt.results._html import png_img

    m = card.mechanism
    uses = tuple(int(k) for k in card.options.get("uses") or DEFAULT_USES)
    title = "Repeated use: δ(ε) after k reports"
    if m.shape[0] > COMPOSITION_MAX_D:
        why = f"{m.shape[0]} inputs (> {COMPOSITION_MAX_D}): run `mechopt account MECH --uses K --eps E`"
        return Section("composition", title, {"skipped": why}, f"<p>Not computed here: {escape(why)}.</p>")
    eps0 = card.report["notions"]["ldp"]["eps"]
    top = max(uses) * (eps0 if eps0 is not None and math.isfinite(eps0) and eps0 > 0 else 1.0)
    grid = np.linspace(0.0, top, 13)
    done, too_large = _exact_curves(m, uses, grid)
    data = {
        "uses": [k for k, _, _ in done],
        "eps": grid.tolist(),
        "delta": [delta.tolist() for _, delta, _ in done],
        "worst": [[" vs ".join(map(str, w)) if w else None for w in worst] for _, _, worst in done],
        "needs_accountant": too_large,
    }
    ax = new_axes(figsize=(5.5, 3.4))
    for k, delta, _ in done:
        ax.plot(grid, delta, marker=".", label=f"k = {k}")
    ax.set(xlabel="ε (nats)", ylabel="δ(ε)", title="(ε, δ) after k reports per user", ylim=(-0.02, 1.02))
    ax.grid(alpha=0.3)
    if done:
        ax.legend()
    rows = [
        (f"k = {k}", " ".join(num(f"composition.delta.{i}.{j}", v, 4) for j, v in enumerate(delta)))
        for i, (k, delta, _) in enumerate(done)
    ]
    body = (
        "<p>Exact hockey-stick curves of k reports of the same value (fresh randomness each), the worst ordered "
        "input pair at each ε; ε grid "
        + " ".join(num(f"composition.eps.{j}", e, 4) for j, e in enumerate(grid))
        + ".</p>"
        + rows_table(rows, ("uses", "δ at each ε"))
        + png_img(ax.figure, "delta(eps) after k uses")
    )
    if too_large:
        body += (
            f"<p>k = {', '.join(map(str, too_large))}: the exact sum is too large here; "
            "<code>mechopt account MECH --uses K --eps E --method accountant</code> computes it.</p>"
        )
    return Section("composition", title, data, body)


def _exact_curves(m: Any, uses: tuple[int, ...], grid: np.ndarray) -> tuple[list[tuple], list[int]]:
    """(k, δ row, worst pairs) for each k whose exact sum fits, and the k that do not.

    One :func:`~mechopt.deploy.composition.compose` call groups the input pairs once for every k; only when
    some k is too large are they computed one by one, to keep the others.
    """
    from mechopt.deploy.composition import compose

    try:
        c = compose(m, uses, grid, method="exact")
        return [(k, c.delta[i], c.worst[i]) for i, k in enumerate(c.uses)], []
    except TooLargeError:
        pass
    done, too_large = [], []
    for k in uses:
        try:
            c = compose(m, k, grid, method="exact")
            done.append((k, c.delta[0], c.worst[0]))
        except TooLargeError:
            too_large.append(k)
    return done, too_large


def shuffle_section(card: Card) -> Section:
    """The central ε at δ after shuffling n reports, for n in ``options["users"]`` (an upper bound, named).

    The bound is Wang et al.'s variation-ratio bound (:func:`mechopt.deploy.shuffle.central_guarantee`), read
    from Q's own ε₀ and β; each ε is an upper bound on the central ε, never "the" ε.
    """
    from mechopt.deploy.shuffle import central_guarantee
    from mechopt.plot import new_axes
    from mechopt.results._html import png_img

    users = tuple(int(n) for n in card.options.get("users") or DEFAULT_USERS)
    delta = float(card.options.get("delta") or DEFAULT_DELTA)
    found = [central_guarantee(card.mechanism, n, delta) for n in users]
    docs = [g.to_dict() for g in found]
    data = {
        "users": list(users),
        "delta": delta,
        "bound": docs[0]["bound"],
        "reference": docs[0]["reference"],
        "eps": [d["eps"] for d in docs],
        "params": docs[0]["params"],
        "upper_bound": True,
    }
    ax = new_axes(figsize=(5.5, 3.4))
    finite = [(n, g.eps) for n, g in zip(users, found) if math.isfinite(g.eps)]
    if finite:
        ax.semilogx(*zip(*finite), marker="o")
    ax.set(xlabel="users n", ylabel="central ε (upper bound)", title=f"after shuffling, δ = {delta:g}")
    ax.grid(alpha=0.3)
    rows = [(f"n = {n}", num(f"shuffle.eps.{i}", d["eps"])) for i, (n, d) in enumerate(zip(users, docs))]
    body = (
        f"<p>Central (ε, {delta:g})-DP after shuffling the reports of n users, by the {escape(data['bound'])} "
        f"bound ({escape(data['reference'])}): upper bounds on the central ε, from Q's local ε₀ and β.</p>"
        + rows_table(rows, ("users", "central ε ≤"))
        + png_img(ax.figure, "central eps after shuffling")
    )
    return Section("shuffle", "Shuffling: the central guarantee", data, body)
