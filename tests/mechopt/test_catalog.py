"""The catalog loader: every built-in file loads and builds; errors name file, instance and field."""

from __future__ import annotations

import pytest

from mechopt import registry
from mechopt.io.catalog import CatalogError, builtin_catalog, catalog_files, load_catalog, parse_catalog
from mechopt.problems.design import ChannelDesign

GOOD = """
[[instance]]
problem = "design"
name = "a"
params = { prior = "0.3,0.7", notion = "lip", utility = "histogram", eps = 1.0 }
solvers = ["sqp"]
skip = ["closed-form"]
options.sqp = { n_starts = 3 }
time_limit = 5
claim = "lip.thm5"
note = "hello"
"""


def test_builtin_catalog_files_load_and_build():
    files = catalog_files()
    assert any(f.name == "design.toml" for f in files)
    insts = builtin_catalog()
    assert {i.problem for i in insts} <= set(registry.problem_ids())
    for inst in insts:
        prob = inst.build()
        assert prob is not None
        assert registry.solvers_for(prob), f"no solver applies to {inst.label}"
    design = [i for i in insts if i.problem == "design"]
    assert len(design) >= 5 and all(isinstance(i.build(), ChannelDesign) for i in design)


def test_fields_parsed():
    (inst,) = parse_catalog(GOOD, source="g.toml", known=["design"])
    assert inst.solvers == ("sqp",) and inst.skip == ("closed-form",) and inst.options == {"sqp": {"n_starts": 3}}
    assert inst.time_limit == 5.0 and inst.note == "hello" and inst.source == "g.toml"
    assert inst.claim == "lip.thm5"


def test_builtin_claims_name_registered_claims_and_only_closed_form_instances():
    import mechopt
    from mechopt.registry import claims

    ids = {c.id for c in claims()}
    for inst in builtin_catalog():
        prob = inst.build()
        has_cf = "closed-form" in registry.solvers_for(prob)
        assert (inst.claim is not None) == has_cf, inst.label  # every closed form links its claim
        assert inst.claim is None or inst.claim in ids, (inst.label, inst.claim)
        if has_cf:  # a closed form that names its claim names the same one
            own = mechopt.solve(prob, solver="closed-form").extras.get("claim")
            assert own is None or own == inst.claim, (inst.label, own, inst.claim)


def test_graph_edges_become_a_policy_graph():
    (inst,) = parse_catalog(
        '[[instance]]\nproblem = "design"\nname = "g"\nparams = { prior = "uniform:3", '
        'notion = "graph-ldp", utility = "mse", eps = 1.0, graph = [[0, 1], [1, 2, 2.0]] }\n'
    )
    prob = inst.build()
    assert sorted(prob.notion.graph.edges(data="weight")) == [(0, 1, 1.0), (1, 2, 2.0)]


@pytest.mark.parametrize(
    "text,match",
    [
        ('[[instance]]\nname = "x"\nparams = {}', r"instance 1 \(\?\): field 'problem' is missing"),
        (
            '[[instance]]\nproblem = "design"\nname = 3\nparams = {}',
            r"instance 1 \(design\): field 'name' must be a string",
        ),
        ('[[instance]]\nproblem = "design"\nname = "x"\nparams = 1', r"field 'params' must be a table"),
        ('[[instance]]\nproblem = "nope"\nname = "x"\nparams = {}', r"field 'problem': unknown problem id 'nope'"),
        ('[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\ncolour = 1', r"unknown field 'colour'"),
        ('[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\ntime_limit = -1', r"'time_limit' must be > 0"),
        (
            '[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\nclaim = "Theorem 2"',
            r"'claim' must be a verify claim id",
        ),
        ('[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\nclaim = 2', r"field 'claim' must be a string"),
        ('[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\nsolvers = [1]', r"'solvers' must be an array"),
        ('[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\noptions = { sqp = 1 }', r"'options.sqp'"),
        (
            '[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\n[[instance]]\nproblem = "design"\nname = "x"\n'
            "params = {}",
            r"'name' is not unique",
        ),
        ('title = "x"', r"unknown top-level key"),
        ("instance = 3", r"must be an array of tables"),
        ("[[instance]\n", r"invalid TOML"),
    ],
)
def test_errors_name_file_instance_and_field(text, match):
    with pytest.raises(CatalogError, match=r"^c\.toml: .*" + match):
        parse_catalog(text, source="c.toml", known=["design"])


def test_bad_params_fail_at_build_with_the_file_and_instance(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        '[[instance]]\nproblem = "design"\nname = "neg"\n'
        'params = { prior = "-0.1,1.1", notion = "lip", utility = "histogram", eps = 1.0 }\n'
        '[[instance]]\nproblem = "design"\nname = "kw"\nparams = { prior = "0.5,0.5", colour = 2 }\n'
    )
    neg, kw = load_catalog(path, known=["design"])
    with pytest.raises(CatalogError, match=r"bad.toml: instance 'neg' \(design\): prior has a negative entry"):
        neg.build()
    with pytest.raises(CatalogError, match=r"bad.toml: instance 'kw' \(design\)"):
        kw.build()


def test_unreadable_files(tmp_path):
    with pytest.raises(CatalogError, match="no such file"):
        load_catalog(tmp_path / "none.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CatalogError):
        load_catalog(tmp_path / "bin.toml")
    with pytest.raises(CatalogError, match="unknown problem id"):
        builtin_catalog(["nope"])
