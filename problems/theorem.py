"""Closed forms as Results: ``optimal`` (proof ``theorem``) only where the theorem is proven.

A paper's closed form is an answer we can trust only inside the region where
its theorem is proven *and* ``mechopt verify`` finds it holding (the claim's
verdict ``holds`` or ``holds-in-region``). Every closed form of
:mod:`mechopt.problems` builds its Result here:

* inside the proven region: ``optimal`` with ``proof="theorem"``;
* outside it (or for a statement that ``verify`` finds false): ``feasible``
  when the mechanism passes its audit, ``infeasible_point`` when it does not,
  with the message naming the theorem and why it is not proven there;
* always ``extras["claim"]``: the id of the ``mechopt verify`` claim that
  checks the statement (``mechopt compare`` links rows to claims by it).

Examples
--------
>>> from mechopt.problems.theorem import theorem_result
>>> r = theorem_result(claim="lip.thm2", proven=True, message="Theorem 2", value=0.1, sense="min",
...                    objective="mse")
>>> r.status.value, r.proof, r.extras["claim"]
('optimal', 'theorem', 'lip.thm2')
>>> r = theorem_result(claim="lip.thm2", proven=False, why="max(P1, 1-P1) = 0.9 > e^eps/(1+e^eps) = 0.73",
...                    private=False, message="Theorem 2", value=0.1, sense="min", objective="mse")
>>> r.status.value, r.proof, r.message
('infeasible_point', None, 'Theorem 2; not proven here: max(P1, 1-P1) = 0.9 > e^eps/(1+e^eps) = 0.73; its
mechanism fails the audit')
"""

from __future__ import annotations

from typing import Any

from mechopt.errors import ProblemError
from mechopt.results.result import Result, Status

__all__ = ["theorem_result"]


def theorem_result(*, claim: str, proven: bool, why: str = "", private: bool = True, **fields: Any) -> Result:
    """A closed form's Result with the status its theorem supports.

    Parameters
    ----------
    claim : str
        The ``mechopt verify`` claim id that checks this closed form
        (``"lip.thm2"``, ``"kss.thm2_1"``, ``"fisher.cor1"``, ...); stored in
        ``extras["claim"]``.
    proven : bool
        Whether this instance lies in the region where the theorem is proven
        (and the claim holds there).
    why : str
        Why it is not proven here (required when ``proven`` is False): the
        region condition that fails, or what ``verify`` found.
    private : bool
        Whether the mechanism passes its audit (privacy and channel); False
        makes the result ``infeasible_point``, proven region or not.
    **fields
        The other :class:`~mechopt.results.result.Result` fields; ``message`` names
        the theorem, ``solver`` defaults to ``"closed-form"``.

    Returns
    -------
    Result
        ``optimal`` (``proof="theorem"``) when proven, else ``feasible`` or
        ``infeasible_point``.

    Examples
    --------
    >>> r = theorem_result(claim="lip.ldp_mimo", proven=False, why="verify finds it false at small eps",
    ...                    message="Opt-mimo-LDP channel", value=0.5, sense="min", objective="mse")
    >>> r.status.value, r.extras
    ('feasible', {'claim': 'lip.ldp_mimo'})
    """
    if not proven and not why:
        raise ProblemError(f"closed form {claim!r}: say why it is not proven here")
    extras = {**fields.pop("extras", {}), "claim": claim}
    message = fields.pop("message", "")
    fields.setdefault("solver", "closed-form")
    if proven and private:
        return Result(status=Status.OPTIMAL, proof="theorem", message=message, extras=extras, **fields)
    note = f"not proven here: {why}" if not proven else "its mechanism fails the audit"
    if not private and not proven:
        note += "; its mechanism fails the audit"
    status = Status.FEASIBLE if private else Status.INFEASIBLE_POINT
    return Result(status=status, message=f"{message}; {note}" if message else note, extras=extras, **fields)
