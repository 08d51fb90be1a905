import math

import pytest

from mechopt import registry
from mechopt.errors import ProblemError
from mechopt.jobs.verify import Claim, Verdict


def test_verdict_from_deviations_picks_smallest_counterexample():
    inst = [{"d": 5}, {"d": 2}, {"d": 3}]
    v = Verdict.from_deviations([0.1, 0.2, 1e-12], tol=1e-9, instances=inst, size=lambda i: i["d"])
    assert v.verdict == "fails" and v.checked == 3 and v.worst_deviation == pytest.approx(0.2)
    assert v.counterexample == {"d": 2, "deviation": 0.2}
    assert Verdict.from_deviations([0.0, float("nan")], tol=1).worst_deviation == math.inf
    part = Verdict.from_deviations([0.5], tol=0.1, region="eps <= 1")
    assert part.verdict == "holds-in-region" and part.region == "eps <= 1"


def test_verdict_vocabulary_enforced():
    with pytest.raises(ValueError):
        Verdict("maybe", 1, 0.0)
    with pytest.raises(ValueError):
        Verdict("holds", 0, 0.0)


def test_claim_report_json():
    c = Claim("x.thm1", "x", "statement", "domain", lambda: Verdict("holds", 2, 0.0))
    d = c.run().to_dict()
    assert d["id"] == "x.thm1" and d["verdict"] == "holds" and d["checked"] == 2 and d["counterexample"] is None


def test_registry_errors():
    with pytest.raises(ProblemError, match="unknown problem"):
        registry.get_problem("nope")
    with pytest.raises(ProblemError, match="unknown paper"):
        registry.claims("nope")
    assert "design" in registry.problem_ids()
    assert set(registry.solver_names()) >= {"sqp", "conic", "closed-form"}
