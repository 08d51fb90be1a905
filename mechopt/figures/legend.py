"""Legend marks shared by the figure reproductions: what each curve is, in its legend entry.

Every reproduced figure says in its legend (not only in the JSON notes) which
curves are certified optima, which are closed forms, and where a closed-form
mechanism is not private at that ε; Monte-Carlo dots of a non-private
mechanism are marked as such. The words are those of
:mod:`mechopt.results.words`. The styles:

==============================================  ==========================================
curve                                           drawn as
==============================================  ==========================================
closed form, private                            solid line
closed form, not private at this ε              dotted line, red-edged ``X`` at the points
certified optimum (``optimal`` with a proof)    dashed line, small triangles
printed formula (no mechanism behind it)        dash-dot line
Monte-Carlo (± 1.96 se)                         dots with error bars
Monte-Carlo (not private)                       ``x`` with error bars
==============================================  ==========================================

Examples
--------
>>> from matplotlib.figure import Figure
>>> ax = Figure().subplots()
>>> closed_curve(ax, [1, 2, 3], [3.0, 2.0, 1.0], [False, True, True], "C0", "Opt-LIP (Thm 2)")
>>> ax.get_legend_handles_labels()[1]
['Opt-LIP (Thm 2) — closed form', 'Opt-LIP (Thm 2) — closed form, not private at this ε']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mechopt.results.words import (
    CERTIFIED,
    CLOSED_FORM,
    LIMITS,
    MC,
    MC_NOT_PRIVATE,
    NOT_PRIVATE,
    POINT_LIMIT,
    POINT_NOT_PRIVATE,
)

__all__ = [
    "closed_curve",
    "certified_curve",
    "printed_curve",
    "mc_points",
    "mc_legend",
    "legend_texts",
    "closed_label",
    "mark_points",
    "solver_guarantee",
]

NAN = math.nan


def closed_label(curve: str, ref: str | None = None, private: bool = True, proven: bool = False) -> str:
    """``"<curve> — closed form"`` (with ``ref`` unless the curve name already names it; ``, proven
    optimal`` when every point is ``optimal`` with a proof), or ``"<curve> — closed form, not private
    at this ε"``.

    >>> closed_label("eps/2-LIP", "Thm 3 at eps/2"), closed_label("Opt-LIP (Thm 2)", "Thm 2", private=False)
    ('eps/2-LIP — closed form (Thm 3 at eps/2)', 'Opt-LIP (Thm 2) — closed form, not private at this ε')
    >>> closed_label("eps-Opt-LDP", "Prop. 4", proven=True)
    'eps-Opt-LDP — closed form (Prop. 4), proven optimal'
    """
    if not private:
        return f"{curve} — {NOT_PRIVATE}"
    return (
        f"{curve} — {CLOSED_FORM}"
        + (f" ({ref})" if ref and ref not in curve else "")
        + (", proven optimal" if proven else "")
    )


def closed_curve(
    ax: Any,
    x: Sequence[float],
    y: Sequence[float],
    private: Sequence[bool | None],
    color: Any,
    curve: str,
    ref: str | None = None,
    proven: bool = False,
) -> None:
    """A closed-form mechanism's curve: solid where private, dotted with red-edged ``X`` where its
    audit fails; one legend entry for each part that is drawn. ``private`` None (not audited)
    counts as private only for the line style; the caller says so in the notes."""
    ok = [p is not False for p in private]
    y_ok = [v if o else NAN for v, o in zip(y, ok)]
    if any(ok):
        ax.plot(x, y_ok, "-", color=color, label=closed_label(curve, ref, proven=proven))
    if not all(ok):
        # the dotted part joins each failing point to its neighbours so the curve stays readable
        near = [not ok[i] or (i > 0 and not ok[i - 1]) or (i + 1 < len(ok) and not ok[i + 1]) for i in range(len(ok))]
        ax.plot(x, [v if n else NAN for v, n in zip(y, near)], ":", color=color, lw=1.2)
        bad = [i for i, o in enumerate(ok) if not o]
        ax.plot(
            [x[i] for i in bad],
            [y[i] for i in bad],
            "X",
            color=color,
            mec="red",
            ms=7,
            ls="none",
            label=closed_label(curve, ref, private=False),
        )


def certified_curve(
    ax: Any, x: Sequence[float], y: Sequence[float], color: Any, curve: str, what: str = CERTIFIED
) -> None:
    """A certified optimum (every point ``optimal`` with a proof; the caller checks): dashed, small triangles."""
    ax.plot(x, y, "--^", color=color, ms=3, lw=1.0, label=f"{curve} — {what}")


def printed_curve(ax: Any, x: Sequence[float], y: Sequence[float], color: Any, curve: str) -> None:
    """A formula as printed in the paper, with no mechanism behind it (nothing to audit)."""
    ax.plot(x, y, "-.", color=color, lw=1.0, label=f"{curve} — printed formula (no mechanism)")


def mc_points(
    ax: Any, x: Sequence[float], y: Sequence[float], err: Sequence[float], private: Sequence[bool | None], color: Any
) -> None:
    """Monte-Carlo estimates with error bars: dots, or ``x`` where the simulated mechanism is not private."""
    for want, fmt in ((True, "o"), (False, "x")):
        idx = [i for i, p in enumerate(private) if (p is not False) == want]
        if idx:
            ax.errorbar(
                [x[i] for i in idx],
                [y[i] for i in idx],
                yerr=[err[i] for i in idx],
                fmt=fmt,
                ms=3 if want else 5,
                color=color,
                alpha=0.7,
            )


def mc_legend(ax: Any, private: Sequence[bool | None]) -> None:
    """One grey legend entry for the Monte-Carlo dots and one for the dots of non-private mechanisms (if any)."""
    if any(p is not False for p in private):
        ax.errorbar([], [], yerr=[], fmt="o", ms=3, color="0.4", label=MC)
    if any(p is False for p in private):
        ax.errorbar([], [], yerr=[], fmt="x", ms=5, color="0.4", label=MC_NOT_PRIVATE)


def mark_points(ax: Any, points: Sequence[tuple[float, float | None, Any]]) -> None:
    """Mark the points that are not answers: ``(x, y, status)`` with status ``infeasible_point`` as a red
    ``×`` (``not private (audit failed)``), a hit iteration or time limit as an open diamond
    (``hit a limit (best point so far)``); one legend entry each when there is such a point.

    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> mark_points(ax, [(1.0, 0.5, "infeasible_point"), (2.0, 0.4, "optimal"), (3.0, 0.3, "time_limit")])
    >>> ax.get_legend_handles_labels()[1]
    ['not private (audit failed)', 'hit a limit (best point so far)']
    """
    bad = [(x, y) for x, y, st in points if y is not None and str(getattr(st, "value", st)) == "infeasible_point"]
    lim = [(x, y) for x, y, st in points if y is not None and str(getattr(st, "value", st)) in LIMITS]
    if bad:
        ax.plot(*zip(*bad), "x", color="red", ms=9, mew=2, ls="none", label=POINT_NOT_PRIVATE)
    if lim:
        ax.plot(*zip(*lim), "D", mfc="none", color="0.2", ms=10, ls="none", label=POINT_LIMIT)


def solver_guarantee(name: str) -> str | None:
    """The registered solver's ``guarantee`` (``global``, ``local``, ``heuristic``); None if unknown.

    >>> solver_guarantee("greedy"), solver_guarantee("sqp"), solver_guarantee("no-such-solver")
    ('heuristic', 'local', None)
    """
    from mechopt.registry import get_solver

    try:
        return get_solver(name).guarantee
    except Exception:  # an unregistered name (an old file, a closed form built by hand)
        return None


def legend_texts(fig: Any) -> dict[str, list[str]]:
    """The legend entries of every axes of ``fig``, read back from matplotlib, keyed by the axes title
    (``"axes <i>"`` when it has none); axes without a legend are left out.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> _ = ax.plot([0, 1], [0, 1], label="a — certified optimum"); _ = ax.legend()
    >>> legend_texts(fig)
    {'axes 0': ['a — certified optimum']}
    """
    out: dict[str, list[str]] = {}
    for i, ax in enumerate(fig.axes):
        leg = ax.get_legend()
        if leg is None:
            continue
        key = ax.get_title() or f"axes {i}"
        out[key if key not in out else f"{key} ({i})"] = [t.get_text() for t in leg.get_texts()]
    return out
