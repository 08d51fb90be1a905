"""Other libraries' channels: documented vs sampled from their clients, ε and unbiasedness audits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mechopt.notions import LDP
from mechopt.oracles.peers import audit_peer, available, documented, mechanism_json, sample_channel, ss_k

mfl = pytest.mark.skipif(not available("multi-freq-ldpy"), reason="multi-freq-ldpy not installed")
pldp = pytest.mark.skipif(not available("pure-ldp"), reason="pure-ldp (with scikit-learn, statsmodels) not installed")


def test_documented_channels_are_exactly_eps_ldp() -> None:
    for lib, mech in (
        ("pure-ldp", "DE"),
        ("pure-ldp", "OUE"),
        ("multi-freq-ldpy", "SUE"),
        ("multi-freq-ldpy", "SS"),
        ("pure-ldp", "OLH"),
    ):
        doc = documented(lib, mech, 6, 1.3)
        assert math.isclose(doc["eps_audited"], 1.3, rel_tol=1e-12), (lib, mech)
    big = documented("multi-freq-ldpy", "SS", 40, 1.0)  # C(40, 11) outputs: structural ε
    assert big["Q"] is None and big["params"]["k"] == ss_k(40, 1.0) == 11 and big["eps_audited"] == 1.0


@pytest.mark.slow
@mfl
def test_multi_freq_ldpy_ss_client_realises_its_documented_channel() -> None:
    doc = documented("multi-freq-ldpy", "SS", 5, 0.7)
    sc = sample_channel("multi-freq-ldpy", "SS", 5, 0.7, n_per_input=1500, seed=3)
    assert np.all((sc["lo"] <= doc["Q"] + 1e-12) & (doc["Q"] <= sc["hi"] + 1e-12))
    assert sc["eps_lower"] <= 0.7 + 1e-9  # the sampled channel does not refute ε = 0.7


@pldp
def test_pure_ldp_de_client_realises_grr_with_items_zero_based() -> None:
    doc = documented("pure-ldp", "DE", 4, 1.0)
    sc = sample_channel("pure-ldp", "DE", 4, 1.0, n_per_input=2000, seed=5)
    assert np.all((sc["lo"] <= doc["Q"] + 1e-12) & (doc["Q"] <= sc["hi"] + 1e-12))
    assert np.argmax(sc["Q_hat"], axis=1).tolist() == [0, 1, 2, 3]  # index_mapper = identity


@mfl
def test_clip_and_renormalise_estimator_is_biased_where_the_linear_one_is_not() -> None:
    rep = audit_peer(
        "multi-freq-ldpy", "GRR", 4, 1.0, n=500, theta=[0.7, 0.2, 0.08, 0.02], n_users=500, reps=300, sample=False
    )
    assert rep["bias_linear"] < 1e-12
    assert abs(rep["bias_clipped"]) > 4 * rep["bias_clipped_se"]  # MI clips and renormalises: biased


def test_mechanism_json_feeds_the_audit() -> None:
    doc = json.loads(json.dumps(mechanism_json("multi-freq-ldpy", "SS", 6, 1.0)))
    Q = np.array(doc["Q"])
    assert Q.shape == (6, math.comb(6, 2)) and math.isclose(LDP(1.0).audit(Q).eps, 1.0, rel_tol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    "lib,mech",
    [
        ("pure-ldp", "OUE"),
        ("pure-ldp", "SUE"),
        ("pure-ldp", "OLH"),
        ("multi-freq-ldpy", "OUE"),
        ("multi-freq-ldpy", "OLH"),
    ],
)
def test_full_peer_audits(lib, mech) -> None:
    if not available(lib):
        pytest.skip(f"{lib} not installed")
    rep = audit_peer(lib, mech, 4, 1.0, n=3000, seed=1)
    lo, hi = rep["hit_rates"]["g_ci"]
    assert lo - 0.01 <= rep["g_doc"] <= hi + 0.01
    assert rep["bias_linear"] < 1e-12
