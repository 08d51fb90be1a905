"""The channels peer libraries' frequency oracles define by their documented parameters, built from our oracles.

``("pure-ldp", "DE" | "OUE" | "SUE" | "OLH")`` and ``("multi-freq-ldpy", "GRR" | "OUE" | "SUE" | "SS" |
"OLH")``; :mod:`mechopt.oracles.peers` calls the libraries themselves and audits them against these channels.

Examples
--------
>>> doc = documented("multi-freq-ldpy", "SS", 8, 1.0)
>>> doc["params"]["k"], round(doc["eps_audited"], 12)
(2, 1.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ParamError, ProblemError
from mechopt.model.counting import comb_at_most
from mechopt.notions import LDP
from mechopt.oracles.bits import BRR, OUE
from mechopt.oracles.frequency import GRR, KSubset

__all__ = [
    "MECHANISMS",
    "MAX_OUTPUTS",
    "check_mechanism",
    "ss_k",
    "olh_g",
    "our_oracle",
    "documented",
    "mechanism_json",
]

MECHANISMS = {"pure-ldp": ("DE", "OUE", "SUE", "OLH"), "multi-freq-ldpy": ("GRR", "OUE", "SUE", "SS", "OLH")}


MAX_OUTPUTS = 4096


def check_mechanism(lib: str, mech: str) -> None:
    if lib not in MECHANISMS or mech not in MECHANISMS[lib]:
        raise ParamError(
            f"unknown peer mechanism {lib}/{mech}; known: "
            + ", ".join(f"{k}/{m}" for k, v in MECHANISMS.items() for m in v)
        )


def ss_k(d: int, eps: float) -> int:
    """multi-freq-ldpy's subset size: max(1, rint(d/(e^ε+1))) (numpy rint: ties to even).

    Examples
    --------
    >>> ss_k(256, 1.0), ss_k(4, 3.0)
    (69, 1)
    """
    return int(max(1, np.rint(d / (math.exp(eps) + 1))))


def olh_g(eps: float) -> int:
    return int(round(math.exp(eps))) + 1


def our_oracle(lib: str, mech: str, d: int, eps: float):
    """Our oracle with the library's documented parameters."""
    if mech in ("DE", "GRR"):
        return GRR(d, eps)
    if mech == "OUE":
        return OUE(d, eps)
    if mech == "SUE":
        return BRR(d, eps)
    if mech == "SS":
        return KSubset(d, eps, min(ss_k(d, eps), d - 1))
    return None


def documented(lib: str, mech: str, d: int, eps: float) -> dict[str, Any]:
    """The channel the documented parameters define: {params, g, h, Q (when ≤ 4096 outputs), eps_audited}.

    GRR/DE: eq. (6); OUE/SUE: unary encodings (p, q); SS: the k-subset
    mechanism (eq. (5)) with the library's k; OLH: per hash seed a GRR on
    g = round(e^ε) + 1 values (``Q_per_seed``), hit rates g = p, h = 1/g.

    Examples
    --------
    >>> doc = documented("pure-ldp", "OUE", 3, 1.0)
    >>> doc["Q"].shape, round(doc["eps_audited"], 12)
    ((3, 8), 1.0)
    """
    check_mechanism(lib, mech)
    if mech == "OLH":
        g = olh_g(eps)
        e = math.exp(eps)
        p, q = e / (e + g - 1), 1 / (e + g - 1)
        Q = GRR(g, eps).matrix()  # per seed: inputs hashed to g values, then GRR on them
        return {
            "params": {"g": g, "p": p, "q": 1.0 / g, "q_grr": q},
            "g": p,
            "h": 1.0 / g,
            "Q": None,
            "Q_per_seed": Q,
            "eps_audited": LDP(eps).audit(Q).eps,
            "outputs": "(seed, y): 2^32 xxh32 seeds x g values",
        }
    orc = our_oracle(lib, mech, d, eps)
    params: dict[str, Any] = {"p": orc.g, "q": orc.h}
    if mech == "SS":
        params["k"] = orc.k
    Q = None
    if (
        (mech in ("DE", "GRR"))
        or (mech == "SS" and comb_at_most(d, orc.k, MAX_OUTPUTS))
        or (mech in ("OUE", "SUE") and d <= 12)
    ):
        Q = orc.matrix()
    out = {"params": params, "g": orc.g, "h": orc.h, "Q": Q}
    out["eps_audited"] = LDP(eps).audit(Q).eps if Q is not None else _structural_eps(orc, mech)
    return out


def _structural_eps(orc, mech: str) -> float:
    """ε of a channel too large to materialise, from its structure: unary encodings
    log p(1−q)/(q(1−p)); the k-subset mechanism's column ratio is e^ε exactly (eq. (5))."""
    if mech in ("OUE", "SUE"):
        return math.log(orc.g * (1 - orc.h) / (orc.h * (1 - orc.g)))
    return float(orc.eps)


def mechanism_json(lib: str, mech: str, d: int, eps: float) -> dict[str, Any]:
    """A mechanism file for ``mechopt audit`` ({"Q", "notion", "eps", "source"}) from the documented channel.

    Examples
    --------
    >>> doc = mechanism_json("pure-ldp", "DE", 3, 0.5)
    >>> len(doc["Q"]), doc["notion"]
    (3, 'ldp')
    """
    doc = documented(lib, mech, d, eps)
    Q = doc["Q"] if doc["Q"] is not None else doc.get("Q_per_seed")
    if Q is None:
        raise ProblemError(f"{lib}/{mech} at d={d} has too many outputs to write; use a smaller d")
    return {
        "Q": np.asarray(Q).tolist(),
        "notion": "ldp",
        "eps": eps,
        "source": f"{lib} {mech} (documented parameters {doc['params']})",
    }
