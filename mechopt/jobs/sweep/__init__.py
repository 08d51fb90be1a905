"""Parameter sweeps: the spec, the run and its results file.

Modules: :mod:`~mechopt.jobs.sweep.spec`, :mod:`~mechopt.jobs.sweep.run`,
:mod:`~mechopt.jobs.sweep.file`.
"""

from mechopt.jobs.sweep.run import (
    SweepSpec,
    load_spec,
    parse_spec,
    plot_sweep,
    read_lines,
    run_point,
    series_legend,
    sweep,
    sweep_figure,
    tasks,
)

__all__ = [
    "SweepSpec",
    "parse_spec",
    "load_spec",
    "sweep",
    "tasks",
    "run_point",
    "read_lines",
    "plot_sweep",
    "sweep_figure",
    "series_legend",
]
