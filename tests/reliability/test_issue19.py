"""Issue 19, "Also found": each defect as input, old behaviour, new behaviour."""

from __future__ import annotations

import json
import threading

import pytest

import mechopt
from mechopt import settings
from mechopt.errors import ParamError
from mechopt.jobs.sweep.file import SweepWriter
from mechopt.jobs.sweep.run import parse_spec, sweep
from mechopt.registry import get_problem
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Status

SPEC = parse_spec(
    'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "lip"\nutility = "histogram"\n'
    'prior = "0.3,0.7"\n[grid]\neps = [0.5, 1.0]\n[options.sqp]\nn_starts = 1\n'
)


def test_gap_near_zero_is_relative():
    """cip-binomial n_users=200, p1=0.3, eps=1: value 1.36e-9, bound 1.41e-10 was `optimal` (gap 1.2e-9
    against max(1, |bound|)). Issue 19 made the gap relative above a 1e-3 floor; issue 26 removed the
    floor: |bound − value| / max(|bound|, |value|) at every magnitude, and the answer is honest either way."""
    r = mechopt.solve(get_problem("cip-binomial").from_params(n_users=200, p1=0.3, eps=1), solver="exact")
    gap = abs(r.value - r.certificate.bound) / max(abs(r.value), abs(r.certificate.bound))
    assert r.certificate.gap == pytest.approx(gap)
    assert (r.status is Status.OPTIMAL) == (gap <= 1e-7)
    assert relative_gap(1.0e-9, 1.0e-9 * (1 + 1e-9)) < 1e-7  # same value at a tiny scale passes
    assert relative_gap(1.0e-24, 1.0e-24 + 1e-30) > 1e-7  # and a tiny absolute gap is not small relative
    assert relative_gap(5.0, 5.0 + 1e-6) == pytest.approx(2e-7)


def test_threads_with_and_without_overrides_give_single_thread_results():
    """8 threads, half inside override(prior_sum=0.5): the others must still refuse a prior summing to 1.3
    (accepted 20/20 times with the process-wide list) and design exactly what one thread designs."""
    priors = ["0.3,0.7", "0.2,0.3,0.5", "0.1,0.9", "0.25,0.25,0.5"]
    single = {p: mechopt.design(prior=p, notion="ldp", utility="mi", eps=1.0, solver="exact").value for p in priors}
    results: dict[int, list] = {}
    barrier = threading.Barrier(8)

    def work(i: int) -> None:
        out = []
        barrier.wait()
        for k in range(5):
            p = priors[(i + k) % len(priors)]
            if i % 2:
                with settings.override(prior_sum=0.5, privacy=1e-3):
                    out.append(
                        ("o", p, mechopt.design(prior=p, notion="ldp", utility="mi", eps=1.0, solver="exact").value)
                    )
            else:
                try:
                    mechopt.design(prior="0.5,0.8", notion="ldp", utility="mi", eps=1.0, solver="exact")
                    out.append(("accepted", None, None))
                except mechopt.errors.ProblemError:
                    out.append(("refused", None, None))
                out.append(("p", p, mechopt.design(prior=p, notion="ldp", utility="mi", eps=1.0, solver="exact").value))
        results[i] = out

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    flat = [x for i in range(8) for x in results[i]]
    assert ("accepted", None, None) not in flat and sum(x[0] == "refused" for x in flat) == 20
    for kind, p, v in flat:
        if p is not None:
            assert v == single[p], (kind, p)
    assert settings.current() == settings.DEFAULTS


def test_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    """Two sweeps on one --out used to interleave or overwrite; now the second is refused while the first writes."""
    out = tmp_path / "s.jsonl"
    with SweepWriter(out, spec_id="a", problem="design", points=1):
        with pytest.raises(ParamError, match="another sweep is writing"):
            sweep(SPEC, out, overwrite=True)
    assert not out.exists()  # the first never wrote a point; nothing published


def test_failed_force_run_keeps_the_old_results(tmp_path, monkeypatch):
    """--force used to truncate the old file before failing; now the old file stays until a first point exists."""
    import mechopt.jobs.sweep.run as sweep_mod

    out = tmp_path / "s.jsonl"
    sweep(SPEC, out)
    before = out.read_bytes()

    def boom(task):
        raise RuntimeError("backend died")

    monkeypatch.setattr(sweep_mod, "run_point", boom)
    with pytest.raises(RuntimeError):
        sweep(SPEC, out, overwrite=True)
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_resume_on_a_non_sweep_file_leaves_it_alone(tmp_path):
    """A one-line notes file was 'repaired' (truncated to 0 bytes) by --resume; now refused, untouched."""
    out = tmp_path / "notes.jsonl"
    out.write_text("my notes, no newline")
    with pytest.raises(ParamError, match="not a mechopt sweep file"):
        sweep(SPEC, out, resume=True)
    assert out.read_text() == "my notes, no newline"


def test_resume_with_a_changed_spec_is_refused(tmp_path):
    """--resume with another prior appended its points silently; now the header's spec hash must match."""
    out = tmp_path / "s.jsonl"
    sweep(SPEC, out)
    other = parse_spec(
        json.dumps({})
        and 'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "lip"\n'
        'utility = "histogram"\nprior = "0.4,0.6"\n[grid]\neps = [0.5, 1.0]\n[options.sqp]\nn_starts = 1\n'
    )
    with pytest.raises(ParamError, match="another spec"):
        sweep(other, out, resume=True)
    assert len(out.read_text().splitlines()) == 3
