"""LIP paper (Jiang, Li, Tandon), proofs: Proposition 4, Theorem 3 and its example, App. B
(Lemmas 1-3, eqs. (48)-(52)), Theorem 4 / App. C, App. D (eqs. (55)-(57)), Theorem 6 and
Proposition 5 (eqs. (35)-(40)).

Each claim records where it is printed, the statement as printed, the policy class it is judged
under and how it is checked (see :mod:`mechopt.jobs.verify`); this module is their registry, the
check functions (returning a :class:`~mechopt.jobs.verify.Verdict`) live with their sections in
:mod:`~mechopt.claims.lip.binary`, :mod:`~mechopt.claims.lip.theorem3`, :mod:`~mechopt.claims.lip.mimo`
and :mod:`~mechopt.claims.lip.relations`. Conventions: binary channel Q = [[1-q0, q0], [q1, 1-q1]]
(eq. (15)); values are one user's MSE; the judge is the certified optimum.

Examples
--------
>>> next(c for c in CLAIMS if c.id == "lip.eq52").run().verdict
'holds'
"""

from __future__ import annotations

from mechopt.claims._spec import spec as Spec
from mechopt.claims.lip.binary import check_prop4_gap_shape, check_prop4_strict
from mechopt.claims.lip.mimo import check_appC_more, check_eq55_57, check_thm4_fewer
from mechopt.claims.lip.relations import check_prop5_proof, check_thm6_converse, check_thm6_proof
from mechopt.claims.lip.theorem3 import (
    check_appB_lemma1,
    check_appB_lemma2,
    check_eq51,
    check_eq52,
    check_thm3_example,
    check_thm3_mae_unique,
)
from mechopt.claims.lip.util import PAPER

__all__ = ["CLAIMS"]


CLAIMS = [
    Spec(
        "lip.prop4_gap_shape",
        PAPER,
        "Prop. 4 proof",
        "dDE*/dP1 = 0 when P1 = 0.5 ... as |P1 - 0.5| grows, DE* also increases (DE* = E*_LDP - E*_LIP)",
        "binary, global prior",
        "DE*(P1) on P1 in [0.5, 0.99], eps in {0.5..5}; paper formulas and certified optima",
        check_prop4_gap_shape,
        "proof-step",
    ),
    Spec(
        "lip.prop4_strict",
        PAPER,
        "Prop. 4 proof; Intro; Conclusion",
        "E*_LIP = E*_LDP if eps = 0 or eps = inf (strictly smaller otherwise): eps-LIP always outperforms eps-LDP",
        "binary, valid optimal mechanisms (certified)",
        "7 P1 x 5 eps, strict inequality",
        check_prop4_strict,
    ),
    Spec(
        "lip.thm3_example",
        PAPER,
        "Sec. IV-B, example after Thm 3",
        "P = (0.1,0.2,0.7): q11 = 1-0.9/eps, q22 = 1-0.8/eps, q33 = 1-0.3/eps, q21 = q31 = 0.1/eps, ...",
        "MIMO eps-LIP",
        "audit printed and corrected channels; value vs certified",
        check_thm3_example,
        "example",
    ),
    Spec(
        "lip.thm3_mae_unique",
        PAPER,
        "Sec. IV-B after Thm 3",
        "there are d! optimal solutions; when minimizing the MAE, there is a unique solution remaining",
        "MIMO eps-LIP inside Theorem 3's region",
        "all output permutations of the Thm-3 channel, MAE = Pr(X != Y)",
        check_thm3_mae_unique,
        "remark",
    ),
    Spec(
        "lip.appB_lemma1",
        PAPER,
        "App. B, Lemma 1",
        "q_nk = lambda_k gives the minimum Var[X_hat] = 0; 0/1 permutation channels give the maximum Var[X]",
        "MIMO, no privacy constraint",
        "40 random priors",
        check_appB_lemma1,
        "proof-step",
    ),
    Spec(
        "lip.appB_lemma2",
        PAPER,
        "App. B, Lemma 2, eq. (48)",
        "Var[X_hat] is monotonically increasing when q_lk > lambda_k, decreasing when q_lk < lambda_k",
        "MIMO, partial derivative in one entry (as in (48))",
        "finite differences on 300 random (P, Q, l, k)",
        check_appB_lemma2,
        "proof-step",
    ),
    Spec(
        "lip.eq51",
        PAPER,
        "App. B, Lemma 3, eq. (51)",
        "lambda_k/q_kk - e^-eps = (1 - e^-eps + P_k(e^eps - e^-eps))/(e^eps + P_k - 1) >= 0",
        "Theorem-3 channel",
        "exact evaluation on P_k in 50 points x 5 eps",
        check_eq51,
        "proof-step",
    ),
    Spec(
        "lip.eq52",
        PAPER,
        "App. B, eq. (52)",
        "e^eps - lambda_k/q_kk = e^eps(e^eps - 1)/(e^eps + P_k - 1) >= 0",
        "Theorem-3 channel",
        "exact evaluation",
        check_eq52,
        "proof-step",
    ),
    Spec(
        "lip.thm4_fewer",
        PAPER,
        "Thm 4 / App. C ('Assume that f < d ... decreased utility')",
        "f < d achieves decreased utility: the optimal output range is f* = d",
        "MIMO eps-LIP, sum utility, priors outside min P >= 1/(1+e^eps)",
        "basic optimal LP solution over the certified optimum's posteriors; 1e-3 prior perturbations",
        check_thm4_fewer,
    ),
    Spec(
        "lip.appC_more",
        PAPER,
        "App. C ('Assume that d < f')",
        "d < f is equivalent to the general model with d = f",
        "MIMO / histogram eps-LIP",
        "outputs of a basic optimal solution <= d",
        check_appC_more,
        "proof-step",
    ),
    Spec(
        "lip.appD_eq55_57",
        PAPER,
        "App. D, eqs. (55)-(57)",
        "sum_k Var(E[1{X=k}|Y]) = sum_k P_k^2 sum_j q_kj (q_kj/lambda_j - 1); (56) with m = n = k, a_j = 1 becomes "
        "(57) = sum_k P_k^2 sum_j q_kj (q_kj/lambda_k - 1)",
        "histogram, any channel",
        "direct computation on 60 random channels",
        check_eq55_57,
        "proof-step",
    ),
    Spec(
        "lip.thm6_proof",
        PAPER,
        "Thm 6 proof, eqs. (35)-(36)",
        "e^eps Pr(S=s) <= Pr(S=s|Y=y) <= e^eps Pr(S=s); Pr(D_i=j|Y=y) = sum_{s=1}^N ...",
        "eps-LIP channel on S, global prior",
        "40 random channels at their own LIP level",
        check_thm6_proof,
        "proof-step",
    ),
    Spec(
        "lip.thm6_converse",
        PAPER,
        "Thm 6 proof (last sentence)",
        "It's easy to check it's not vice versa",
        "CIP (Definition 4) vs eps-LIP on S",
        "search random channels for eps_CIP < eps_LIP",
        check_thm6_converse,
        "remark",
    ),
    Spec(
        "lip.prop5_proof",
        PAPER,
        "Prop. 5 proof, eqs. (39)-(40)",
        "e^-eps <= {NP1/E[S|Y], NP1/(N - E[S|Y])} <= e^eps, which infers e^-eps NP1 <= S_hat <= N - e^-eps(N - P1 N)",
        "CIP, global prior",
        "epsilon from the ratios vs CIP.epsilon on 60 random channels",
        check_prop5_proof,
        "proof-step",
    ),
]
