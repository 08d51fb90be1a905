"""Theorem claims of the four papers, one module per paper, each exposing ``CLAIMS``."""
