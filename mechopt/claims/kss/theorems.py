"""Claims of the k-subset paper (Wang et al.), checked numerically for ``mechopt verify --paper kss``.

Each check compares a closed form with a direct computation from the channel
matrix (mutual information, audits) or with a certified optimum (the ``exact``
solver, or an LP over all LDP patterns when ``exact`` is not installed). This
module is the registry: the checks live in :mod:`~mechopt.claims.kss.mutual_info`
(Sections 2, 4 and 6), :mod:`~mechopt.claims.kss.channels` (eqs. (5)-(8)) and
:mod:`~mechopt.claims.kss.l2_error` (Section 3.3); the section-by-section claims
in :mod:`~mechopt.claims.kss.sections` follow them in ``CLAIMS``.

Examples
--------
>>> ids = [c.id for c in CLAIMS]
>>> {"kss.thm2_1", "kss.thm3_1", "kss.thm3_2", "kss.eq8"} <= set(ids)
True
"""

from __future__ import annotations

from typing import Any

from mechopt.claims._spec import attach
from mechopt.claims.kss import sections as kss_sections
from mechopt.claims.kss.channels import check_eq5, check_eq6, check_eq7, check_eq8, eq8_mass_deviation
from mechopt.claims.kss.l2_error import check_eq9, check_thm3_1, check_thm3_2
from mechopt.claims.kss.mutual_info import (
    check_cor2_1,
    check_cor2_2,
    check_eps2_8,
    check_mcgregor,
    check_nonuniform,
    check_thm2_1,
)
from mechopt.claims.kss.rechecks import RECHECKS
from mechopt.claims.kss.util import PAPER
from mechopt.jobs.verify import Claim

__all__ = ["CLAIMS"]


_UNI = "uniform prior on d symbols, eps-LDP channels"


def _c(
    cid: str,
    statement: str,
    domain: str,
    check: Any,
    section: str,
    assumptions: str = _UNI,
    kind: str = "theorem",
    **extra: Any,
) -> Claim:
    return Claim(cid, PAPER, statement, domain, check, section=section, assumptions=assumptions, kind=kind, **extra)


_BASE_CLAIMS: list[Claim] = [
    _c(
        "kss.thm2_1",
        "sup_{Q eps-LDP} I(X;Z) = max_{k in {floor(beta), ceil(beta)}} I_k for uniform X",
        "uniform prior, d in {2..64}, eps in {0.1..5}; vs the certified optimum (exact solver / pattern LP)",
        check_thm2_1,
        "Theorem 2.1",
        _UNI + ", any output alphabet (certified optimum)",
    ),
    _c(
        "kss.eq5",
        "the k-subset mechanism (eq. 5) is a valid eps-LDP channel with I(X;Z) = I_k",
        "d in {2,3,5,8}, all k, eps in {0.5, 2}",
        check_eq5,
        "Sec. 3.1, eq. (5)",
        kind="numeric claim",
    ),
    _c(
        "kss.eq6",
        "multivariate RR (eq. 6) is eps-LDP with I(X;Z) = I_1",
        "d in {2..64}",
        check_eq6,
        "eq. (6)",
        kind="numeric claim",
    ),
    _c(
        "kss.eq7",
        "binary RR flipping bits w.p. 1/(e^{eps/2}+1) has the channel of eq. (7) and is eps-LDP",
        "d in {2,3,5,8}",
        check_eq7,
        "eq. (7)",
        kind="numeric claim",
    ),
    _c(
        "kss.eq8",
        "I(Z;X) of binary RR = sum_k C(d,k) e^{eps(d-k-1)/2}(k e^eps+d-k)/((e^{eps/2}+1)^d d) I_k "
        "<= (1 - (e^{eps(d-1)/2} + e^{-eps/2})/(e^{eps/2}+1)^d) I_{k*}",
        "d in {2..10}; equality, the corrected and the printed bound, and the size-d mass",
        check_eq8,
        "eq. (8)",
        kind="numeric claim",
        recheck=lambda ce: eq8_mass_deviation(int(ce["d"]), float(ce["eps"])),
    ),
    _c(
        "kss.cor2_1",
        "amortising a pattern mechanism (eq. 3) preserves I(X;Z) and validity",
        "random pattern mechanisms, d in {3..6}",
        check_cor2_1,
        "Corollary 2.1",
    ),
    _c(
        "kss.cor2_2",
        "I(X;Zbar) = sum_k (k e^eps + d - k)/d sum(W^(d,k)) I_k <= max_k I_k",
        "random pattern mechanisms, d in {3..8}",
        check_cor2_2,
        "Corollary 2.2",
    ),
    _c(
        "kss.eq9",
        "E f(X_j) = n theta_j g_k + n (1 - theta_j) h_k and the l2 error formula of Section 3.3",
        "d in {3..8}, all k; deviation per user",
        check_eq9,
        "Sec. 3.3, eq. (9)",
        "k-subset mechanism with the remapping estimator, any theta",
        "numeric claim",
    ),
    _c(
        "kss.thm3_1",
        "the l2-optimal subset size is floor or ceil of d/(1+e^eps)",
        "d in {2..1000}, eps in {0.01..8}; relative deviation from the best k in 1..d-1",
        check_thm3_1,
        "Theorem 3.1",
        "k-subset mechanisms with the remapping estimator, worst-case theta",
    ),
    _c(
        "kss.thm3_2",
        "every symmetric power-set mechanism (hybrid of k-subset) with the remapping estimator "
        "has sup_theta l2 error >= the k#-subset error",
        "BRR, MRR and random hybrids, d in {2..256}",
        check_thm3_2,
        "Theorem 3.2",
        "symmetric power-set mechanisms, remapping estimator, worst-case theta",
    ),
    _c(
        "kss.mcgregor",
        "for a uniform bit I(Z;X_b) = I_1 <= 3 eps^2/2 (McGregor et al.)",
        "eps in (0, 10]",
        check_mcgregor,
        "Sec. 4 (Related work)",
        "uniform bit, eps-LDP",
        "remark",
    ),
    _c(
        "kss.sec4_eps2_8",
        "I(Z;X_d) <= I_beta <= log((e^eps-1)/eps) + eps/(e^eps-1) - 1, hence <= eps^2/8 for any d",
        "d in {2..4096}, eps in {0.01..5}",
        check_eps2_8,
        "Sec. 4 (Related work)",
    ),
    _c(
        "kss.open_prior",
        "(open question of Section 6) the Theorem 2.1 bound also holds for non-uniform priors",
        "random Dirichlet priors, d in {2..8}, eps in {0.5..4}; certified optimum",
        check_nonuniform,
        "Sec. 6 (open question)",
        "non-uniform priors, eps-LDP channels, certified optimum",
        "remark",
    ),
]


CLAIMS: list[Claim] = attach([*_BASE_CLAIMS, *kss_sections.CLAIMS], RECHECKS)
