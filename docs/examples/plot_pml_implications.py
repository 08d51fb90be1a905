r"""
Between LDP and PML: the implication graph, and what each notion costs
======================================================================

For a fixed prior :math:`P` every notion below bounds the information density
:math:`i(x; y) = \log P(x \mid y) / P(x)` of each output:

* ε-LIP: :math:`|i(x; y)| \le \varepsilon`;
* :math:`(\varepsilon_u, \varepsilon_l)`-ALIP: :math:`-\varepsilon_l \le i(x; y) \le \varepsilon_u`;
* ε-PML: :math:`i(x; y) \le \varepsilon` (no lower bound: zeros in :math:`Q` are allowed);
* ε-LDP bounds ratios of likelihoods instead, :math:`Q[x, y] \le e^\varepsilon Q[x', y]`.

An arrow A → B labelled with a level says: every channel that satisfies A at its level
satisfies B at the level on the arrow (:mod:`mechopt.notions.relations`; each arrow is checked
on random channels in the test suite). Nothing leaves PML.
"""

# %%
import numpy as np

import mechopt
from mechopt.notions.relations import draw_implications

fig = draw_implications()

# %%
# The same prior, four notions, one certified optimum each (mutual information, ε = 1):
# a weaker notion admits more channels, so it never gives less information.
P = np.array([0.1, 0.2, 0.3, 0.4])
for notion, extra in (("ldp", {}), ("alip", {"eps_lower": 0.5}), ("lip", {}), ("pml", {})):
    r = mechopt.design(prior=P, notion=notion, utility="mi", eps=1.0, solver="exact", **extra)
    print(f"{notion:5s} {r.status.value:8s} I(X;Y) = {r.value:.6f} nats, outputs {r.Q.shape[1]}")
