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

Mutual information (``"utility": {"name": "mi"}``, maximised; a TV ball; vertex generation) has no loss and no
multipliers: privacy as above; the value min_{P∈B} I(P; Q) over every vertex of the ball (I is concave in P;
the vertices in closed form, :func:`vertices`), each I enclosed below exactly; the bound of the priors W of
``dual.priors`` (moved onto B as above; a design private over B is private at W and its worst information is at
most that at W) as :func:`mechopt.certcheck.check_rays` proves it, over every extreme ray of W's privacy cone by
double description (:func:`mechopt.certcheck.dd`) — up to ``rays_max_d`` inputs; with ``"cone": "ball"`` in
``dual`` (the pricer held the ball itself, W only the information priors) over every extreme ray of the ball's own
privacy cone, its rows at every vertex of the ball. Above that the rays are not
enumerated: the report is ``partial`` (exit 3), privacy and the value verified, the bound **not** verified.

Exit status: 0 verified, 1 rejected (the reason is printed), 2 unreadable file, 3 partially verified (mi above
``rays_max_d``: the bound is not checked).
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

__all__ = ["BOUNDS", "MAX_D", "RAYS_MAX_D", "check", "extreme", "is_ball", "load", "main", "onto_ball", "read",
           "run", "vertices"]  # fmt: skip

MAX_D, MAX_VERTICES = 256, 200_000
#: Inputs up to which the rays of the witness priors' cone are enumerated for mi (d = 8, 35 priors: 5110 rays).
RAYS_MAX_D = 10
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
        mi = ut["name"] == "mi"  # vertex generation: no loss, no multipliers
        c.update(
            Q=[[*map(num, r)] for r in doc["mechanism"]["Q"]], L=None if mi else [[*map(num, r)] for r in pr["loss"]]
        )
        c.update(W=[[*map(num, r)] for r in dual["priors"]], w=[*map(num, dual["weights"])])
        c.update(cone=dual.get("cone", "priors"))  # "ball": the bound is over the ball's own privacy cone
        c.update(nu=[*map(num, dual["nu"])], mu=None if mi else [[*map(num, r)] for r in dual["mu"]])
        c.update(center=[*map(num, ball["center"])], counts=[*map(num, ball.get("counts", []))])
        c.update(delta=num(ball["delta"]) if c["counts"] else None, conc=ball.get("bound"))
        values, outputs = [*map(num, ut.get("values", []))], [*map(num, ut.get("outputs", []))]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise cc.BadFile(f"cannot read {path}: {exc!r}") from None
    Q, d, L = c["Q"], len(c["Q"]), c["L"] or []
    if type(c["status"]) is not str:
        raise cc.BadFile(f'the claim\'s status must be a string ("optimal", ...), got {c["status"]!r}')
    if not (c["notion"] in cc.NOTIONS[:4] and (c["utility"], c["sense"]) in (("mae", "min"), ("mi", "max"))
            and 1 <= d <= MAX_D and (c["utility"] == "mae" or c["ball"] == "tv")):  # fmt: skip
        raise cc.BadFile(f"robust-ball: notions {cc.NOTIONS[:4]}, utility mae (minimised) or mi (maximised, a tv "
                         f"ball), 1 ≤ d ≤ {MAX_D}")  # fmt: skip
    if c["cone"] not in ("priors", "ball") or (c["cone"] == "ball" and c["utility"] != "mi"):
        raise cc.BadFile(f'robust-ball: dual.cone is "priors" (the default) or "ball" (mi), got {c["cone"]!r}')
    if c["ball"] not in ("tv", "linf") or c["r"] < 0 or min(c["eps"], c["eps_l"] or 0) < 0:
        raise cc.BadFile("robust-ball: a tv or linf ball of radius ≥ 0, eps (and eps_lower) ≥ 0")
    shapes = [*c["W"], c["nu"], c["center"]] + ([c["counts"]] if c["counts"] else [])
    if (
        any(len(v) != d for v in shapes)
        or len(L) != d * (c["L"] is not None)
        or any(len(r) != len(Q[0]) for r in L + Q)
    ):
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


def check(c, tol, rays_max_d=RAYS_MAX_D):
    """The report on a loaded certificate, or Rejected with the first claim that fails."""
    d, ctr, r = len(c["Q"]), c["c"], c["r"]
    c["rays_max_d"] = rays_max_d
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
    if c["utility"] == "mi":
        return check_mi(c, tol, qs, out)
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
    scale = max(abs(t) for row in c["L"] for t in row)
    return cc.verdict(c, tol, value, sum(c["nu"]) + worst, -1, scale, why, dict(out, rows=len(A)))


def vertices(c):
    """Every vertex of B = {P ∈ Δ : ‖P − c‖₁ ≤ 2r}, exactly (a TooLargeError-like BadFile above MAX_VERTICES).

    At a vertex d independent constraints are tight among 1ᵀe = 0, the ℓ1 bound (linear on a sign pattern of
    e = P − c) and e_x ∈ {0, −c_x}, so at most two coordinates are free: with the ℓ1 bound slack P is a point mass
    e_u (1 − c_u ≤ r); with it tight, a set Z is emptied (c(Z) ≤ r), r is put on one symbol u and r − c(Z) taken
    from one symbol i ∉ Z (c_i ≥ r − c(Z); two free coordinates of one sign make the two equations dependent).
    """
    ctr, r, d = c["c"], c["r"], len(c["c"])
    if r == 0:
        return [ctr]
    out = [[F(x == u) for x in range(d)] for u in range(d) if 1 - ctr[u] <= r]
    pos = sorted((x for x in range(d) if ctr[x] > 0), key=lambda x: ctr[x])
    todo = [(0, [], F(0))]  # (next index into pos, Z, c(Z)): every Z ⊆ pos with c(Z) ≤ r, ascending masses
    while todo:
        k, Z, mass = todo.pop()
        todo += [(j + 1, Z + [pos[j]], mass + ctr[pos[j]]) for j in range(k, len(pos)) if mass + ctr[pos[j]] <= r]
        for i in (i for i in pos if i not in Z and ctr[i] >= r - mass):
            for u in (u for u in range(d) if u != i and u not in Z):
                P = [F(0) if x in Z else v for x, v in enumerate(ctr)]
                P[i], P[u] = P[i] - (r - mass), P[u] + r
                out.append(P)
        if len(out) > MAX_VERTICES:
            raise cc.BadFile(f"the ball has more than {MAX_VERTICES} vertices: too many to check the value over")
    return out


def _info(mix, q, side):
    """Σ_v t_v μ(P_v ∘ q) for ``mix`` = [(t_v, P_v)], t_v ≥ 0, enclosed below (side 0) or above (side 1): with
    ln(c_x / P_x) = ln q_x for c = P ∘ q, μ = Σ_x (Σ_v t_v P_vx) q_x ln q_x − Σ_v t_v S_v ln S_v, S_v = P_v·q."""
    a = [sum(t * P[x] for t, P in mix) for x in range(len(q))]
    first = sum(ax * qx * cc.enclose("ln", qx)[side] for ax, qx in zip(a, q) if ax and qx)
    return first - sum(t * S * cc.enclose("ln", S)[1 - side] for t, S in ((t, cc.dot(P, q)) for t, P in mix) if S)


def check_mi(c, tol, qs, out):
    """The value min over the ball's vertices of I(P; Q) (enclosed below) and the bound over the extreme rays of the
    witness priors' cone (:func:`mechopt.certcheck.check_rays`, λ = w / Σ w): 1ᵀν + d max_r (Σ_v λ_v μ_v(r) − νᵀr)
    / 1ᵀr; above ``rays_max_d`` inputs a :class:`Partial` once the value is checked."""
    d, V = len(c["Q"]), vertices(c)
    value = min(sum(_info([(1, P)], q, 0) for q in qs) for P in V)
    out = dict(out, vertices=len(V), scope=f"the whole tv ball of radius {float(c['r']):.4g} ({len(V)} vertices)")
    ball = c["cone"] == "ball"
    cone = f"ball's privacy cone (at its {len(V)} vertices)" if ball else f"{len(c['W'])} witness priors' cone"
    if d > c["rays_max_d"]:
        out = cc.verdict(c, tol, value, c["bound"], 1, F(1, 10**37), "", out)  # the value, the claimed gap only
        raise Partial(f"private over the whole ball and the value {float(value)!r} verified; the bound "
                      f"{float(c['bound'])!r} NOT verified: the {cone} is not "
                      f"enumerated above rays_max_d = {c['rays_max_d']} inputs (d = {d})", out)  # fmt: skip
    c["V"], c["P"] = [onto_ball(c, P) for P in c["W"]], [F(1)] * d
    mix = [(t / sum(c["w"]), v) for t, v in zip(c["w"], c["V"]) if t]
    if ball:  # private over the ball = private at each of its vertices: the cone's rows at every vertex
        c["V"] = V
    rho = [(_info(mix, r, 1) - cc.dot(c["nu"], r)) / sum(r) for r in cc.dd(cc.robust_rows(c, c["eps"], 1), d)]
    why = f"a ray r has (Σ_v λ_v μ_v(r) − νᵀr) / 1ᵀr = {float(max(rho)):.3g}, above the claimed bound's"
    out.update(rays=len(rho), priors=len(c["W"]))
    return cc.verdict(c, tol, value, sum(c["nu"]) + d * max(rho), 1, F(1, 10**37), why, out)


class Partial(Exception):
    """What the checker verified (its report) and what it did not (the message): exit 3, never "verified"."""

    def __init__(self, why, out):
        super().__init__(why)
        self.out = out


def run(path, tol=None, rays_max_d=RAYS_MAX_D):
    """(exit status, report) for the certificate at ``path``: 0 verified, 1 rejected, 2 unreadable, 3 partial."""
    tol, t0, out = cc.tolerances(tol), time.perf_counter(), {"file": path}
    try:
        c = load(path)
        out.update(notion=c["notion"], utility=c["utility"], eps=float(c["eps"]), status=c["status"])
        out.update(check(c, tol, rays_max_d), verdict="verified")
    except Partial as exc:
        out.update(exc.out, verdict="partial", reason=str(exc), bound_verified=False)
    except (cc.Rejected, cc.BadFile) as exc:
        out.update(verdict="rejected" if isinstance(exc, cc.Rejected) else "bad file", reason=str(exc))
    except ArithmeticError as exc:  # as certcheck.run: numbers beyond a double's range
        out.update(verdict="bad file", reason=f"numbers out of range ({type(exc).__name__}: {exc}): {cc.USE}")
    out.update(time_s=round(time.perf_counter() - t0, 3), tolerances={k: float(v) for k, v in tol.items()})
    return {"verified": 0, "rejected": 1, "partial": 3}.get(out["verdict"], 2), out


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
    ap.add_argument("--rays-max-d", type=int, default=RAYS_MAX_D, help=f"mi: enumerate the cone's rays up to this d "
                    f"(default {RAYS_MAX_D}; above it the bound is not verified, exit 3)")  # fmt: skip
    args = ap.parse_args(argv)
    code, out = run(args.file, {k: getattr(args, k) for k in cc.TOLERANCES}, args.rays_max_d)
    print(json.dumps(out) if args.json else cc.line(out))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
