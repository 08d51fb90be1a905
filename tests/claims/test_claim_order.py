"""The claims keep their ids and their order: ``mechopt verify`` reports them in the order listed here.

The lists were taken from ``mechopt verify --json`` before the claim modules were split by section (issue
24 follow-up, branch ``split``); a claim may be added anywhere, but none may vanish or move. Their verdicts
are pinned by the per-paper tests and ``test_verdicts.py``.
"""

from __future__ import annotations

import pytest

from mechopt import registry

ORDER = {
    "lip": [
        "lip.thm1",
        "lip.prop1",
        "lip.prop2",
        "lip.thm2",
        "lip.prop3",
        "lip.prop4",
        "lip.thm3",
        "lip.ldp_mimo",
        "lip.thm4",
        "lip.thm5",
        "lip.thm6",
        "lip.prop5",
        "lip.eq41",
        "lip.oue",
        "lip.ex1",
        "lip.eq16",
        "lip.eq17",
        "lip.eq18",
        "lip.appA_eq43",
        "lip.appA_eq44",
        "lip.appA_symmetry",
        "lip.appA_step3",
        "lip.appA_boundary",
        "lip.appA_step4",
        "lip.prop3_marginal",
        "lip.ex1_constraints",
        "lip.ex1_optldp",
        "lip.ex1_lip_validity",
        "lip.prop4_gap_shape",
        "lip.prop4_strict",
        "lip.thm3_example",
        "lip.thm3_mae_unique",
        "lip.appB_lemma1",
        "lip.appB_lemma2",
        "lip.eq51",
        "lip.eq52",
        "lip.thm4_fewer",
        "lip.appC_more",
        "lip.appD_eq55_57",
        "lip.thm6_proof",
        "lip.thm6_converse",
        "lip.prop5_proof",
        "lip.fig5_optldp_vs_cf",
        "lip.fig5_skew",
        "lip.fig5_gap099",
        "lip.fig6a",
        "lip.fig6b",
        "lip.fig6b_growth",
        "lip.fig6_validity",
        "lip.fig7_sandwich",
        "lip.fig7_oue",
        "lip.fig7_oue_sandwich",
        "lip.fig8_cross",
        "lip.fig8_sandwich",
        "lip.fig8_cip",
        "lip.fig9a",
        "lip.concl_half",
        "lip.fig9b_validity",
        "lip.intro_skew",
        "lip.fig2_order",
        "lip.fig7_growth_d",
        "lip.fig8_large",
        "lip.intro_cip_gap",
        "lip.fig9b_vs_fig7",
    ],
    "kss": [
        "kss.thm2_1",
        "kss.eq5",
        "kss.eq6",
        "kss.eq7",
        "kss.eq8",
        "kss.cor2_1",
        "kss.cor2_2",
        "kss.eq9",
        "kss.thm3_1",
        "kss.thm3_2",
        "kss.mcgregor",
        "kss.sec4_eps2_8",
        "kss.open_prior",
        "kss.sec3_1_expmech",
        "kss.appD_derivative",
        "kss.appD_convex",
        "kss.appD_stationary",
        "kss.sec2_3_I1",
        "kss.sec2_3_threshold",
        "kss.appE_formula",
        "kss.appE_C",
        "kss.sec4_binary",
        "kss.table1_k",
        "kss.sec5_any",
        "kss.sec5_reduction",
        "kss.sec5_kstar_ksharp",
        "kss.table1_cells",
        "kss.alg1_channel",
        "kss.remap_regression",
        "kss.appC_derivative",
    ],
    "fisher": [
        "fisher.cor1",
        "fisher.cor1_box",
        "fisher.cor2",
        "fisher.cor3",
        "fisher.cor4",
        "fisher.cor5",
        "fisher.thm3",
        "fisher.cor6",
        "fisher.thm4",
        "fisher.ex4",
        "fisher.prop3",
        "fisher.prop4",
        "fisher.grid_order2",
        "fisher.prop2",
        "fisher.prop5",
        "fisher.thm1",
        "fisher.p3_p4_equiv",
        "fisher.remark3",
        "fisher.prop1",
        "fisher.remark1",
        "fisher.remark6",
        "fisher.cor_xdep",
        "fisher.sec5_info",
        "fisher.eq7_8",
    ],
    "pml": ["pml.high_privacy", "pml.binary", "pml.uniform", "pml.outputs"],
    "kairouz": [
        "kairouz.thm2_staircase",
        "kairouz.thm4_pattern_lp",
        "kairouz.binary_high_privacy",
        "kairouz.rr_low_privacy",
        "kairouz.intermediate",
        "kairouz.binary_kl_high_privacy",
        "kairouz.rr_kl_low_privacy",
    ],
    "gauss": [
        "gauss.eq10",
        "gauss.eq12",
        "gauss.eq13",
        "gauss.mi_fisher_same_curves",
        "gauss.greedy_vs_global",
        "gauss.greedy_beats_gd",
        "gauss.datasets_psd",
        "gauss.fig4_monotone",
        "gauss.fig4_small_delta",
        "gauss.fig4_slower",
        "gauss.sec5_conjecture",
        "gauss.fig3_delta",
        "gauss.greedy_vs_annealing",
        "gauss.sec3b_mi",
        "gauss.sec4_step5",
    ],
}


def _is_subsequence(pinned: list[str], ids: list[str]) -> bool:
    it = iter(ids)
    return all(any(i == p for i in it) for p in pinned)


@pytest.mark.parametrize("paper", sorted(ORDER))
def test_claim_ids_keep_their_order(paper: str) -> None:
    ids = [c.id for c in registry.claims(paper)]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    missing = [p for p in ORDER[paper] if p not in ids]
    assert not missing, f"claims removed: {missing}"
    assert _is_subsequence(ORDER[paper], ids), "claims reordered"


def test_the_subsequence_check_can_fail() -> None:
    assert _is_subsequence(["a", "c"], ["a", "b", "c"])
    assert not _is_subsequence(["c", "a"], ["a", "b", "c"])
