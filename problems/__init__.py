"""Problem families, one module per paper (importable as ``mechopt.problems``).

- :mod:`mechopt.problems.design` — a custom channel design (notion × utility × prior).
- ``lip`` (LIP paper), ``kss`` (k-subset paper), ``fisher`` (Fisher-information
  paper), ``gauss`` (Gaussian privacy-utility paper).
"""

from mechopt.problems import design  # noqa: E402,F401  (the generic problem is always available)
