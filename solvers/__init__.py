"""Solver backends, one module per backend (importable as ``mechopt.solvers``).

Each module exposes ``SOLVERS = {name: SolverClass}``; see :mod:`mechopt.registry`.
"""
