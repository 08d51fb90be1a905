"""``mechopt verify --json`` lists the referee's claims (issue 26) with their corrected labels, in the pinned order."""

from __future__ import annotations

#: id -> (verdict, region_kind) as the referee corrected or added them; the slow gauss claim is left out here
LABELS = {
    "lip.prop5": ("holds-in-region", "exact boundary"),
    "lip.intro_skew": ("holds-in-region", "exact boundary"),
    "lip.fig5_gap099": ("holds-in-region", "exact boundary"),
    "lip.fig2_order": ("holds", None),
    "lip.fig7_growth_d": ("holds-in-region", "empirical"),
    "lip.fig8_large": ("holds", None),
    "lip.intro_cip_gap": ("holds-in-region", "empirical"),
    "lip.fig9b_vs_fig7": ("holds-in-region", "exact boundary"),
    "kss.alg1_channel": ("holds", None),
    "kss.remap_regression": ("holds", None),
    "kss.appC_derivative": ("holds", None),
    "fisher.prop1": ("holds", None),
    "fisher.remark1": ("holds", None),
    "fisher.remark6": ("holds", None),
    "fisher.cor_xdep": ("fails", None),
    "gauss.sec3b_mi": ("holds", None),
}


def test_verify_json_lists_the_corrected_labels(cli) -> None:
    run = cli("verify", "--json", *[a for cid in LABELS for a in ("--claim", cid)])
    assert run.code == 0
    listed = {c["id"]: c for c in run.json()["claims"]}
    assert set(listed) == set(LABELS)
    for cid, (verdict, kind) in LABELS.items():
        r = listed[cid]
        assert r["error"] is None and (r["verdict"], r["region_kind"]) == (verdict, kind), r
        assert r["section"] and r["statement"] and r["assumptions"] and r["note"], cid
    assert "exact region (checked on 189 instances)" in listed["lip.prop5"]["region"]
    assert listed["lip.intro_skew"]["note"].startswith("the universal reading (every eps > 0) fails")
    assert "it holds at eps = 4.5 and 5" in listed["lip.fig5_gap099"]["note"]
