#!/usr/bin/env python3
"""Check a mechopt certificate without mechopt: ``python certcheck.py FILE [--json]`` (docs/howto/certificates.rst).

Standard library only, exact rational arithmetic. Every number of the file is a string read by
``fractions.Fraction``; e^x and log x enter as rational intervals around the correctly rounded ``decimal``
exp and ln. Q's rows are normalised exactly; privacy is checked at ε + the privacy tolerance; the value
Σ_y μ(c_y) of Q is recomputed; every extreme ray r of the column cone is enumerated here (LDP patterns and LIP
vertices screened by proven float upper bounds, double description for graph-LDP and CIP), e^ε replaced by an
upper bound W (a larger cone: the bound stays valid), and the bound νᵀP + max_r (μ(r) − νᵀr), valid for every ν
(1ᵀr = 1ᵀP = 1), is compared with the claims. Exit status: 0 verified, 1 rejected (reason printed), 2 unreadable.
"""

import argparse
import itertools
import json
import math
import os
import time
from bisect import bisect_left, bisect_right
from decimal import ROUND_CEILING, ROUND_FLOOR, Context
from fractions import Fraction as F
from functools import lru_cache, reduce

TOLERANCES = {"row_sum": 1e-8, "privacy": 1e-7, "gap": 1e-7, "match": 1e-9, "floor": 1e-3}
#: A value within ROUNDING × the objective's scale of 0 is the rounding residue of a 0 (second order: (2^-50)² of the
#: scale), judged against floor × scale as a 0 is (mechopt.results.certificate.ROUNDING: the same rule).
ROUNDING = F(1, 2**100)
NOTIONS, UTILITIES = ("ldp", "lip", "pml", "alip", "graph-ldp", "metric-ldp", "cip"), ("mse", "histogram", "mi")
MAX_D, MAX_BYTES, MAX_EPS = 20, 64 << 20, 700  # MAX_EPS: e^eps a double, as mechopt designs it
USE = "use what design --certificate made"
DOWN, UP = Context(prec=50, rounding=ROUND_FLOOR), Context(prec=50, rounding=ROUND_CEILING)


def _unique(pairs):  # a key twice in one object: readers disagree on which one counts
    if len({k for k, _ in pairs}) < len(pairs):
        raise BadFile("a key appears twice in one object: the file is ambiguous")
    return dict(pairs)


class BadFile(Exception):
    """Not a readable certificate (exit 2)."""


class Rejected(Exception):
    """A claim of the certificate is false (exit 1)."""


def num(v):
    """An exact rational from a JSON integer or string ("1/3", "0.25", "-7"), of magnitude below 2^1024 (a double's
    range); an exponent beyond ±400 is refused before it is expanded (F("1e-100000000") computes 10^100000000)."""
    if isinstance(v, bool) or not isinstance(v, (int, str)) or isinstance(v, str) and (not v.isascii() or "_" in v):
        raise BadFile(f"number {v!r}: write numbers as strings (exact rationals, ASCII digits, no '_') or integers")
    exp = v.lower().partition("e")[2].strip().lstrip("+-") if isinstance(v, str) else ""
    try:
        if exp.isdigit() and (len(exp) > 4 or int(exp) > 400) or not abs(x := F(v)) < 2**1024:
            raise BadFile(f"{str(v)[:40]!r}: a number beyond the double range (exponent above 400 or |x| ≥ 2^1024)")
        return x
    except (ValueError, ZeroDivisionError):
        raise BadFile(f"{v!r} is not a rational number") from None


@lru_cache(maxsize=1 << 16)
def enclose(fn, x):
    """Rationals lo ≤ fn(x) ≤ hi, fn = "exp" or "ln": both increase and are correctly rounded by decimal (one
    step further is a bound; an exact 0 is ln 1, and e^0 = 1 exactly)."""
    if fn == "exp" and x == 0:
        return F(1), F(1)
    lo, hi = (getattr(ctx, fn)(ctx.divide(x.numerator, x.denominator)) for ctx in (DOWN, UP))
    return F(lo if lo.is_zero() else lo.next_minus(DOWN)), F(hi if hi.is_zero() else hi.next_plus(UP))


def entropy(P):  # a lower bound on H(P), the identity's information: mi's size (≥ 1e-37: 50 digits resolve 1e-40)
    return max(sum(-p * enclose("ln", p)[1] for p in P if p), F(1, 10**37))


def load(path):
    """The certificate's data as exact numbers; BadFile when the file is not a certificate this checker reads."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:  # no FIFO, device or huge file
            raise BadFile(f"{path} is not a regular file of at most {MAX_BYTES >> 20} MiB")
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh, object_pairs_hook=_unique)  # NaN/Infinity: floats, which num() refuses
        if doc.get("format") != "mechopt-certificate" or type(doc.get("version")) is not int or doc["version"] != 1:
            raise BadFile('not a certificate of "format": "mechopt-certificate", "version": 1')
        pr, nt, ut, cl = doc["problem"], doc["problem"]["notion"], doc["problem"]["utility"], doc["claim"]
        c = dict(notion=nt["name"], eps=num(nt["eps"]), utility=ut["name"], status=cl["status"], sense=pr["sense"])
        c.update(eps_l=num(nt["eps_lower"]) if nt["name"] == "alip" else None, value=num(cl["value"]))  # pml: none
        if not 0 <= min(c["eps"], c["eps_l"] or 0) <= max(c["eps"], c["eps_l"] or 0) <= MAX_EPS:
            raise BadFile(f"eps (and eps_lower) must be in [0, {MAX_EPS}]")
        if type(c["status"]) is not str:  # ["optimal"] skipped the optimality test, yet read "verified"
            raise BadFile(f'the claim\'s status must be a string ("optimal", ...), got {c["status"]!r}')
        if pr.get("kind") == "robust-ball":
            raise BadFile('a prior-ball certificate ("kind": "robust-ball"): check it with certball.py')
        if pr.get("kind") == "robust":
            return load_robust(c, doc)
        c.update(P=[num(v) for v in pr["prior"]], nu=[num(v) for v in doc["dual"]["nu"]])
        c.update(Q=[[num(v) for v in row] for row in doc["mechanism"]["Q"]], bound=num(cl["bound"]))
        c.update(edges=[(node(u), node(v), num(w)) for u, v, w in nt.get("edges", [])], p=[*map(num, nt.get("p", []))])
        c["a"] = [num(v) - num(ut.get("centre", 0)) for v in ut.get("values", [])]  # the MSE is shift-invariant
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        why = {KeyError: f"no {exc} key", json.JSONDecodeError: f"not JSON ({exc}): {USE}"}
        raise BadFile(f"cannot read {path}: {why.get(type(exc), repr(exc))}") from None  # empty, cut short, a BOM
    d, P, Q = len(c["P"]), c["P"], c["Q"]
    if not (1 <= d <= MAX_D and c["notion"] in NOTIONS and c["utility"] in UTILITIES):
        raise BadFile(f"this checker takes 1 ≤ d ≤ {MAX_D}, notions {NOTIONS}, utilities {UTILITIES}; got d = {d}")
    if min(P) <= 0 or abs(sum(P) - 1) > F(1, 10**9) or len(c["nu"]) != d or len(Q) != d:
        raise BadFile("need a positive prior summing to 1, one dual and one row of Q per input")
    if any(len(r) != len(Q[0]) for r in Q) or not Q[0] or c["sense"] != ("max" if c["utility"] == "mi" else "min"):
        raise BadFile("rows of Q must have one equal, positive length; mi is maximised, mse and histogram minimised")
    bad_edge = any(not (0 <= min(u, v) <= max(u, v) < d and 0 <= w * c["eps"] <= MAX_EPS) for u, v, w in c["edges"])
    if (c["utility"] == "mse") != (len(c["a"]) == d) or bad_edge:
        raise BadFile(f"mse (only) needs one value per input; edges must join inputs 0..d-1, 0 <= eps w <= {MAX_EPS}")
    if c["notion"] == "cip" and len(c["p"]) + 1 != d:
        raise BadFile(f"cip on {len(c['p'])} users needs a prior over {len(c['p']) + 1} values of the sum")
    c["P"] = [p / sum(P) for p in P]
    return c


def load_robust(c, doc):
    """A robust design (a prior set): its vertices V, Q, the duals (weights w on V, ν), the loss L and multipliers μ
    (robust-lp) or a gain utility (mi, mse, histogram: robust-rays, L None), checked for shape."""
    pr, dual, ut = doc["problem"], doc["dual"], doc["problem"]["utility"]
    c.update(V=[[*map(num, r)] for r in pr["prior_set"]], kind="robust", a=[num(v) for v in ut.get("values", [])])
    c.update(Q=[[*map(num, r)] for r in doc["mechanism"]["Q"]], w=[*map(num, dual["weights"])], edges=[])
    c.update(nu=[*map(num, dual["nu"])], bound=num(doc["claim"]["bound"]), P=[F(1)] * len(c["Q"]))  # P: d, for cone()
    rays = c["utility"] in UTILITIES  # robust-rays: no loss, no cone multipliers
    c["L"] = None if rays else [[*map(num, r)] for r in pr["loss"]]
    c["mu"] = None if rays else [[*map(num, r)] for r in dual["mu"]]
    V, L, Q, w, d = c["V"], c["L"] or [], c["Q"], c["w"], len(c["Q"])
    sense = ("max" if c["utility"] == "mi" else "min") if rays else "min"
    if not (c["notion"] in NOTIONS[:4] and pr["sense"] == sense and 1 <= d <= MAX_D and V and len(w) == len(V)):
        raise BadFile(f"robust: notions {NOTIONS[:4]}, sense {sense}, 1 ≤ d ≤ {MAX_D}, one weight per vertex")
    if any(len(r) != d for r in [*V, c["nu"]]) or len(L) != d * (not rays) or any(len(r) != len(Q[0]) for r in L + Q):
        raise BadFile("robust: d entries per vertex and in nu, one row of Q (and of a loss) per input, one row length")
    if not Q[0] or len(c["a"]) not in (0, d):
        raise BadFile("robust: Q needs an output, and an mse one value per input")
    c["a"] = [a - num(ut.get("centre", 0)) for a in c["a"]]
    if any(min(v) < 0 or abs(sum(v) - 1) > F(1, 10**9) for v in V) or min(w) < 0 or not sum(w):
        raise BadFile("robust: the vertices must be priors (≥ 0, summing to 1), the weights ≥ 0 and not all 0")
    if not rays and "values" in ut and L != [[abs(num(a) - num(b)) for b in ut["outputs"]] for a in ut["values"]]:
        raise BadFile("robust: the loss is not |value − output| of the utility's values and outputs")
    c["V"] = [[p / sum(v) for p in v] for v in V]
    return c


def node(v):  # an input index of an edge: a JSON integer (int(1.5) = 1, int(Infinity) an OverflowError)
    if type(v) is not int:
        raise BadFile(f"edge end {v!r}: inputs are named by JSON integers 0..d-1")
    return v


def tolerance(text):
    """A tolerance from the command line: a number in [0, 1] (nan, inf or 1e300 are not tolerances)."""
    try:
        t = float(text)
    except (TypeError, ValueError):
        t = math.nan
    if not 0 <= t <= 1:
        raise argparse.ArgumentTypeError(f"a tolerance is a number in [0, 1], got {text!r}")
    return t


def dot(a, b):  # Σ_i a_i b_i
    return sum(x * y for x, y in zip(a, b))


def stats(p):
    """CIP's posterior statistics P(D_i = j | S = s), j = 1 and 0, per distinct user prior p_i, exactly."""

    def pb(ps):  # the Poisson-binomial distribution of S = Σ_i D_i, D_i ~ Bernoulli(ps[i])
        return reduce(lambda out, q: [(1 - q) * a + q * b for a, b in zip(out + [0], [0] + out)], ps, [F(1)])

    full, rows = pb(p), []
    for q in sorted(set(p)):
        rest = pb(p[: p.index(q)] + p[p.index(q) + 1 :])
        g = [q * rest[s - 1] / full[s] if s and full[s] else F(0) for s in range(len(full))]
        rows += [g, [1 - x for x in g]]
    return rows


def cone(c, eps, side):
    """Rows a, a·q ≥ 0 for exactly the private columns q = Q[:, y], e^(eps w) replaced by a rational lower (side 0)
    or upper (side 1) bound: q_x ≤ e^(eps w) q_x' for all pairs (ldp), the edges both ways (graph-, metric-ldp);
    e^-eps_l m_k 1ᵀc ≤ g_k·c ≤ e^eps m_k 1ᵀc for c = P ∘ q, m_k = g_k·P, g_k the posterior statistics (lip, pml,
    alip: e_k; cip); eps_l = eps (lip, cip), none (pml), the file's eps_lower plus the same tolerance (alip)."""
    P, d, notion = c["P"], len(c["P"]), c["notion"]
    if notion in ("lip", "cip", "pml", "alip"):
        G = stats(c["p"]) if notion == "cip" else [[F(i == j) for j in range(d)] for i in range(d)]
        (E, El), ms = factors(c, eps, side), [dot(g, P) for g in G]
        rows = [] if El is None else [[gx - m / El for gx in g] for g, m in zip(G, ms)]
        rows += [[E * m - gx for gx in g] for g, m in zip(G, ms)]
        return [[a * p for a, p in zip(row, P)] for row in rows]
    both = [e for x, z, w in c["edges"] for e in ((x, z, w), (z, x, w))]
    ps = [(x, z, 1) for x in range(d) for z in range(d) if x != z] if notion == "ldp" else both
    return [[(enclose("exp", eps * w)[side] if i == z else 0) - (i == x) for i in range(d)] for x, z, w in ps]


def factors(c, eps, side):
    """(E, El): e^eps and e^eps_l as rationals below (side 0) or above (side 1); El None for pml (no lower side),
    eps_l = eps for lip and cip, the file's eps_lower plus the same tolerance (eps − the file's eps) for alip."""
    E, lower = enclose("exp", eps)[side], c["eps_l"]
    return E, enclose("exp", lower + eps - c["eps"])[side] if lower is not None else None if c["notion"] == "pml" else E


def robust_rows(c, eps, side):
    """Rows a, a·q ≥ 0 of the columns q private at every vertex v: q_x ≤ e^eps v·q and (lip, alip) q_x ≥ v·q / e^eps_l,
    each x with mass under some vertex (the hull has priors with P(x) > 0 near every vertex); ldp: cone()'s."""
    if c["notion"] == "ldp":
        return cone(c, eps, side)
    (E, El), S = factors(c, eps, side), [x for x in range(len(c["P"])) if any(v[x] for v in c["V"])]
    rows = [[E * p - (i == x) for i, p in enumerate(v)] for v in c["V"] for x in S]
    return rows + ([] if El is None else [[(i == x) - p / El for i, p in enumerate(v)] for v in c["V"] for x in S])


def which(c, k, y, eps):
    """Constraint k of :func:`cone` (or :func:`robust_rows`) at level eps, in words (for a rejection)."""
    if c.get("kind") == "robust" and c["notion"] != "ldp":
        return f"row {k} of robust_rows (the posterior bounds at every vertex of the prior set) at eps {float(eps)!r}"
    if c["notion"] in ("lip", "cip", "pml", "alip"):
        n = len(stats(c["p"])) if c["notion"] == "cip" else len(c["P"])
        side, at = "lower" if k < n and c["notion"] != "pml" else "upper", f"eps {float(eps)!r}"
        if side == "lower" and c["eps_l"] is not None:  # alip: its own lower level
            at = f"eps_lower {float(c['eps_l'] + eps - c['eps'])!r}"
        return f"posterior bound on statistic {k % n} ({side} side) at {at}"
    d = len(c["P"])
    ps = [(x, z) for x in range(d) for z in range(d) if x != z] if c["notion"] == "ldp" else None
    x, z = ps[k] if ps else [e for x, z, _ in c["edges"] for e in ((x, z), (z, x))][k]
    return f"Q[{x}][{y}] <= e^(eps w) Q[{z}][{y}] at eps {float(eps)!r}"


def feat(c, x, v):
    """What mass v on input x adds to a column's features (1ᵀc, νᵀc, aᵀc, Σc², lo, hi of Σ c_x log(c_x/P_x))."""
    lo, hi, u = *(enclose("ln", v / c["P"][x]) if c["utility"] == "mi" and v else (0, 0)), c["utility"]
    return (v, c["nu"][x] * v, c["a"][x] * v if u == "mse" else 0, v * v if u == "histogram" else 0, v * lo, v * hi)


def features(c, mass, *more):  # of the masses (x, v), plus feature vectors more; unused ones stay 0 (fast to add)
    return [sum(t) for t in zip([0] * 6, *more, *(feat(c, x, v) for x, v in mass if v))]


def gain(c, f, upper):
    """A lower or upper bound on μ(c) from c's features (exact for mse and histogram)."""
    S, _, ac, sq, llo, lhi = f
    if c["utility"] != "mi":
        return ac * ac / S if c["utility"] == "mse" else sq / S
    lo, hi = enclose("ln", S)  # μ(c) = Σ c_x log(c_x / P_x) − S log S
    return lhi - S * lo if upper else llo - S * hi


def dd(A, d):
    """Extreme rays of {c ≥ 0 : A c ≥ 0}: double description in integers (each ray divided by its gcd), with
    the combinatorial adjacency test on the constraints tight at each ray (a bitmask)."""
    A = [[int(x * math.lcm(*(y.denominator for y in a))) for x in a] for a in A]
    R = [([int(i == j) for j in range(d)], ((1 << d) - 1) ^ (1 << i)) for i in range(d)]
    for k, a in enumerate(A, d):
        v = [dot(a, r) for r, _ in R]
        pos, neg, new = [i for i, t in enumerate(v) if t > 0], [i for i, t in enumerate(v) if t < 0], []
        for i, j in ((i, j) for i in pos for j in neg):
            z = R[i][1] & R[j][1]
            if z.bit_count() >= d - 2 and not any(zl & z == z for n, (_, zl) in enumerate(R) if n not in (i, j)):
                r = [v[i] * y - v[j] * x for x, y in zip(R[i][0], R[j][0])]
                new.append(([t // math.gcd(*r) for t in r], z | 1 << k))
        R = [R[i] for i in pos] + [(r, z | 1 << k) for t, (r, z) in zip(v, R) if t == 0] + new
    return [[F(t) for t in r] for r, _ in R]


def box_top(c, W, Wl):
    """(max_p score(p), the number of p) over the vertices p of {p ∈ simplex : P/Wl ≤ p ≤ min(WP, 1)} (lower bound 0
    when Wl is None; score μ(p) − νᵀp): all coordinates at a bound but one, j, which takes the mass left; ldp: over the
    rays p = P ∘ s, s ∈ {1, W}^d, score (μ(p) − νᵀp) / 1ᵀp. Masses are integers over one denominator D; the others'
    halves are enumerated once each and paired by mass (ldp: all pairs). A float upper bound U of each score screens
    it: rounding adds under 2^-40 of the terms' sizes (< 60 correctly rounded operations; an overflow is not finite),
    ln y ≤ :func:`ln_up` (ldp: −ln 1ᵀp ≤ ln_up(1/1ᵀp)). Exact scores in decreasing U while U reaches the best."""
    P, d, u, ldp = c["P"], len(c["P"]), c["utility"], c.get("notion") == "ldp"
    lo, hi = [p if ldp else F(0) if Wl is None else p / Wl for p in P], [W * p if ldp else min(W * p, F(1)) for p in P]
    D, fs = math.lcm(*(v.denominator for v in lo + hi)), [[feat(c, x, lo[x]), feat(c, x, hi[x])] for x in range(d)]
    k = {"mse": 2, "histogram": 3, "mi": 5}[u]  # score = g(Σ_x u_x) − νᵀp, g(s) = s² (mse) or s, u_x = fs[x][.][k]
    fl = [[(int(f[0] * D), *map(flo, (f[1], f[k], abs(f[1]), abs(f[k]))), f[1], f[k]) for f in fx] for fx in fs]
    best, bf, count = -math.inf, -math.inf, 0  # bf ≤ best, a float
    for j, xs in [(0, [*range(d)])] if ldp else ((j, [x for x in range(d) if x != j]) for j in range(d)):
        h, nu, a, AB = len(xs) // 2, flo(c["nu"][j]), flo(c["a"][j] if u == "mse" else 0), [[(0, *[0.0] * 4, 0, 0)]] * 2
        for i, x in enumerate(xs):  # (mass, ν·p, u, |ν·p|, |u| in floats, ν·p, u exactly) over xs[:h] and xs[h:]
            AB[i >= h] = [tuple(map(sum, zip(e, fl[x][b]))) for b in (0, 1) for e in AB[i >= h]]
        (A, B), cands, ok, nu = AB, [], P[j] > 1e-290, 0.0 if ldp else nu
        order = sorted(range(len(B)), key=lambda i: B[i][0])
        bm, pd, dp = [B[i][0] for i in order], P[j].denominator * ok, D * P[j].numerator  # m / D / P_j = m pd / dp
        for ia, (ma, na, sa, xa, ya, _, _) in enumerate(A):
            left, right = bisect_left(bm, D - ma - fl[j][1][0]), bisect_right(bm, D - ma - fl[j][0][0])
            left, right = (0, len(B)) if ldp else (left, right)
            count += right - left
            for ib in order[left:right]:
                mb, nb, sb, xb, yb, _, _ = B[ib]
                m = D - ma - mb  # the free coordinate's mass (box); inv: 1 / 1ᵀp (ldp)
                v, inv = (1.0, D / (ma + mb)) if ldp else (m / D, 1.0)
                g = a * v if u == "mse" else v * v if u == "histogram" else v * ln_up(m * pd / dp) if m else 0.0
                g = (ln_up(inv) if u == "mi" else 0.0) if ldp else g
                s, z = (sa + sb) * inv + g, (ya + yb) * inv + abs(g) + v
                U = (s * s if u == "mse" else s * inv if u == "histogram" else s) - (na + nb) * inv - nu * v
                U += 2**-40 * ((xa + xb) * inv + abs(nu * v) + z + z * z)
                if not -math.inf < U + 1e-300 < bf:  # it may reach the best (inf and nan are not screened out)
                    cands.append((U if math.isfinite(U) else math.inf, ia, ib))
        for _, ia, ib in (t for t in sorted(cands, reverse=True) if not t[0] + 1e-300 < bf):
            m = A[ia][0] + B[ib][0]  # the exact score: μ's upper bound (1ᵀp = 1, or ÷ 1ᵀp = m / D) − νᵀp
            f, inv = ([0] * 6, F(D, m)) if ldp else (feat(c, j, F(D - m, D)), 1)
            s, n = (A[ia][6] + B[ib][6] + f[k]) * inv, (A[ia][5] + B[ib][5] + f[1]) * inv
            g = -enclose("ln", 1 / inv)[0] if ldp and u == "mi" else 0
            best = max(best, (s * s if u == "mse" else s * inv if u == "histogram" else s + g) - n)
            bf = math.nextafter(flo(best), -math.inf)
    return best, count


def flo(x):  # a float of a rational; nan (never screened out) beyond the double range
    return float(x) if abs(x) < 2**1023 else math.nan


@lru_cache(maxsize=None)
def ln_node(y0):  # a float above ln y0, y0 a float (an exact rational)
    return math.nextafter(float(enclose("ln", F(y0))[1]), math.inf)


def ln_up(y):
    """A float upper bound on ln y (a float; inf out of range): ln y ≤ ln y0 + t − t²/2 + t³/3, t = y/y0 − 1, for all
    y0 > 0 (ln'''' < 0); y0: y to 8 bits (|t| ≤ 2^-8: 2^-33 above ln y). :func:`enclose`'s 50-digit upper bound
    exceeds ln y by at most 1e-48 (|ln y| + 1): within :func:`box_top`'s margin, as y's rounding is."""
    if not 1e-300 < y < 1e300:
        return math.inf
    y0 = math.ldexp(round((fr := math.frexp(y))[0] * 256), fr[1] - 8)
    return ln_node(y0) + (t := y / y0 - 1) * (1 - t * (0.5 - t / 3))


def rays(c):
    """Features of every extreme ray of the column cone with e^ε replaced by W ≥ e^ε (a cone containing it): double
    description for graph-, metric-ldp and cip (ldp's patterns and the box: :func:`box_top`)."""
    A = [[a / p for a, p in zip(row, c["P"])] for row in cone(c, c["eps"], 1)]  # on the columns c = P ∘ q
    return (features(c, enumerate(r)) for r in dd(A, len(c["P"])))


def columns(Q, tol):
    """Q's columns, its rows normalised exactly, once each row is a probability vector (each sum taken once: a row of
    20 000 entries summed again for each entry took more than 300 s)."""
    sums = [sum(row) for row in Q]
    for x, (row, s) in enumerate(zip(Q, sums)):
        if min(row) < 0 or abs(s - 1) > tol["row_sum"]:
            raise Rejected(f"row {x} of Q is not a probability vector (sum {float(s)!r})")
    return list(zip(*[[q / s for q in row] for row, s in zip(Q, sums)]))


def private(c, tol, rows):
    """Q's columns, rows normalised exactly, once Q is a channel that satisfies ``rows`` at eps + tolerance."""
    qs, eps = columns(c["Q"], tol), c["eps"] + tol["privacy"]
    # privacy at eps + tolerance: every row of the cone (e^x bounded below), over its nonzero entries
    for k, a in enumerate([(i, t) for i, t in enumerate(a) if t] for a in rows(c, eps, 0)):
        for y in (y for y, q in enumerate(qs) if sum(t * q[i] for i, t in a) < 0):
            raise Rejected(f"not private: output {y} breaks {c['notion']}: {which(c, k, y, eps)}")
    return qs


def check(c, tol):
    """The report on a loaded certificate, or Rejected with the first claim that fails."""
    P, u, qs = c["P"], c["utility"], private(c, tol, cone)
    cols = [features(c, enumerate(p * q for p, q in zip(P, col))) for col in qs]
    g_value, worst, count = sum(gain(c, f, False) for f in cols if f[0]), -math.inf, 0  # mi: a lower bound; mi ≥ 0
    box = c["notion"] in ("ldp", "lip", "pml", "alip")  # W, and e^eps_l bounded above: a larger box (ldp: patterns)
    worst, count = box_top(c, *factors(c, c["eps"], 1)) if box else (worst, count)
    for count, f in enumerate(() if box else rays(c), 1):  # graph-, metric-ldp and cip: double description
        worst = max(worst, (gain(c, f, True) - f[1]) / f[0])
    g_bound = dot(c["nu"], P) + worst
    mean, sq = dot(P, c["a"]), dot(P, [a * a for a in c["a"]])
    objectives = {"mse": (sq, sq - mean**2, -1), "histogram": (1, 1 - sum(p * p for p in P), -1), "mi": (0, 0, 1)}
    offset, scale, sign = objectives[u]  # objective = offset + sign Σ μ; scale: its size (mechopt's objective_scale:
    g_value, scale = (max(g_value, 0), entropy(P)) if u == "mi" else (g_value, scale)  # the constant's or identity's)
    value, bound, out = offset + sign * g_value, offset + sign * g_bound, dict(rays=count, inputs=len(P))
    why = f"a ray r has μ(r) − νᵀr = {float(worst):.3g}, above the claimed bound − νᵀP"
    return verdict(c, tol, value, bound, sign, scale, why, dict(out, outputs=len(qs)))


def check_rays(c, tol):
    """Private at every vertex v; per-vertex values off_v + sign Σ_y μ_v(V_v ∘ q_y), their worst the value; the bound
    Σ_v λ_v off_v + sign (1ᵀν + d max_r (Σ_v λ_v μ_v(V_v ∘ r) − νᵀr) / 1ᵀr), λ = w / Σ w, over every extreme ray r
    of the cone (rows of Q sum to 1: Σ_y 1ᵀq_y = d; the gains are sublinear, so the rays bound every column)."""
    V, d, sign, u = c["V"], len(c["P"]), 1 if c["utility"] == "mi" else -1, c["utility"]
    qs, lam, subs = private(c, tol, robust_rows), [t / sum(c["w"]) for t in c["w"]], [dict(c, P=v) for v in V]

    def gains(q, upper):  # μ_v(V_v ∘ q) for every vertex v (0 where V_v·q = 0)
        fs = [features(s, [(x, p * t) for x, (p, t) in enumerate(zip(s["P"], q))]) for s in subs]
        return [gain(s, f, upper) if f[0] else 0 for s, f in zip(subs, fs)]

    off = [0 if u == "mi" else 1 if u == "histogram" else dot(v, [a * a for a in c["a"]]) for v in V]
    per = [o + sign * sum(g) for o, g in zip(off, zip(*(gains(q, False) for q in qs)))]
    W = enclose("exp", c["eps"])[1]  # the LDP cone's rays: patterns in {1, W}^d; else double description
    rays = itertools.product((1, W), repeat=d) if c["notion"] == "ldp" else dd(robust_rows(c, c["eps"], 1), d)
    rho = [(dot(lam, gains(r, True)) - dot(c["nu"], r)) / sum(r) for r in rays]
    worst, count = max(rho), len(rho)
    bound = dot(lam, off) + sign * (sum(c["nu"]) + d * worst)
    why = f"a ray r has (Σ_v λ_v μ_v(r) − νᵀr) / 1ᵀr = {float(worst):.3g}, above the claimed bound's"
    hull = " only (not their hull: a prior inside may be worse)" if u in ("mse", "histogram") else " and their hull"
    out = dict(rays=count, inputs=d, outputs=len(qs), vertices=len(V), scope=f"the {len(V)} listed priors{hull}")
    var = [o - (dot(v, c["a"]) ** 2 if u == "mse" else dot(v, v)) for o, v in zip(off, V)]  # the constant's worst
    scale = min(map(entropy, V)) if u == "mi" else max(var)  # the objective's size (mi: the identity's worst)
    return verdict(c, tol, min(per) if sign > 0 else max(per), bound, sign, scale, why, out)


def check_robust(c, tol):
    """Private at every vertex; value max_v Σ_x V_x Σ_y Q[x, y] L[x, y]; bound 1ᵀν + Σ_x min_y R[y][x] with residuals
    R[y] = P_w ∘ L[:, y] − ν − Σ_k μ_yk a_k, P_w = Σ_v w_v V_v / Σ w, a_k the rows of the private cone with e^eps
    bounded above (so a_k·q ≥ 0 on every private column q): every private channel has worst loss ≥ Σ_y (P_w ∘ L_y)·q_y
    = 1ᵀν + Σ_y Σ_k μ_yk a_k·q_y + Σ_x Σ_y R[y][x] Q[x, y] ≥ 1ᵀν + Σ_x min_y R[y][x] (rows of Q sum to 1)."""
    if c["L"] is None:
        return check_rays(c, tol)
    V, L, nu, d, A = c["V"], c["L"], c["nu"], len(c["P"]), robust_rows(c, c["eps"], 1)
    qs, mu = private(c, tol, robust_rows), c["mu"]
    if len(mu) != len(qs) or any(len(m) != len(A) or min(m, default=0) < 0 for m in mu):
        raise BadFile(f"dual.mu needs one list of {len(A)} multipliers ≥ 0 (rows of the private cone) per output")
    value = max(sum(v[x] * dot([q[x] for q in qs], L[x]) for x in range(d)) for v in V)
    bound, worst = loss_bound(V, c["w"], L, nu, mu, A)
    why = f"the residuals add Σ_x min_y R[y][x] = {float(worst):.3g} to 1ᵀν"
    scope = f"the {len(V)} listed priors and their hull"  # a loss linear in the prior: its worst is a vertex
    out = dict(rows=len(A), inputs=d, outputs=len(qs), vertices=len(V), scope=scope)
    return verdict(c, tol, value, bound, -1, max(abs(t) for row in L for t in row), why, out)


def loss_bound(V, w, L, nu, mu, A):
    """(1ᵀν + Σ_x min_y R[y][x], Σ_x min_y R[y][x]) of :func:`check_robust`, in the exact numbers given."""
    Pw = [sum(t * v[x] for t, v in zip(w, V)) / sum(w) for x in range(len(nu))]
    mix = [[sum(t * a[x] for t, a in zip(m, A) if t) for x in range(len(nu))] for m in mu]  # Σ_k μ_yk a_k
    worst = sum(min(Pw[x] * L[x][y] - nu[x] - r[x] for y, r in enumerate(mix)) for x in range(len(nu)))
    return sum(nu) + worst, worst


def verdict(c, tol, value, bound, sign, scale, why, out):
    """The report once the value and the bound (sign −1: a lower bound on a minimum) match the claims; gaps relative to
    the value's own size (mechopt's relative_gap; floor · scale for a value of 0 at ``scale``: |value| ≤ ROUNDING ·
    scale). The claimed bound may miss by match · floor · scale: float duals round at the objective's scale."""
    floor, zero = tol["floor"] * scale, abs(value) <= ROUNDING * scale

    def rel(x, ref):  # |x − ref| / max(|x|, |ref|, |value|, floor if the value is 0): relative at every magnitude
        den = max(abs(x), abs(ref), abs(value), floor if zero else 0)
        return float(abs(x - ref) / den) if den else float(0 if x == ref else "inf")

    if rel(c["value"], value) > tol["match"]:
        raise Rejected(f"the value of Q is {float(value)!r}, not the claimed {float(c['value'])!r}")
    if sign * (bound - c["bound"]) > tol["match"] * max(abs(c["bound"]), floor):
        raise Rejected(f"the duals do not prove the claimed bound {float(c['bound'])!r}, only {float(bound)!r}: {why}")
    of = "floor x the objective's scale (the value is 0 at that scale)" if zero else "the value"
    out = dict(value=float(value), bound=float(bound), gap=rel(value, bound), gap_of=of, **out)
    gap = max(out["gap"], rel(value, c["bound"]))  # optimal at the bound proved and at the bound claimed
    if c["status"] == "optimal" and gap > tol["gap"]:
        at = f"bound {out['bound']!r}" if gap == out["gap"] else f"claimed bound {float(c['bound'])!r}"
        raise Rejected(f"not optimal: value {out['value']!r}, {at}, gap {gap:.3g} of {of}")
    return out


def tolerances(tol):
    """The checker's tolerances, defaults overridden by ``tol``, as rationals (each in [0, 1])."""
    return {k: F(tolerance(v)) for k, v in {**TOLERANCES, **(tol or {})}.items()}


def run(path, tol=None):
    """(exit status, report) for the certificate at ``path``: 0 verified, 1 rejected, 2 unreadable."""
    tol, t0, out = tolerances(tol), time.perf_counter(), {"file": path}
    try:
        c = load(path)
        out.update(notion=c["notion"], utility=c["utility"], eps=float(c["eps"]), status=c["status"])
        out.update((check_robust if c.get("kind") == "robust" else check)(c, tol), verdict="verified")
    except (Rejected, BadFile) as exc:
        out.update(verdict="rejected" if isinstance(exc, Rejected) else "bad file", reason=str(exc))
    except ArithmeticError as exc:  # a number too large for a double (a value 1e300 squared), a zero sum
        out.update(verdict="bad file", reason=f"numbers out of range ({type(exc).__name__}: {exc}): {USE}")
    out.update(time_s=round(time.perf_counter() - t0, 3), tolerances={k: float(v) for k, v in tol.items()})
    return {"verified": 0, "rejected": 1}.get(out["verdict"], 2), out


def line(out):
    """The one-line verdict printed without --json."""
    if out["verdict"] != "verified":
        return f"{out['verdict']}: {out['file']}: {out['reason']}"
    return (
        f"verified: {out['file']}: {out['notion']} eps = {out['eps']:g}, {out['utility']}, {out['inputs']} inputs "
        f"x {out['outputs']} outputs; value {out['value']!r}, bound {out['bound']!r} over "
        + (f"{out['rays']} rays, " if "rays" in out else f"{out['vertices']} vertices ({out['rows']} cone rows), ")
        + f"gap {out['gap']:.3g} of {out['gap_of']} ({out['time_s']} s)"
        + (f"; the worst case over {out['scope']}" if "scope" in out else "")
    )


def main(argv=None):
    ap = argparse.ArgumentParser(prog="certcheck", description="Check a mechopt certificate in exact arithmetic.")
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON document")
    for name, val in TOLERANCES.items():
        ap.add_argument("--" + name.replace("_", "-"), type=tolerance, default=val, dest=name, help=f"default {val:g}")
    args = ap.parse_args(argv)
    code, out = run(args.file, {k: getattr(args, k) for k in TOLERANCES})
    print(json.dumps(out) if args.json else line(out))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
