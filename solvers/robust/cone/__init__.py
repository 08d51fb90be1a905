"""Pricing over the privacy cone itself (LIP, PML, ALIP) for designs over a set of priors.

:mod:`~mechopt.solvers.robust.cone.box` prices mutual information by a branch and bound over the
cone's posterior boxes, with a heuristic stage first (:mod:`~mechopt.solvers.robust.cone.heuristics`:
the two-level vertex search of :mod:`~mechopt.solvers.robust.cone.vertices` and the multi-level one of
:mod:`~mechopt.solvers.robust.cone.faces`); :mod:`~mechopt.solvers.robust.cone.ratio` prices the mean
squared error by a branch and bound over the ratios N_i/T_i; :mod:`~mechopt.solvers.robust.cone.hist` prices the
histogram by a branch and bound over boxes of the column and its masses (also over the ε-LDP patterns), its
domains in :mod:`~mechopt.solvers.robust.cone.domains`. They serve
:mod:`~mechopt.solvers.robust.rays` above ``cone_max`` (and above ``enumerate_max`` under LDP).
"""
