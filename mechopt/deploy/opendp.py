"""Export a :class:`~mechopt.mechanism.core.Mechanism` as an OpenDP measurement whose privacy map is its audited ε.

The measurement mirrors OpenDP's own randomized response
(``opendp.measurements.make_randomized_response``): input domain one record
(``AtomDomain`` of the input labels' type, ``String`` or ``i64``), input metric
``DiscreteDistance`` (two different records are at distance 1: local DP), output
measure ``MaxDivergence`` (pure ε-DP), and a release that is one output label
drawn from the row of Q of the input. It is built with OpenDP's plugin
constructor ``opendp.measurements.make_user_measurement``, which needs the
``"contrib"`` and ``"honest-but-curious"`` features: :func:`to_opendp` enables both
(``opendp.prelude.enable_features`` sets them for the whole process).

The privacy map returns 0 at distance 0 and, at any distance ≥ 1,
:func:`ldp_epsilon_upward`: the ε-LDP level of the float Q computed from exact
rationals (every double is one) and rounded upward, so it is never below the
true max over y and x, x' of log(Q[x, y] / Q[x', y]). Exported only when the
mechanism carries an LDP claim that its audit confirms (audited ε ≤ claimed ε +
the ``privacy`` tolerance); anything else is refused with a
:class:`~mechopt.errors.ProblemError`.

What the map does not cover: the draws are made by mechopt's alias sampler
(:mod:`mechopt.mechanism.sampling`) from a numpy ``Generator`` (PCG64, not a
cryptographic generator; seeded by the operating system's entropy unless
``rng`` is given), which realises each ``Q[x, y]`` to within the 2⁻⁵³
resolution of its uniforms. OpenDP's own samplers are exact and use a
cryptographic generator; this one is as exact as ``Mechanism.randomize``.

Examples
--------
>>> from mechopt import Mechanism
>>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["no", "yes"], outputs=["N", "Y"], claim=("ldp", 1.1))
>>> meas = m.to_opendp(rng=0)
>>> meas.map(1) >= 1.0986122886681098, meas.map(0)
(True, 0.0)
>>> meas("yes") in ("N", "Y")
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.mechanism.sampling import AliasSampler, as_generator
from mechopt.model._matrix import validate_channel

__all__ = ["to_opendp", "ldp_epsilon_upward", "exportable_epsilon", "ULPS_UP"]

#: ulps added above log1p of the exact ratio: its argument is rounded once (≤ ½ ulp relative, and
#: log1p does not amplify a relative error) and libm's log1p is within 1 ulp.
ULPS_UP = 4


def ldp_epsilon_upward(Q: Any) -> float:
    """The ε-LDP level of Q, max over y of log(max_x Q[x, y] / min_x Q[x, y]), rounded upward.

    The largest column ratio is found with exact rationals (:class:`fractions.Fraction`
    of each double), then ε = log1p((hi − lo) / lo) of it is computed in floating
    point and raised by :data:`ULPS_UP` ulps. Returns ``inf`` when some output has
    probability 0 under one input and not under another; 0 when Q's rows are equal.

    Examples
    --------
    >>> import math
    >>> eps = ldp_epsilon_upward([[0.75, 0.25], [0.25, 0.75]])
    >>> eps >= math.log(3), eps - math.log(3) < 1e-15
    (True, True)
    >>> ldp_epsilon_upward([[1.0, 0.0], [0.5, 0.5]]), ldp_epsilon_upward([[0.5, 0.5], [0.5, 0.5]])
    (inf, 0.0)
    """
    M = validate_channel(Q)
    hi, lo = M.max(axis=0), M.min(axis=0)
    used = hi > 0
    if np.any(lo[used] <= 0):
        return math.inf
    # the candidates: the columns whose float log-ratio is within 1e-9 of the largest (exact among them)
    log_ratio = np.log(hi[used]) - np.log(lo[used])
    near = np.flatnonzero(log_ratio >= log_ratio.max() - 1e-9)
    best = max((Fraction(float(hi[used][j])) / Fraction(float(lo[used][j])) for j in near), default=Fraction(1))
    if best == 1:
        return 0.0
    if best > 2**1000:  # beyond a double's range (a subnormal entry): logs of the integers, with a wide margin
        return (math.log(best.numerator) - math.log(best.denominator)) * (1.0 + 1e-12)
    eps = math.log1p(float(best - 1))
    for _ in range(ULPS_UP):
        eps = math.nextafter(eps, math.inf)
    return eps


def exportable_epsilon(mech: Any) -> float:
    """The ε the export's privacy map gives: checks the mechanism's LDP claim and its audit first.

    Refused (:class:`~mechopt.errors.ProblemError`) without a claim, with a claim
    of another notion or without an ε, when the audit fails the claim, or when ε is infinite.

    >>> from mechopt import Mechanism
    >>> exportable_epsilon(Mechanism([[0.75, 0.25], [0.25, 0.75]]))
    Traceback (most recent call last):
    ...
    mechopt.errors.ProblemError: the mechanism has no privacy claim, so it is not exported to OpenDP: ...
    """
    claim = mech.claim
    if claim is None or claim.get("eps") is None:
        raise ProblemError(
            "the mechanism has no privacy claim, so it is not exported to OpenDP: "
            'build it with claim=("ldp", eps) (or from an LDP design)'
        )
    if claim.get("notion") != "ldp":
        raise ProblemError(
            f"the mechanism claims {claim.get('notion')!r}, not 'ldp': only an LDP claim is a DP guarantee for one "
            'record under OpenDP\'s discrete distance; rebuild it with claim=("ldp", eps)'
        )
    holds = mech.audit("ldp")["claim"]
    if not holds["holds"]:
        audited = "infinite" if holds["eps_audited"] is None else f"{holds['eps_audited']:.10g}"
        raise ProblemError(
            f"the mechanism fails its audit: its Q needs ε-LDP = {audited} > claimed {claim['eps']:.10g}; "
            "it is not exported (fix Q or claim the audited ε)"
        )
    return ldp_epsilon_upward(mech.Q)


def _label_type(labels: tuple[Any, ...]) -> str:
    """OpenDP's type of the input records: ``String`` for string labels, ``i64`` for integer labels."""
    if all(isinstance(v, str) for v in labels):
        return "String"
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in labels):
        if all(-(2**63) <= int(v) < 2**63 for v in labels):
            return "i64"
    raise ProblemError(
        "OpenDP records here are strings or 64-bit integers, and the inputs mix other labels: "
        "relabel them, e.g. Mechanism(m.Q, inputs=[str(v) for v in m.inputs], ...)"
    )


def to_opendp(mech: Any, rng: Any = None) -> Any:
    """An OpenDP ``Measurement`` that releases one output label of ``mech`` for one input label.

    Parameters
    ----------
    mech : Mechanism
        With an LDP claim its audit confirms (see :func:`exportable_epsilon`).
    rng : int, SeedSequence, numpy Generator or None
        The draws' stream, continued from call to call (a seed gives the reports
        of ``mech.randomize(values, rng=seed)`` for the successive values); None:
        fresh operating-system entropy.

    Returns
    -------
    opendp.mod.Measurement
        Input domain ``AtomDomain`` (``String`` or ``i64``), input metric
        ``DiscreteDistance``, output measure ``MaxDivergence``; ``map(d)`` is 0 for
        d = 0 and the audited ε rounded upward for d ≥ 1.

    Examples
    --------
    >>> from mechopt import Mechanism
    >>> m = Mechanism([[0.9, 0.1], [0.1, 0.9]], inputs=[0, 1], outputs=["a", "b"], claim=("ldp", 2.2))
    >>> meas = to_opendp(m, rng=3)
    >>> [meas(v) for v in (0, 1, 1)] == m.randomize([0, 1, 1], rng=3)
    True
    """
    from mechopt.runtime.optional import require

    dp = require("opendp.prelude", "opendp", "exports to OpenDP")
    eps = exportable_epsilon(mech)
    carrier = _label_type(mech.inputs)
    index = {(v if carrier == "String" else int(v)): i for i, v in enumerate(mech.inputs)}
    outputs = mech.outputs
    sampler, gen = AliasSampler(np.asarray(mech.Q)), as_generator(rng)

    def release(x: Any) -> Any:
        try:
            i = index[x]
        except KeyError:
            raise ProblemError(f"{x!r} is not an input of the mechanism; its inputs: {list(index)[:10]}") from None
        return outputs[int(sampler.sample(np.array([i], dtype=np.intp), gen)[0])]

    def privacy_map(d_in: int) -> float:
        if d_in < 0:
            raise ProblemError(f"a distance is >= 0, got {d_in}")
        return 0.0 if d_in == 0 else eps

    dp.enable_features("contrib", "honest-but-curious")
    return dp.m.make_user_measurement(
        dp.atom_domain(T=carrier),
        dp.discrete_distance(),
        dp.max_divergence(),
        function=release,
        privacy_map=privacy_map,
    )
