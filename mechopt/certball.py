#!/usr/bin/env python3
"""Check a prior-ball certificate (``"kind": "robust-ball"``) without mechopt: ``python certball.py FILE [--json]``.

Standard library only (and :mod:`mechopt.certcheck`, or ``certcheck.py`` beside this file), exact rational
arithmetic. The ball B = {P ∈ Δ : dist(P, c) ≤ r} (TV or L∞) comes from the file; from its counts when it came
from samples, c = N / n exactly and r checked against the concentration bound (Weissman: TV r ≥ sqrt(2 ln((2^d −
2)/δ) / n) / 2; Hoeffding: L∞ r ≥ sqrt(ln(2d/δ) / (2n)); the bound enclosed below, r accepted to the ``match``
tolerance, as the design's float radius may lie an ulp under it). Then, with no trust in the solver:

- privacy over the whole ball: min_{P∈B} P·q and max_{P∈B} P·q of every column q, exactly (the greedy extreme
  prior: mass moved from the dearest symbols to the cheapest, or the box filled in order), at ε + tolerance;
- the value: Q's worst expected loss max_{P∈B} Σ_x P(x) Σ_y Q[x, y] L[x, y], exactly;
- the bound: each witness prior of the file is moved onto B along the ray from c (exact; a prior inside is kept),
  so every channel private over B is private at them and loses at least its loss at their mixture P_w ∈ B; the
  duals then prove 1ᵀν + Σ_x min_y R[y][x] as in :func:`mechopt.certcheck.check_robust`.

Exit status: 0 verified, 1 rejected (the reason is printed), 2 unreadable file.
"""

import argparse
import json
import os
import sys
import time
from decimal import Context
from fractions import Fraction as F

try:
    from mechopt import certcheck as cc
except ImportError:  # standalone: certcheck.py beside this file (python -I leaves the script's folder off the path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import certcheck as cc

__all__ = ["BOUNDS", "MAX_D", "check", "extreme", "is_ball", "load", "main", "onto_ball", "read", "run"]

MAX_D = 256
_SQRT = {0: Context(prec=50, rounding="ROUND_FLOOR"), 1: Context(prec=50, rounding="ROUND_CEILING")}


def read(path):
    """The file's JSON document, or BadFile (as :func:`mechopt.certcheck.load` reads files)."""
    if not os.path.isfile(path) or os.path.getsize(path) > cc.MAX_BYTES:
        raise cc.BadFile(f"{path} is not a regular file of at most {cc.MAX_BYTES >> 20} MiB")
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh, object_pairs_hook=cc._unique)
    if doc.get("format") != "mechopt-certificate" or type(doc.get("version")) is not int or doc["version"] != 1:
        raise cc.BadFile('not a certificate of "format": "mechopt-certificate", "version": 1')
    if doc["problem"].get("kind") != "robust-ball":
        raise cc.BadFile('not a prior-ball certificate ("kind": "robust-ball"): check it with certcheck.py')
    return doc


def load(path):
    """The certificate's data as exact numbers, checked for shape."""
    try:
        doc = read(path)
        pr, nt, ut, cl, dual, ball = (doc["problem"], doc["problem"]["notion"], doc["problem"]["utility"],
                                      doc["claim"], doc["dual"], doc["problem"]["ball"])  # fmt: skip
        num = cc.num
        c = dict(notion=nt["name"], eps=num(nt["eps"]), utility=ut["name"], status=cl["status"], sense=pr["sense"],
                 eps_l=num(nt["eps_lower"]) if nt["name"] == "alip" else None, value=num(cl["value"]),
                 bound=num(cl["bound"]), kind="robust", edges=[], ball=ball["kind"], r=num(ball["radius"]))  # fmt: skip
        c.update(Q=[[*map(num, r)] for r in doc["mechanism"]["Q"]], L=[[*map(num, r)] for r in pr["loss"]])
        c.update(W=[[*map(num, r)] for r in dual["priors"]], w=[*map(num, dual["weights"])])
        c.update(nu=[*map(num, dual["nu"])], mu=[[*map(num, r)] for r in dual["mu"]])
        c.update(center=[*map(num, ball["center"])], counts=[*map(num, ball.get("counts", []))])
        c.update(delta=num(ball["delta"]) if c["counts"] else None, conc=ball.get("bound"))
        values, outputs = [*map(num, ut.get("values", []))], [*map(num, ut.get("outputs", []))]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise cc.BadFile(f"cannot read {path}: {exc!r}") from None
    Q, d = c["Q"], len(c["Q"])
    if type(c["status"]) is not str:
        raise cc.BadFile(f'the claim\'s status must be a string ("optimal", ...), got {c["status"]!r}')
    if not (c["notion"] in cc.NOTIONS[:4] and c["utility"] == "mae" and c["sense"] == "min" and 1 <= d <= MAX_D):
        raise cc.BadFile(f"robust-ball: notions {cc.NOTIONS[:4]}, utility mae (minimised), 1 ≤ d ≤ {MAX_D}")
    if c["ball"] not in ("tv", "linf") or c["r"] < 0 or min(c["eps"], c["eps_l"] or 0) < 0:
        raise cc.BadFile("robust-ball: a tv or linf ball of radius ≥ 0, eps (and eps_lower) ≥ 0")
    shapes = [*c["W"], c["nu"], c["center"]] + ([c["counts"]] if c["counts"] else [])
    if any(len(v) != d for v in shapes) or len(c["L"]) != d or any(len(r) != len(Q[0]) for r in c["L"] + Q):
        raise cc.BadFile("robust-ball: d entries per witness prior, in nu, the center and the counts; Q and L d rows")
    if not Q[0] or not c["W"] or len(c["w"]) != len(c["W"]) or min(c["w"]) < 0 or not sum(c["w"]):
        raise cc.BadFile("robust-ball: Q needs an output; one weight ≥ 0 per witness prior, not all 0")
    if any(min(v) < 0 or not sum(v) for v in c["W"]) or min(c["center"]) < 0 or not sum(c["center"]):
        raise cc.BadFile("robust-ball: the witness priors and the center must be ≥ 0 and not all 0")
    if values and c["L"] != [[abs(a - b) for b in outputs] for a in values]:
        raise cc.BadFile("robust-ball: the loss is not |value − output| of the utility's values and outputs")
    base, delta = c["counts"] or c["center"], c["delta"] if c["counts"] else F(1, 2)
    if c["counts"] and (min(base) < 0 or any(v.denominator != 1 for v in base) or c["conc"] not in BOUNDS):
        raise cc.BadFile(f"robust-ball: counts are whole numbers ≥ 0 and the bound one of {sorted(BOUNDS)}")
    if not sum(base) or not 0 < delta < 1:
        raise cc.BadFile("robust-ball: the counts must not all be 0, and delta must lie in (0, 1)")
    c["c"] = [v / sum(base) for v in base]
    return c


def _sqrt(x, side):
    """A rational below (side 0) or above (side 1) sqrt(x), x ≥ 0 rational."""
    ctx = _SQRT[side]
    root = ctx.sqrt(ctx.divide(x.numerator, x.denominator))
    return F(root.next_minus(ctx) if side == 0 and root > 0 else root.next_plus(ctx) if side else root)


def _log_ratio(num, den):
    """A rational below ln(num / den) (num, den > 0 rationals)."""
    return cc.enclose("ln", F(num) / den)[0]


#: The concentration bounds: name -> (the ball kind, a rational below the radius at (d, n, δ)).
BOUNDS = {
    "weissman": ("tv", lambda d, n, dl: 0 if d == 1 else min(1, _sqrt(2 * _log_ratio(2**d - 2, dl) / n, 0) / 2)),
    "hoeffding": ("linf", lambda d, n, dl: min(1, _sqrt(max(0, _log_ratio(2 * d, dl)) / (2 * n), 0))),
}


def extreme(c, q):
    """The prior of the ball minimising P·q, exactly (:meth:`mechopt.problems.robust.BallSet.extreme`)."""
    ctr, r, order = c["c"], c["r"], sorted(range(len(q)), key=lambda x: q[x])
    if c["ball"] == "tv":  # take up to r from the dearest symbols, put it on the cheapest
        P, left = list(ctr), r
        for x in reversed(order):
            take = min(P[x], left)
            P[x], left = P[x] - take, left - take
        P[order[0]] += r - left
        return P
    lo, hi = [max(v - r, 0) for v in ctr], [min(v + r, 1) for v in ctr]
    P, left = list(lo), 1 - sum(lo)
    for x in order:
        add = min(hi[x] - lo[x], max(left, 0))
        P[x], left = P[x] + add, left - add
    return P


def onto_ball(c, P):
    """P normalised and moved onto the ball along the ray from the center (kept when inside), exactly."""
    P, ctr = [p / sum(P) for p in P], c["c"]
    gaps = [p - v for p, v in zip(P, ctr)]
    dist = sum(map(abs, gaps)) / 2 if c["ball"] == "tv" else max(map(abs, gaps))
    t = 1 if dist <= c["r"] else c["r"] / dist
    return [v + t * g for v, g in zip(ctr, gaps)]


def check(c, tol):
    """The report on a loaded certificate, or Rejected with the first claim that fails."""
    d, ctr, r = len(c["Q"]), c["c"], c["r"]
    out = dict(inputs=d, outputs=len(c["Q"][0]), vertices=len(c["W"]), ball=c["ball"], radius=float(r),
               scope=f"the whole {c['ball']} ball of radius {float(r):.4g} ({len(c['W'])} witness priors)")  # fmt: skip
    if c["counts"]:
        kind, lower = BOUNDS[c["conc"]]
        need = lower(d, int(sum(c["counts"])), c["delta"])
        if kind != c["ball"] or r < need * (1 - tol["match"]):
            raise cc.Rejected(f"the {c['ball']} radius {float(r)!r} does not cover the {c['conc']} bound's "
                              f"{kind} radius {float(need)!r} at these counts and delta")  # fmt: skip
        out.update(samples=int(sum(c["counts"])), delta=float(c["delta"]))
    qs = cc.columns(c["Q"], tol)
    E, El = cc.factors(c, c["eps"] + tol["privacy"], 0)  # e^eps (e^eps_l) + tolerance, bounded below
    S = [x for x in range(d) if ctr[x] + r > 0]  # the rows some prior of the ball gives mass
    for y, q in enumerate(qs):
        if c["notion"] == "ldp":
            bad = max(q) > E * min(q)
        else:
            lo, hi = cc.dot(extreme(c, q), q), cc.dot(extreme(c, [-t for t in q]), q)  # min, max of P·q
            bad = max(q[x] for x in S) > E * lo or (El is not None and min(q[x] for x in S) * El < hi)
        if bad:
            raise cc.Rejected(f"not private: output {y} breaks {c['notion']} at a prior of the ball at eps "
                              f"{float(c['eps'] + tol['privacy'])!r}")  # fmt: skip
    ell = [sum(q[x] * c["L"][x][y] for y, q in enumerate(qs)) for x in range(d)]
    value = cc.dot(extreme(c, [-t for t in ell]), ell)  # max_P P·ℓ
    c["V"], c["P"] = [onto_ball(c, P) for P in c["W"]], [F(1)] * d
    A = cc.robust_rows(c, c["eps"], 1)  # q_x ≤ e^eps v·q (e^eps bounded above) at every witness prior v
    if len(c["mu"]) != len(qs) or any(len(m) != len(A) or min(m, default=0) < 0 for m in c["mu"]):
        raise cc.BadFile(f"dual.mu needs one list of {len(A)} multipliers ≥ 0 (rows at the witness priors) per output")
    Pw = [sum(t * v[x] for t, v in zip(c["w"], c["V"])) / sum(c["w"]) for x in range(d)]
    R = []
    for y, m in enumerate(c["mu"]):
        res = [Pw[x] * c["L"][x][y] - c["nu"][x] for x in range(d)]
        for t, a in ((t, a) for t, a in zip(m, A) if t):
            res = [u - t * ax for u, ax in zip(res, a)]
        R.append(res)
    worst = sum(min(row[x] for row in R) for x in range(d))
    why = f"the residuals add Σ_x min_y R[y][x] = {float(worst):.3g} to 1ᵀν"
    floor = tol["floor"] * max(abs(t) for row in c["L"] for t in row)
    return cc.verdict(c, tol, value, sum(c["nu"]) + worst, -1, floor, why, dict(out, rows=len(A)))


def run(path, tol=None):
    """(exit status, report) for the certificate at ``path``: 0 verified, 1 rejected, 2 unreadable."""
    tol, t0, out = cc.tolerances(tol), time.perf_counter(), {"file": path}
    try:
        c = load(path)
        out.update(notion=c["notion"], utility=c["utility"], eps=float(c["eps"]), status=c["status"])
        out.update(check(c, tol), verdict="verified")
    except (cc.Rejected, cc.BadFile) as exc:
        out.update(verdict="rejected" if isinstance(exc, cc.Rejected) else "bad file", reason=str(exc))
    except ArithmeticError as exc:  # as certcheck.run: numbers beyond a double's range
        out.update(verdict="bad file", reason=f"numbers out of range ({type(exc).__name__}: {exc}): {cc.USE}")
    out.update(time_s=round(time.perf_counter() - t0, 3), tolerances={k: float(v) for k, v in tol.items()})
    return {"verified": 0, "rejected": 1}.get(out["verdict"], 2), out


def is_ball(path):
    """Whether ``path`` holds a prior-ball certificate (for ``mechopt check``'s dispatch); False when unreadable."""
    try:
        read(path)
    except (cc.BadFile, OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return False
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(prog="certball", description="Check a mechopt prior-ball certificate exactly.")
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON document")
    for name, val in cc.TOLERANCES.items():
        ap.add_argument("--" + name.replace("_", "-"), type=cc.tolerance, default=val, dest=name, help=f"default {val}")
    args = ap.parse_args(argv)
    code, out = run(args.file, {k: getattr(args, k) for k in cc.TOLERANCES})
    print(json.dumps(out) if args.json else cc.line(out))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
