"""Claims of Sharma & Amariucai, "A Practical Approach to Navigating the Tradeoff Between
Privacy and Precise Utility" (Gaussian features), checked numerically.

Units: nats for mutual informations, the problem's value I(X_p; Y) and the
deviations of the curve claims; Fisher units (1/variance) for eq. (10).

Examples
--------
>>> [c.id for c in CLAIMS][:3]
['gauss.eq10', 'gauss.eq12', 'gauss.eq13']
>>> next(c for c in CLAIMS if c.id == "gauss.eq13").run().verdict
'holds'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.api import solve
from mechopt.claims._spec import attach
from mechopt.claims.gauss import sections as gauss_sections
from mechopt.claims.gauss.util import DELTAS, _check_same_curves, _dataset1_curves, curve, random_instance
from mechopt.jobs.verify import Claim, Verdict, corrected
from mechopt.problems.gauss.data import DATASETS
from mechopt.problems.gauss.info import bnn_eq12, fisher_eq10, mi_direct, mi_from_fisher_eq13, s_from_var
from mechopt.problems.gauss.problem import GaussProblem

__all__ = ["CLAIMS", "curve", "random_instance", "DELTAS"]


#: The δ grid of the "must show" table (nats).
def _noise_draws(rng: np.random.Generator, n: int, k: int) -> list[np.ndarray]:
    out = [np.zeros(n), np.full(n, np.inf)]
    for _ in range(k):
        v = rng.exponential(2.0, n)
        v[rng.random(n) < 0.2] = 0.0
        v[rng.random(n) < 0.2] = np.inf
        out.append(v)
    return out


EQ10_CORRECTION = (
    "𝓘(X_u) = b_{n+1,n+1} − Σ_u⁻¹ = −H (b the entry (n+1, n+1) of Σ_{Y∪Xu}⁻¹, i.e. eq. (11) with "
    "that index); the printed chain 𝓘 = −E(H) = H drops the sign (H as defined is negative "
    "semidefinite) and eq. (11)'s b_nn names the (n, n) entry"
)


def _eq10_case(seed: int, noise: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """(eq. (11) as corrected, the Fisher information Bᵀ Σ_{Y|u}⁻¹ B) of one random instance."""
    n = 3
    cp, cu = random_instance(seed, n=n, n_u=1 + seed % 3)
    v = np.asarray(noise, dtype=float)
    Cy = cu[:n, :n] + np.diag(v)
    B = cu[:n, n:] @ np.linalg.inv(cu[n:, n:])
    Syu = Cy - B @ cu[n:, :n]
    return fisher_eq10(cu, n, v), B.T @ np.linalg.solve(Syu, B)


def eq10_printed_deviation(seed: int, noise: list[float]) -> float:
    """Relative max-abs deviation of the printed 𝓘 = H (= −(the Fisher information)) from the Fisher information."""
    _, ref = _eq10_case(seed, noise)
    return float(np.abs(-ref - ref).max() / max(1.0, np.abs(ref).max()))


def _check_eq10() -> Verdict:
    """eq. (10)–(11) vs the Fisher information Bᵀ Σ_{Y|u}⁻¹ B of the model Y | X_u."""
    devs, inst, printed = [], [], []
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        for v in _noise_draws(rng, 3, 3):
            v = np.where(np.isinf(v), 1e3, v)  # eq. (10) needs finite Σ_N
            ours, ref = _eq10_case(seed, v.tolist())
            devs.append(float(np.abs(ours - ref).max() / max(1.0, np.abs(ref).max())))
            inst.append({"seed": seed, "n_u": 1 + seed % 3, "noise": v.tolist()})
            printed.append(eq10_printed_deviation(seed, v.tolist()))
    k = int(np.argmax(printed))
    return corrected(
        Verdict.from_deviations(devs, tol=1e-9, instances=inst),
        EQ10_CORRECTION,
        max(printed),
        {**inst[k], "printed_deviation": printed[k]},
        tol=1e-9,
        note="the corrected eq. (11) equals the Fisher information of Y about X_u on every case",
    )


def _check_eq12() -> Verdict:
    """b_{n+1,n+1} = |Σ_Y|/|Σ_{Y∪Xu}| and ½ log(σ² b) = I(X_u; Y) for n_u = 1."""
    devs = []
    for seed in range(10):
        cp, cu = random_instance(seed, n=3)
        rng = np.random.default_rng(200 + seed)
        for v in _noise_draws(rng, 3, 3):
            v = np.where(np.isinf(v), 1e3, v)
            D = cu + np.diag(np.concatenate([v, [0.0]]))
            b = float(np.linalg.inv(D)[-1, -1])
            devs.append(abs(bnn_eq12(cu, 3, v) - b) / b)
            devs.append(abs(0.5 * np.log(cu[-1, -1] * b) - mi_direct(cu, 3, v)))
    return Verdict.from_deviations(devs, tol=1e-9)


def _check_eq13() -> Verdict:
    """I(X_u; Y) = ½ log(σ² 𝓘 + 1) for one utility feature, noise in [0, ∞] (both datasets + random)."""
    devs, inst = [], []
    cases = [(DATASETS["1"]["cov_u"], 2, "dataset 1")]
    cases += [(random_instance(s, n=3)[1], 3, f"random seed {s}") for s in range(10)]
    for cu, n, name in cases:
        prob = GaussProblem(cov_p=cu, cov_u=cu, n=n, utility="fisher")
        rng = np.random.default_rng(7)
        for v in _noise_draws(rng, n, 6):
            s = s_from_var(v, prob.var_x)
            fisher = float(prob.utility_s(s))
            devs.append(abs(mi_from_fisher_eq13(float(cu[-1, -1]), fisher) - mi_direct(cu, n, v)))
            inst.append({"instance": name, "noise": [float(x) for x in v]})
    return Verdict.from_deviations(devs, tol=1e-10, instances=inst)


GD_SETTINGS = {"mu0": 100.0, "rounds": 3, "maxiter": 300, "fd_step": 1e-7, "restore": True}


def _check_greedy_vs_global() -> Verdict:
    """Greedy (Section IV defaults) against the certified global minimum, dataset 1, γ = 0."""
    cur = _dataset1_curves()
    devs = [g["value"] - s["value"] for g, s in zip(cur["greedy"], cur["search"])]
    below = [g["value"] < s["bound"] - 1e-9 for g, s in zip(cur["greedy"], cur["search"])]
    if any(below):
        return Verdict("fails", len(devs), max(devs), {"note": "greedy below the certified bound"})
    inst = [
        {"dataset": "1", "gamma": 0.0, "delta": d, "greedy": g["value"], "global": s["value"]}
        for d, g, s in zip(DELTAS, cur["greedy"], cur["search"])
    ]
    good = [d for d, x in zip(DELTAS, devs) if x <= 1e-3]
    return Verdict.from_deviations(
        devs,
        tol=1e-3,
        instances=inst,
        size=lambda x: x["delta"],
        region=f"δ ∈ {good} on dataset 1" if good else None,
        region_kind="empirical" if good else None,
    )


def greedy_minus_gd(delta: float) -> float:
    """min I(X_p;Y) of the greedy minus that of gd-penalty (GD_SETTINGS), dataset 1, γ = 0, at one δ (nats)."""
    p = GaussProblem.from_params(dataset="1", gamma="0").with_params(delta=float(delta))
    return float(solve(p, solver="greedy").value - solve(p, solver="gd-penalty", **GD_SETTINGS).value)


def _check_greedy_beats_gd() -> Verdict:
    """Figs. 2/5: the greedy is never worse than penalised gradient descent (this package's gd-penalty)."""
    cur = _dataset1_curves()
    devs = [g["value"] - d["value"] for g, d in zip(cur["greedy"], cur["gd-penalty"])]
    inst = [
        {
            "dataset": "1",
            "delta": d,
            "greedy": g["value"],
            "gd_penalty": x["value"],
            "gd_status": x["status"],
            "gd_settings": GD_SETTINGS,
        }
        for d, g, x in zip(DELTAS, cur["greedy"], cur["gd-penalty"])
    ]
    v = Verdict.from_deviations(devs, tol=1e-6, instances=inst, size=lambda x: x["delta"])
    limited = [i["delta"] for i in inst if i["gd_status"] != "locally_optimal"]
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        v.region,
        note="baseline-dependent: the verdict is against this package's gd-penalty with its default "
        f"settings {GD_SETTINGS}; the baseline is not a local optimum at δ ∈ {limited} (status in "
        "the counterexample; iteration_limit means a longer run can change the value), so this "
        "is not evidence about gradient descent in general. gauss.greedy_vs_global judges the "
        "greedy against the certified global minimum instead",
    )


def _check_dataset2_psd() -> Verdict:
    """The printed covariance blocks are positive semidefinite."""
    devs, inst = [], []
    for key in ("1", "2"):
        for block in ("cov_p", "cov_u"):
            lam = float(np.linalg.eigvalsh(DATASETS[key][block])[0])
            devs.append(max(0.0, -lam))
            inst.append(
                {"dataset": key, "block": "Σ_{X∪Xp}" if block == "cov_p" else "Σ_{X∪Xu}", "min_eigenvalue": lam}
            )
    v = Verdict.from_deviations(devs, tol=0.0, instances=inst)
    mis = {f: GaussProblem.from_params(dataset="2", psd="project", psd_floor=f).mi_full for f in (1e-2, 1e-3, 1e-4)}
    note = (
        "any repair makes X_u nearly a function of X, and I(X_u; X) then depends on the chosen floor: "
        + ", ".join(f"{m:.2f} nats at psd_floor={f:g}" for f, m in mis.items())
        + "; dataset 2's curves are therefore set by the rounding of the printed matrix"
    )
    return Verdict(v.verdict, v.checked, v.worst_deviation, v.counterexample, v.region, note=note)


_LIN = "linear Gaussian model, independent Gaussian noise Σ_N = diag(v) added to X (Section II)"


def _c(
    cid: str,
    statement: str,
    domain: str,
    check: Any,
    section: str,
    assumptions: str = _LIN,
    kind: str = "theorem",
    **extra: Any,
) -> Claim:
    return Claim(cid, "gauss", statement, domain, check, section=section, assumptions=assumptions, kind=kind, **extra)


_BASE_CLAIMS: list[Claim] = [
    _c(
        "gauss.eq10",
        "𝓘(X_u) = −E(H) (eq. (10)) with 𝓘(X_u) = b_nn − Σ_u⁻¹ (eq. (11)) is the Fisher information of Y about X_u",
        "random Σ (n = 3, n_u ∈ {1,2,3}), finite noise incl. 0; relative max-abs deviation",
        _check_eq10,
        "Sec. III, eqs. (10)-(11)",
        kind="proof step",
        recheck=lambda ce: eq10_printed_deviation(int(ce["seed"]), list(ce["noise"])),
    ),
    _c(
        "gauss.eq12",
        "b_nn = |Σ_Y|/|Σ_{Y∪Xu}| and ½ log(σ_u² b_nn) = I(X_u; Y) (eq. (12))",
        "random Σ (n = 3, n_u = 1), finite noise incl. 0; nats / relative",
        _check_eq12,
        "Sec. III, eq. (12)",
        kind="proof step",
    ),
    _c(
        "gauss.eq13",
        "I(X_u; Y) = ½ log(σ_u² 𝓘(X_u) + 1) for one utility feature (eq. (13))",
        "dataset 1 and random Σ (n = 3, n_u = 1), noise in [0, ∞]; nats",
        _check_eq13,
        "Sec. III, eq. (13)",
    ),
    _c(
        "gauss.mi_fisher_same_curves",
        "MI and Fisher utilities (δ, γ mapped by eq. (13)) give the same min I(X_p;Y) curves (Section V)",
        "dataset 1 (δ ∈ {0.1,0.3,0.75}, γ ∈ {0,3}, greedy and global) and random n_u = 2 instances; nats",
        _check_same_curves,
        "Sec. V",
        _LIN + "; greedy and certified global search",
        "figure claim",
    ),
    _c(
        "gauss.greedy_vs_global",
        "the greedy heuristic converges to a reasonably good solution (within 1e-3 nats of the global minimum)",
        "dataset 1, γ = 0, δ ∈ {0.05,…,1}; greedy − certified global minimum, nats",
        _check_greedy_vs_global,
        "Sec. IV-V (Figs. 2, 5)",
        _LIN + "; greedy with Section IV defaults vs the certified global minimum",
        "figure claim",
    ),
    _c(
        "gauss.greedy_beats_gd",
        "the greedy consistently performs better than gradient descent (Fig. 2)",
        "dataset 1, γ = 0, δ ∈ {0.05,…,1}; greedy − gd-penalty, nats",
        _check_greedy_beats_gd,
        "Sec. V, Fig. 2",
        _LIN + "; baseline-dependent: this package's gd-penalty with settings " + str(GD_SETTINGS),
        "figure claim",
        recheck=lambda ce: greedy_minus_gd(float(ce["delta"])),
        tol=1e-6,
    ),
    _c(
        "gauss.datasets_psd",
        "the printed sample covariances (Section V) are valid covariance matrices",
        "both datasets, both blocks; deviation = −(min eigenvalue) when negative",
        _check_dataset2_psd,
        "Sec. V",
        "the printed matrices as data",
        "numeric claim",
    ),
]


CLAIMS: list[Claim] = attach([*_BASE_CLAIMS, *gauss_sections.CLAIMS], gauss_sections.RECHECKS)
