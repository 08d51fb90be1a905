"""The LIP paper's theorems as checkable claims (``mechopt verify --paper lip``).

Each closed-form claim (a) audits the closed form's mechanism against its own
privacy definition and (b) compares its value with the certified optimum of
the exact solver over a grid of priors and ε. The deviation of one instance is
max(privacy violation in nats, relative value gap); tolerance 1e-6. Relations
(Theorem 1, Propositions 1, 2, Theorem 6) are checked on random channels.

This module is the registry: the checks live with their sections in
:mod:`~mechopt.claims.lip.binary` (Sec. IV-A), :mod:`~mechopt.claims.lip.mimo`
(Sec. IV-B/C), :mod:`~mechopt.claims.lip.relations` (Sec. III, IV-D) and
:mod:`~mechopt.claims.lip.numbers` (estimators and Example 1); ``CLAIMS`` adds the
section-by-section claims of :mod:`~mechopt.claims.lip.formulas`,
:mod:`~mechopt.claims.lip.proofs` and :mod:`~mechopt.claims.lip.figures`.

Examples
--------
>>> from mechopt.claims.lip.theorems import CLAIMS
>>> sorted(c.id for c in CLAIMS if c.section.startswith("Sec. IV-A, eq"))
['lip.eq16', 'lip.eq17', 'lip.eq18']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mechopt.claims._spec import attach
from mechopt.claims.lip import figures as lip_figures
from mechopt.claims.lip import formulas as lip_formulas
from mechopt.claims.lip import proofs as lip_proofs
from mechopt.claims.lip.binary import EPS_GRID, P1_GRID, check_prop3, check_prop4, check_thm2
from mechopt.claims.lip.mimo import MIMO_EPS, MIMO_PRIORS, check_ldp_mimo, check_thm3, check_thm4, check_thm5
from mechopt.claims.lip.numbers import check_eq41, check_ex1, check_oue, eq41_printed_bias, ex1_deviation, oue_deviation
from mechopt.claims.lip.rechecks import RECHECKS
from mechopt.claims.lip.relations import check_prop1, check_prop2, check_prop5, check_thm1, check_thm6
from mechopt.jobs.verify import Claim, Verdict

__all__ = ["CLAIMS"]


def _claim(
    cid: str,
    statement: str,
    domain: str,
    check: Callable[[], Verdict],
    section: str,
    assumptions: str,
    kind: str = "theorem",
    **extra: Any,
) -> Claim:
    return Claim(
        id=cid,
        paper="lip",
        statement=statement,
        domain=domain,
        check=check,
        section=section,
        assumptions=assumptions,
        kind=kind,
        **extra,
    )


_BIN = f"P1 in {list(P1_GRID)}, eps in {list(EPS_GRID)}"


_MIMO = f"priors {[list(map(lambda x: round(x, 3), p)) for p in MIMO_PRIORS]}, eps in {list(MIMO_EPS)}"


_VALID = "valid optimal mechanisms (certified optimum of the same instance, any output alphabet)"


_BASE_CLAIMS: list[Claim] = [
    _claim(
        "lip.thm1",
        "eps-LDP => eps-LIP => 2eps-LDP (Theorem 1)",
        "300 random channels, d, m in 2..4",
        check_thm1,
        "Theorem 1",
        "any channel, any prior",
    ),
    _claim(
        "lip.prop1",
        "eps-LIP => eps-MIP: I(X;Y) <= eps (Proposition 1)",
        "300 random channels",
        check_prop1,
        "Proposition 1",
        "any channel, any prior",
    ),
    _claim(
        "lip.prop2",
        "the N-user MMSE is the sum of the local MMSEs (Proposition 2, eq. (9))",
        "N in 2..4 binary users, random local priors and channels; exact enumeration",
        check_prop2,
        "Proposition 2, eq. (9)",
        "independent users, local channels, MMSE estimator",
    ),
    _claim(
        "lip.thm2",
        "binary LIP optimum q0 = P1/e^eps, q1 = (1-P1)/e^eps (or swapped), MSE eq. (21) (Theorem 2)",
        _BIN,
        check_thm2,
        "Sec. IV-A, Theorem 2, eq. (21)",
        "binary eps-LIP channels, MMSE; " + _VALID,
    ),
    _claim(
        "lip.prop3",
        "the pair q0 = P1/e^eps, q1 = (1-P1)/e^eps minimises MSE and MAE together (Proposition 3)",
        _BIN,
        check_prop3,
        "Sec. IV-A, Proposition 3",
        "binary eps-LIP channels; " + _VALID,
    ),
    _claim(
        "lip.prop4",
        "binary LDP optimum q0 = q1 = 1/(e^eps+1), MSE eq. (24), and E*_LDP >= E*_LIP (Proposition 4)",
        _BIN,
        check_prop4,
        "Sec. IV-A, Proposition 4, eq. (24)",
        "binary eps-LDP channels; " + _VALID,
    ),
    _claim(
        "lip.thm3",
        "MIMO LIP optimum q_mm = 1-(1-P_m)/e^eps, q_mk = P_k/e^eps (Theorem 3)",
        _MIMO,
        check_thm3,
        "Sec. IV-B, Theorem 3",
        "MIMO eps-LIP, sum utility with values 0..d-1 or k^2; " + _VALID,
    ),
    _claim(
        "lip.ldp_mimo",
        "MIMO LDP optimum q_mm = e^eps/(e^eps+d-1), q_mk = 1/(e^eps+d-1) (Section IV-B)",
        _MIMO + "; sum and histogram",
        check_ldp_mimo,
        "Sec. IV-B (context-aware LDP)",
        "valid optimal eps-LDP mechanisms, any output alphabet (certified); the closed form is optimal only "
        "at larger eps",
    ),
    _claim(
        "lip.thm4",
        "the optimal output range of Opt-mimo-LIP is f* = d (Theorem 4)",
        _MIMO + "; sum and histogram",
        check_thm4,
        "Sec. IV-B, Theorem 4; App. C",
        "eps-LIP, sum and histogram utilities; read as 'exactly d outputs are needed' (never more than d "
        "holds everywhere, see lip.appC_more)",
    ),
    _claim(
        "lip.thm5",
        "histogram LIP optimum = the Theorem-3 channel (Theorem 5)",
        _MIMO,
        check_thm5,
        "Sec. IV-C, Theorem 5; App. D",
        "histogram utility, eps-LIP; " + _VALID,
    ),
    _claim(
        "lip.thm6",
        "eps-LIP on S implies centralized IP (Definition 4) (Theorem 6)",
        "N in {2,3,5}, global and local priors, random 3-output channels",
        check_thm6,
        "Sec. IV-D, Theorem 6",
        "channels on the sum S of N binary users",
    ),
    _claim(
        "lip.prop5",
        "CIP optimum = min MSE s.t. e^-eps N P1 <= S_hat <= N - e^-eps (N - N P1) (Proposition 5)",
        "N in {2,3,4} x 63 seeded (P1, eps) pairs, P1 ~ U(0.02,0.98), eps ~ U(0.1,3): equal inside the region, "
        "different outside",
        check_prop5,
        "Sec. IV-D, Proposition 5",
        "CIP (Definition 4) on S, global prior; " + _VALID,
    ),
    _claim(
        "lip.eq41",
        "C_hat = (sum_i Y_i - N p)/(1 - 2p) with p = e^eps/(e^eps+1) is an unbiased estimator of the "
        "count, with MSE N e^eps/(e^eps-1)^2 (eqs. (41)-(42))",
        "N in {1,10,100}, eps in {0.5,1,2,4}, P1 in {0.1,0.5,0.9}; bias for every S = 0..N",
        check_eq41,
        "Sec. V-A1, eqs. (41)-(42)",
        "context-free binary RR (Proposition 4's channel), every user",
        "numeric claim",
        recheck=lambda ce: eq41_printed_bias(int(ce["n_users"]), float(ce["eps"]), int(ce["S"])),
    ),
    _claim(
        "lip.oue",
        "OUE histogram MSE = 4 n e^eps/(e^eps-1)^2 (Section V-A3)",
        "d in {2,5,20}, uniform prior, eps in {0.5,1,2,5}, per user",
        check_oue,
        "Sec. V-A3 (Fig. 7)",
        "OUE with its unbiased estimator, uniform prior",
        "numeric claim",
        recheck=lambda ce: oue_deviation(int(ce["d"]), float(ce["eps"])),
        tol=1e-6,
    ),
    _claim(
        "lip.ex1",
        "Example 1 / Fig. 2: E_LDP = 100e^eps/(e^eps+1)^2, E_OptLDP = 25/(0.5-e^eps/2)^2, E_LIP = (10e^eps-1)/0.64",
        "N = 100, P1 = 0.1, eps in {0.5,1,2,3,4}",
        check_ex1,
        "Sec. I, Example 1 and Fig. 2",
        "binary, N = 100, P1 = 0.1; the printed pairs are valid only in part (lip.ex1_optldp, lip.ex1_lip_validity)",
        "numeric claim",
        recheck=lambda ce: ex1_deviation(float(ce["eps"]), str(ce["quantity"])),
        tol=1e-6,
    ),
]


CLAIMS: list[Claim] = attach([*_BASE_CLAIMS, *lip_formulas.CLAIMS, *lip_proofs.CLAIMS, *lip_figures.CLAIMS], RECHECKS)
