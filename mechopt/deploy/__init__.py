"""Deploying a mechanism: what its guarantee becomes once reports are used, composed or shuffled.

- :mod:`mechopt.deploy.shuffle` — the central (ε, δ) after shuffling n reports (amplification bounds);
- :mod:`mechopt.deploy.shuffle_design` — a certified local design whose shuffled guarantee meets a target.

Examples
--------
>>> from mechopt.deploy.shuffle import central_guarantee
>>> central_guarantee([[0.75, 0.25], [0.25, 0.75]], n=1000, delta=1e-6).bound
'variation-ratio'
"""
