"""The standalone checker: it stands alone, and it rejects forged certificates (mutation tests).

Mutations of genuine certificates: one dual lowered (with the bound it would prove claimed), one entry of
Q perturbed (a row no longer a probability vector; or mass moved inside a row so privacy breaks), the claimed
value changed, and one extreme ray left out of the LP whose duals the file carries. Each must be rejected
(exit 1) with its reason; a file that is not a certificate exits 2.
"""

from __future__ import annotations

import ast
import itertools
import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt import certcheck
from mechopt.notions import CIP
from mechopt.problems.design import ChannelDesign
from mechopt.results.certificate_file import DualEvidence, write_certificate
from mechopt.solvers.exact.lp import dual_bound, recover_channel, solve_master
from mechopt.solvers.exact.methods import enumerate_rays
from mechopt.solvers.exact.solver import notion_kind
from mechopt.utilities import make_utility

CHECKER = Path(certcheck.__file__)
CASES = {
    "ldp-mi": dict(prior="0.1,0.15,0.2,0.25,0.3", notion="ldp", utility="mi", eps=1.0),
    "ldp-mse": dict(prior="0.05,0.15,0.3,0.5", notion="ldp", utility="mse", eps=0.7, values="0,1,3,4"),
    "lip-hist": dict(prior="0.1,0.2,0.3,0.4", notion="lip", utility="histogram", eps=0.5),
    "lip-mi": dict(prior="0.05,0.1,0.25,0.6", notion="lip", utility="mi", eps=0.8),
    "graph-mse": dict(prior="0.1,0.2,0.3,0.4", notion="graph-ldp", utility="mse", eps=1.0),
    "cip-mse": dict(notion="cip", utility="mse", eps=1.0, p=[0.2, 0.5, 0.7]),
    "pml-mi": dict(prior="0.1,0.15,0.2,0.25,0.3", notion="pml", utility="mi", eps=0.7),
    "pml-mse": dict(prior="0.05,0.15,0.3,0.5", notion="pml", utility="mse", eps=0.4, values="0,1,3,4"),
    "alip-mi": dict(prior="0.05,0.1,0.25,0.6", notion="alip", utility="mi", eps=1.2, eps_lower=0.4),
}


def _problem(name: str) -> ChannelDesign:
    kw = dict(CASES[name])
    if kw["notion"] == "cip":  # the sum S of three users with distinct priors: d = 4, a double description
        notion = CIP(kw["eps"], kw["p"])
        return ChannelDesign(prior=notion.prior(), notion=notion, utility=make_utility("mse", values=[0, 1, 2, 3]))
    if kw["notion"] == "graph-ldp":
        import networkx as nx

        kw["graph"] = nx.path_graph(4)
    return ChannelDesign.from_params(**kw)


def _write(name: str, path: Path) -> dict:
    res = mechopt.solve(_problem(name), solver="exact")
    assert res.status.value == "optimal"
    res.save_certificate(str(path))
    return json.loads(path.read_text())


def _check(doc: dict, path: Path) -> tuple[int, dict]:
    path.write_text(json.dumps(doc))
    return certcheck.run(str(path))


def test_the_checker_imports_only_numpy_and_the_standard_library():
    tree = ast.parse(CHECKER.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            names.add(node.module.split(".")[0])
    assert names and names <= set(sys.stdlib_module_names) | {"numpy"}, names - set(sys.stdlib_module_names)
    assert "mechopt" not in names


def test_the_checker_is_short():
    code = [ln for ln in CHECKER.read_text().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    # non-blank lines, docstrings included (about 200 without them); +4: strict JSON keys; +45: pml, alip and
    # robust (prior-set) certificates; +30: robust-rays certificates (mi, mse, histogram over a prior set: the gains
    # at every vertex and the rays of the cone in q, sharing gain/features/dd/private/verdict), the one proof the
    # checker could not make before; +7: the scope of a prior-set claim (the listed priors, or also their hull),
    # alip's lower level named in a rejection, mi resolved to 1e-40 nats (a prior entry of 1e-100 was rejected);
    # +1: eps, eps_lower and eps·w at most 700 (1e30 raised decimal.Overflow: an internal error, exit 1);
    # +2: a prior-ball file points to certball.py (it read "cannot read …: no 'prior' key"); +1: a file that is not
    # JSON says so and which file to give (it read "JSONDecodeError('Expecting value: ...')"); +5: gaps relative to
    # the value's own size, an optimal claim checked at the claimed bound too (a robust MSE of 1.5e-9 with duals
    # proving 8.3e-10 passed under a floor of 1e-3·E[a²]: gap 8.2e-8); +29 (hostile-six): numbers beyond a double's
    # range refused before they are expanded ("1e-100000000" hung), edge ends JSON integers, tolerances in [0, 1],
    # an overflow a bad file (all were internal errors), each row of Q summed once (quadratic: 20 000 outputs > 300 s)
    # +3: the robust loss bound is one function that the certificate writer calls too (it kept a twin of the formula)
    # +37 (check-fast): the box (lip, pml, alip) maximum pairs halves by mass and screens each vertex by a rigorous
    # float upper bound, scoring exactly only those that may reach the best (d = 20 lip mi: 484 s, now 3 s; same max)
    # +5 (gap-one): a value within the rounding residue of a 0 at the objective's scale is judged as 0 is (ROUNDING),
    # and the scales are mechopt's objective_scale: H(P) for mi (entropy; it was 1e-37), Var over a prior set
    # +2 (ldp-screen): box_top screens ldp's 2^d rays too (d = 20 ldp mi: 107 s, now 2.4 s; same max and count)
    assert len(code) <= 412


def test_the_checker_runs_alone_without_site_packages(tmp_path):
    """Copied elsewhere and run with ``python -I -S`` (no site-packages: neither mechopt nor numpy)."""
    _write("ldp-mi", tmp_path / "cert.json")
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(CHECKER, alone / "certcheck.py")
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "certcheck.py", str(tmp_path / "cert.json"), "--json"],
        cwd=alone,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "verified"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_lowered_dual_with_the_bound_it_would_prove_is_rejected(name, tmp_path):
    doc = _write(name, tmp_path / "c.json")
    P = [Fraction(v) for v in doc["problem"]["prior"]]
    k = max(range(len(P)), key=P.__getitem__)
    delta = Fraction(1, 1000)
    doc["dual"]["nu"][k] = str(Fraction(doc["dual"]["nu"][k]) - delta)
    sign = 1 if doc["problem"]["sense"] == "max" else -1  # objective = offset + sign · Σ μ
    doc["claim"]["bound"] = str(Fraction(doc["claim"]["bound"]) - sign * delta * P[k])
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_perturbed_entry_of_Q_is_rejected(name, tmp_path):
    doc = _write(name, tmp_path / "c.json")
    doc["mechanism"]["Q"][0][0] = str(Fraction(doc["mechanism"]["Q"][0][0]) + Fraction(1, 10**6))
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "not a probability vector" in out["reason"], out


@pytest.mark.parametrize("name", ["ldp-mi", "ldp-mse", "graph-mse"])
def test_mass_moved_inside_a_row_breaks_privacy_and_is_rejected(name, tmp_path):
    """Rows still sum to 1, but an entry at its bound e^ε moves past it by a relative 1e-5 ≫ the tolerance."""
    doc = _write(name, tmp_path / "c.json")
    Q = [[Fraction(v) for v in row] for row in doc["mechanism"]["Q"]]
    y = max(range(len(Q[0])), key=lambda y: max(r[y] for r in Q) / min(r[y] for r in Q))
    x = max(range(len(Q)), key=lambda x: Q[x][y])
    other = next(j for j in range(len(Q[0])) if j != y and Q[x][j] > 0)
    step = Q[x][y] / 10**5
    Q[x][y] += step
    Q[x][other] -= step
    doc["mechanism"]["Q"] = [[str(v) for v in row] for row in Q]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "not private" in out["reason"], out


@pytest.mark.parametrize("name", ["ldp-mse", "lip-mi"])
def test_a_false_value_claim_is_rejected(name, tmp_path):
    doc = _write(name, tmp_path / "c.json")
    doc["claim"]["value"] = str(Fraction(doc["claim"]["value"]) * (1 + Fraction(1, 10**6)))
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "the value of Q is" in out["reason"], out


@pytest.mark.parametrize("name", sorted(CASES))
def test_duals_of_an_lp_missing_one_ray_are_rejected(name, tmp_path):
    """The master LP solved without one ray of the optimum: its Q, value and duals are consistent with each
    other (gap ~0 over the rays it had), so only an enumeration of every ray can find the forgery."""
    cp = _problem(name).column_program()
    R = enumerate_rays(cp, notion_kind(cp.notion), {"max_memory": 2e9, "dd_max_d": 14})
    mu = cp.gain(R)
    full = solve_master(R, mu, cp.prior)
    for j in np.argsort(-full.theta)[: int(np.count_nonzero(full.theta > 0))]:
        keep = np.arange(R.shape[1]) != j
        m = solve_master(R[:, keep], mu[keep], cp.prior)
        if m.status == "optimal" and full.value - m.value > 1e-6 * max(1.0, abs(full.value)):
            break
    else:
        pytest.fail("every ray of the optimum can be replaced: no missing-ray forgery to build")
    bound = dual_bound(m.nu, cp.prior, R[:, keep], mu[keep])
    Q = recover_channel(cp.prior, R[:, keep], m.theta)
    value = cp.value_of(float(np.sum(cp.gain(cp.prior[:, None] * Q))))
    ev = DualEvidence(cp, Q, m.nu, bound, "one ray left out")
    write_certificate(str(tmp_path / "m.json"), ev, status="optimal", value=value, bound=cp.value_of(bound))
    assert abs(cp.value_of(bound) - value) <= 1e-9 * max(1.0, abs(value))  # consistent without the missing ray
    code, out = certcheck.run(str(tmp_path / "m.json"))
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out


def test_the_genuine_certificates_of_the_mutated_cases_verify(tmp_path):
    for name in CASES:
        doc = _write(name, tmp_path / f"{name}.json")
        assert _check(doc, tmp_path / "again.json")[0] == 0, name


@pytest.mark.parametrize(
    "mutate, why",
    [
        (lambda d: d.update(version=2), "version"),
        (lambda d: d["problem"].update(prior=[0.5, 0.5]), "write numbers as strings"),
        (lambda d: d["problem"]["notion"].update(name="mip"), "notions"),
        (lambda d: d["dual"].pop("nu"), "cannot read"),
        (lambda d: d["mechanism"]["Q"].pop(), "one row of Q per input"),
    ],
)
def test_a_file_that_is_not_a_certificate_exits_2(mutate, why, tmp_path):
    doc = _write("lip-hist", tmp_path / "c.json")
    mutate(doc)
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 2 and why in out["reason"], out
    assert certcheck.run(str(tmp_path / "missing.json"))[0] == 2


@pytest.mark.parametrize("cut", ["empty", "half", "bom"])
def test_a_file_that_is_not_json_says_so_and_which_file_to_give(cut, tmp_path):
    """Hostile-five: an empty, truncated or BOM-prefixed certificate said "cannot read c.json:
    JSONDecodeError('Expecting value: line 1 column 563 (char 562)')" (a Python repr, no fix)."""
    text = json.dumps(_write("lip-hist", tmp_path / "c.json"))
    bad = tmp_path / "bad.json"
    data = {"empty": b"", "half": text[: len(text) // 2].encode(), "bom": b"\xef\xbb\xbf" + text.encode()}
    bad.write_bytes(data[cut])
    code, out = certcheck.run(str(bad))
    reason = out["reason"]
    assert code == 2 and "not JSON (" in reason and "use what design --certificate made" in reason, reason
    assert "JSONDecodeError(" not in reason


def test_main_prints_one_line_and_the_tolerances_are_options(tmp_path, capsys):
    doc = _write("lip-hist", tmp_path / "c.json")
    assert certcheck.main([str(tmp_path / "c.json")]) == 0
    assert capsys.readouterr().out.startswith("verified: ")
    doc["claim"]["value"] = str(Fraction(doc["claim"]["value"]) * (1 + Fraction(1, 10**7)))
    (tmp_path / "m.json").write_text(json.dumps(doc))
    assert certcheck.main([str(tmp_path / "m.json")]) == 1  # match tolerance 1e-9 by default
    assert certcheck.main([str(tmp_path / "m.json"), "--match", "1e-6", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("rejected: ") and json.loads(lines[1])["tolerances"]["match"] == 1e-6


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_identity_channel_is_rejected_as_not_private_for_every_notion(name, tmp_path):
    """Every notion's privacy rows (pairs, edges, LIP and CIP posterior statistics) catch the identity channel,
    which reveals the input: it is tested before the value or the bound, so only privacy can reject it."""
    doc = _write(name, tmp_path / "c.json")
    d = len(doc["problem"]["prior"])
    doc["mechanism"]["Q"] = [["1" if x == y else "0" for y in range(d)] for x in range(d)]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and out["reason"].startswith("not private: output "), out


def test_a_cip_file_whose_users_do_not_match_its_prior_exits_2(tmp_path):
    doc = _write("cip-mse", tmp_path / "c.json")
    doc["problem"]["notion"]["p"].pop()  # two users: a sum with 3 values, but the prior has 4
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 2 and "cip on 2 users needs a prior over 3 values" in out["reason"], out


@pytest.mark.parametrize(
    "name, mutate",
    [
        ("alip-mi", lambda n: n.update(eps_lower="1e30")),
        ("lip-mi", lambda n: n.update(eps="1e300")),  # 1e400: beyond a double (tests/reliability/test_hostile_six)
        ("ldp-mi", lambda n: n.update(eps="701")),
        ("graph-mse", lambda n: n.update(edges=[[0, 1, "1e30"], [1, 2, "1"], [2, 3, "1"]])),
        ("graph-mse", lambda n: n.update(edges=[[0, 1, "-1"], [1, 2, "1"], [2, 3, "1"]])),
    ],
)
def test_a_level_beyond_700_nats_or_a_negative_weight_is_a_bad_file(name, mutate, tmp_path):
    """e^eps beyond a double (mechopt never designs one) raised decimal.Overflow: an internal error, exit 1."""
    doc = _write(name, tmp_path / "c.json")
    mutate(doc["problem"]["notion"])
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 2 and "700" in out["reason"], out


def _box_max_by_brute_force(c: dict, W: Fraction, Wl: Fraction | None) -> tuple[Fraction, int]:
    """max μ(p) − νᵀp over every vertex of the checker's box, each scored exactly (no screening): the reference."""
    P, d = c["P"], len(c["P"])
    lo, hi = [Fraction(0) if Wl is None else p / Wl for p in P], [min(W * p, Fraction(1)) for p in P]
    scores = []
    for j in range(d):
        others = [x for x in range(d) if x != j]
        for mask in range(1 << len(others)):
            p = [hi[x] if mask >> i & 1 else lo[x] for i, x in enumerate(others)]
            if lo[j] <= 1 - sum(p) <= hi[j]:
                f = certcheck.features(c, [(j, 1 - sum(p))] + list(zip(others, p)))
                scores.append(certcheck.gain(c, f, True) - f[1])
    return max(scores), len(scores)


def _random_duals(d: int, utility: str, seed: int, ties: bool) -> dict:
    """A checker's problem dict with random duals ν (not optimal ones) and values; ties: uniform prior and duals (many
    exact ties); else one mass of about 1e-6 / d when d > 2."""
    rng = np.random.default_rng(seed)
    w = [1] * d if ties else rng.integers(1, 10**6, size=d).tolist()
    if not ties and d > 2:
        w[0] = 1  # a mass of about 1e-6 / d
    P = [Fraction(int(x), sum(w)) for x in w]
    nu = [Fraction(1, 3)] * d if ties else [Fraction(int(x), 1000) for x in rng.integers(-3000, 3000, size=d)]
    a = [Fraction(int(x), 7) for x in rng.integers(-20, 20, size=d)]
    return dict(P=P, nu=nu, a=a, utility=utility)


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(2, 7),
    utility=st.sampled_from(["mi", "mse", "histogram"]),
    side=st.sampled_from(["lip", "pml", "alip"]),
    eps=st.sampled_from([Fraction(1, 100), Fraction(1, 2), Fraction(3), Fraction(40)]),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
)
def test_the_screened_box_maximum_is_the_exact_maximum_of_every_vertex(d, utility, side, eps, seed, ties):
    """box_top screens vertices by a float upper bound and scores only the survivors exactly: its maximum and its
    count equal those of scoring every vertex exactly, for random duals ν (not optimal ones), uniform priors and
    duals (many exact ties), tiny prior masses and a level of 40 nats."""
    c = _random_duals(d, utility, seed, ties)
    W = certcheck.enclose("exp", eps)[1]
    Wl = None if side == "pml" else W if side == "lip" else certcheck.enclose("exp", eps / 3)[1]
    assert certcheck.box_top(c, W, Wl) == _box_max_by_brute_force(c, W, Wl)


def _ldp_max_by_brute_force(c: dict, W: Fraction) -> tuple[Fraction, int]:
    """max (μ(p) − νᵀp) / 1ᵀp over every LDP ray p = P ∘ s, s ∈ {1, W}^d, each scored exactly (the reference)."""
    scores = []
    for s in itertools.product([Fraction(1), W], repeat=len(c["P"])):
        f = certcheck.features(c, enumerate(p * t for p, t in zip(c["P"], s)))
        scores.append((certcheck.gain(c, f, True) - f[1]) / f[0])
    return max(scores), len(scores)


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(1, 8),
    utility=st.sampled_from(["mi", "mse", "histogram"]),
    eps=st.sampled_from([Fraction(1, 100), Fraction(1, 2), Fraction(3), Fraction(40)]),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
)
def test_the_screened_ldp_maximum_is_the_exact_maximum_of_every_ray(d, utility, eps, seed, ties):
    """box_top screens the LDP rays too (−ln 1ᵀp bounded by ln_up(1/1ᵀp)): its maximum and its count equal those of
    scoring every ray exactly, for random duals ν, uniform priors and duals (exact ties), tiny masses and 40 nats."""
    c = dict(_random_duals(d, utility, seed, ties), notion="ldp")
    W = certcheck.enclose("exp", eps)[1]
    assert certcheck.box_top(c, W, W) == _ldp_max_by_brute_force(c, W)


@pytest.mark.parametrize("utility", ["mi", "mse", "histogram"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_the_screened_ldp_maximum_is_exact_at_optimal_duals(utility, eps, tmp_path):
    """At the solver's duals many rays tie up to the duals' float rounding: the screen scores all of them exactly."""
    P = np.random.default_rng(5).dirichlet(np.ones(8)).tolist()
    kw = dict(values=list(range(8))) if utility == "mse" else {}
    res = mechopt.design(prior=P, notion="ldp", utility=utility, eps=eps, solver="exact", **kw)
    res.save_certificate(str(tmp_path / "c.json"))
    c = certcheck.load(str(tmp_path / "c.json"))
    W = certcheck.factors(c, c["eps"], 1)[0]
    assert certcheck.box_top(c, W, W) == _ldp_max_by_brute_force(c, W)


@pytest.mark.parametrize("notion", ["lip", "pml", "alip"])
@pytest.mark.parametrize("utility", ["mi", "mse", "histogram"])
def test_the_screened_box_maximum_is_exact_at_optimal_duals(notion, utility, tmp_path):
    """At the solver's duals the rays the optimum uses score within about 1e-16 of the maximum (ties but for float
    duals): the screen must score every one of them exactly (a bound on ln 1e-8 short drops some: 52 of 567 files)."""
    P = np.random.default_rng(3).dirichlet(np.ones(8)).tolist()
    kw = {
        **(dict(values=list(range(8))) if utility == "mse" else {}),
        **(dict(eps_lower=0.5) if notion == "alip" else {}),
    }
    res = mechopt.design(prior=P, notion=notion, utility=utility, eps=1.0, solver="exact", **kw)
    res.save_certificate(str(tmp_path / "c.json"))
    c = certcheck.load(str(tmp_path / "c.json"))
    W, Wl = certcheck.factors(c, c["eps"], 1)
    assert certcheck.box_top(c, W, Wl) == _box_max_by_brute_force(c, W, Wl)
