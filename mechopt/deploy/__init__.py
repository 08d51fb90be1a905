"""Deploying a mechanism: export to OpenDP (:mod:`~mechopt.deploy.opendp`) and a one-page report card.

One module per concern (the report card: :mod:`~mechopt.deploy.card`); this package sits above
:mod:`mechopt.mechanism` and :mod:`mechopt.results` and imports neither problems nor solvers.
"""
