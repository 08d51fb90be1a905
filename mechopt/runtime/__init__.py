"""Runtime: single-threaded BLAS while solving, progress bars, optional dependencies."""
