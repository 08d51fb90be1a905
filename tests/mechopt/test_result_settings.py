import json
import math

import numpy as np
import pytest

from mechopt import settings
from mechopt.errors import ParamError
from mechopt.results.result import Certificate, Result, Status, jsonable


def test_nan_value_becomes_numerical_error_never_printed():
    r = Result(status=Status.OPTIMAL, value=float("nan"), sense="min", objective="mse")
    assert r.status is Status.NUMERICAL_ERROR and r.value is None and "non-finite" in r.message
    doc = json.dumps(r.to_dict(), allow_nan=False)  # would raise on NaN
    assert '"value": null' in doc


def test_jsonable_converts_numpy_and_infinities():
    out = jsonable(
        {
            "a": np.float64(1.5),
            "b": np.array([1, 2]),
            "c": math.inf,
            "d": np.int64(3),
            "e": Status.OPTIMAL,
            "f": (np.bool_(True),),
        }
    )
    assert out == {"a": 1.5, "b": [1, 2], "c": None, "d": 3, "e": "optimal", "f": [True]}


def test_downgrade_only_touches_optimal():
    r = Result(status="optimal", value=1.0, sense="max", objective="mi")
    d = r.downgrade("audit failed")
    assert d.status is Status.OPTIMAL_INACCURATE and d.message == "audit failed"
    assert (
        Result(status="infeasible", value=None, sense="max", objective="mi").downgrade("x").status is Status.INFEASIBLE
    )


def test_better_than_respects_sense():
    assert Result(status="optimal", value=1.0, sense="max", objective="mi").better_than(0.5)
    assert Result(status="optimal", value=1.0, sense="min", objective="mse").better_than(2.0)
    with pytest.raises(ValueError):
        Result(status="optimal", value=1.0, sense="up", objective="x")
    with pytest.raises(ValueError):
        Result(status="done", value=1.0, sense="min", objective="x")


def test_to_dict_contract_keys():
    r = Result(
        status="optimal",
        value=0.5,
        sense="min",
        objective="mse",
        mechanism=np.eye(2),
        certificate=Certificate(0.5, 0.0),
        notion="lip",
        eps=1.0,
        violation=0.0,
        eps_audited=0.9,
    )
    d = r.to_dict()
    assert {"status", "value", "objective", "sense", "mechanism", "privacy", "certificate", "solver", "time_s"} <= set(
        d
    )
    assert d["privacy"] == {"notion": "lip", "eps": 1.0, "violation": 0.0, "eps_audited": 0.9}
    assert d["mechanism"] == {"Q": [[1.0, 0.0], [0.0, 1.0]], "inputs": [0, 1], "outputs": [0, 1]}


def test_settings_override_and_errors():
    base = settings.tolerance("privacy")
    with settings.override(privacy=1e-3):
        assert settings.tolerance("privacy") == 1e-3
    assert settings.tolerance("privacy") == base
    with pytest.raises(ParamError, match="unknown tolerance"):
        settings.tolerance("nope")
    with pytest.raises(ParamError, match="unknown tolerance"):
        with settings.override(nope=1):
            pass
    with pytest.raises(ParamError, match="non-negative"):
        with settings.override(privacy=-1):
            pass
