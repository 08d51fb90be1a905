"""Pricing over the privacy cone itself (LIP, PML, ALIP) for designs over a set of priors.

:mod:`~mechopt.solvers.robust.cone.box` prices mutual information by a branch and bound over the
cone's posterior boxes, with the two-level vertex search of :mod:`~mechopt.solvers.robust.cone.vertices`
as its heuristic; :mod:`~mechopt.solvers.robust.cone.ratio` prices the mean squared error by a branch
and bound over the ratios N_i/T_i; :mod:`~mechopt.solvers.robust.cone.hist` prices the histogram by a branch and
bound over boxes of the column and its masses (also over the ε-LDP patterns). They serve
:mod:`~mechopt.solvers.robust.rays` above ``cone_max`` (and above ``enumerate_max`` under LDP).
"""
