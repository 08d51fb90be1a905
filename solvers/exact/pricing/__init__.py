"""Exact pricing oracles of column generation: max over rays of μ(r) − νᵀr, with a proven bound (math.md §3)."""
