"""The robust and prior-free forms of ``mechopt design``: ``--prior-set``, ``--prior-ball``, ``--prior-free``.

Examples
--------
>>> prob = robust_problem({"prior_free": "3", "notion": "ldp", "utility": "mae", "eps": "1"})
>>> prob.prior_set.source, prob.notion.name
('simplex:3', 'ldp')
"""

from __future__ import annotations

from typing import Any

from mechopt.errors import ParamError

__all__ = ["robust_problem"]


def robust_problem(flags: dict[str, Any]) -> Any:
    """A :class:`~mechopt.problems.robust.RobustDesign` from the design flags (exactly one set option)."""
    from mechopt.problems.robust import PriorSet, RobustDesign

    given = [k for k in ("prior_set", "prior_ball", "prior_free") if k in flags]
    if len(given) != 1:
        raise ParamError("give one of --prior-set, --prior-ball, --prior-free")
    missing = [f"--{k}" for k in ("notion", "utility", "eps") if k not in flags]
    if missing:
        raise ParamError(f"missing {', '.join(missing)} for a robust design")
    bad = sorted(set(flags) - {"notion", "utility", "eps", "values", "outputs", "eps_lower", "prior", "hull", *given})
    if bad or ("prior" in flags and given[0] != "prior_ball"):
        extra = bad or ["prior"]
        raise ParamError(f"--{extra[0].replace('_', '-')} does not go with --{given[0].replace('_', '-')}")
    key = given[0]
    if key == "prior_set":
        S = PriorSet.parse(flags["prior_set"])
    elif key == "prior_free":
        try:
            d = int(str(flags["prior_free"]))
        except ValueError:
            raise ParamError(f"--prior-free takes the number of symbols D, got {flags['prior_free']!r}") from None
        S = PriorSet.simplex(d)
    else:
        if "prior" not in flags:
            raise ParamError("--prior-ball R:KIND needs --prior (the ball's center)")
        r, sep, kind = str(flags["prior_ball"]).partition(":")
        if not sep:
            raise ParamError(f"--prior-ball takes R:KIND (e.g. 0.1:tv or 0.05:linf), got {flags['prior_ball']!r}")
        from mechopt.model.priors import read_prior

        S = PriorSet.ball(read_prior(flags["prior"])[0], r, kind)
    return RobustDesign.from_params(prior_set=S, notion=flags["notion"], utility=flags["utility"], eps=flags["eps"],
                                    values=flags.get("values"), outputs=flags.get("outputs"),
                                    eps_lower=flags.get("eps_lower"), hull=bool(flags.get("hull")))  # fmt: skip
