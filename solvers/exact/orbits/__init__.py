"""Orbits of rays under the prior's symmetry: the reduced LP, orbit pricing and the mechanism with ≤ d outputs.

See math.md §2.
"""
