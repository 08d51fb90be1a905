"""Parameter sweeps: the spec (:mod:`.spec`), the run (:mod:`.run`) and its results file (:mod:`.file`)."""

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
