"""A process already past its --time-limit when the solve starts ends in a time_limit result, never a traceback.

CI saw it under load: the interpreter and imports took longer than the 1 s limit, so the SIGALRM backstop
(`mechopt.runtime.deadline.alarm`) was armed for 1 ms and fired before `solve`, which turns a deadline into
a result, was entered.
"""

import contextlib
import json
import math

from mechopt.cli import main
from mechopt.runtime import deadline


def test_backstop_firing_before_the_solve_is_a_time_limit_result(monkeypatch, capsys, tmp_path):
    @contextlib.contextmanager
    def late_alarm(grace):
        raise deadline.TimeLimitReached("running (stopped at the deadline)", 1.0)
        yield  # pragma: no cover

    monkeypatch.setattr(deadline, "alarm", late_alarm)
    argv = ["design", "--prior", "uniform:12", "--notion", "mip", "--utility", "mi", "--eps", "1"]
    dest = tmp_path / "m.json"
    code = main(argv + ["--solver", "sqp", "--time-limit", "1", "--json", "--out", str(dest)])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    # no mechanism: exit 1 (scripts must not read it as an answer), no --out file, and the record names
    # the solver and the privacy asked for (they were blank)
    assert code == 1 and out["status"] == "time_limit" and "no mechanism is returned" in out["message"]
    assert out["mechanism"] is None and not dest.exists()
    assert captured.err.count("\n") == 1 and "mechopt: error: no mechanism: the 1 s time limit passed" in captured.err
    assert "nothing written to" in captured.err
    assert out["solver"] == "sqp" and out["privacy"]["notion"] == "mip" and out["privacy"]["eps"] == 1.0


def test_a_time_limit_beyond_the_alarm_range_runs_unbounded(capsys):
    # --time-limit 1e12 (31 700 years) raised OverflowError from setitimer: "internal error", exit 1
    argv = ["design", "--prior", "0.5,0.5", "--notion", "lip", "--utility", "mi", "--eps", "1", "--json"]
    code = main([*argv, "--time-limit", "1e12"])
    out = json.loads(capsys.readouterr().out)
    a = 1 - 0.5 * math.exp(-1)  # LIP eps = 1 on a fair bit: the lower posterior bound binds, Q = [[a, 1-a], [1-a, a]]
    mi = math.log(2) + a * math.log(a) + (1 - a) * math.log(1 - a)
    assert code == 0 and out["status"] == "optimal" and abs(out["value"] - mi) < 1e-9


def test_the_backstop_fires_a_margin_after_the_deadline_unless_a_stage_takes_its_grace(monkeypatch, capsys):
    """The SIGALRM backstop waited 2.15 s past the deadline for every stage (column generation's first-master grace):
    uniform:10^7 --time-limit 3 ended 1.03 s late in an FFT of its audit. Now it is armed ALARM_MARGIN_S after the
    deadline, and only a stage allowed past it (column generation's seeds and first master) moves it by the grace."""
    from mechopt.solvers.exact.colgen import FIRST_MASTER_GRACE

    armed, moved = [], []
    real_alarm, real_late = deadline.alarm, deadline.late
    monkeypatch.setattr(deadline, "alarm", lambda grace: armed.append(grace) or real_alarm(grace))
    monkeypatch.setattr(deadline, "late", lambda s: moved.append(s) or real_late(s))
    main(["design", "--prior", "0.5,0.5", "--notion", "lip", "--utility", "mi", "--eps", "1", "--time-limit", "60"])
    capsys.readouterr()
    assert armed == [deadline.ALARM_MARGIN_S] and deadline.ALARM_MARGIN_S < 0.5 and moved == []
    assert FIRST_MASTER_GRACE == deadline.LATE_GRACE_S


def test_late_moves_the_armed_backstop_and_only_later():
    import time

    with deadline.bounded(0.05), deadline.alarm(deadline.ALARM_MARGIN_S):
        deadline.late(0.6)  # the alarm now fires 0.8 s from here, not 0.25 s
        deadline.late(0.0)  # never earlier
        time.sleep(0.45)
        try:
            time.sleep(3.0)
        except deadline.TimeLimitReached as exc:
            stopped = exc
    assert "stopped at the deadline" in str(stopped)
    deadline.late(1.0)  # no alarm armed: nothing
    with deadline.bounded(0.05), deadline.alarm(deadline.ALARM_MARGIN_S):
        deadline.late(0.3)  # the one move of this call: 0.5 s from here
        deadline.late(5.0)  # a second is not taken (a loop that keeps asking cannot keep the alarm off)
        try:
            time.sleep(3.0)
        except deadline.TimeLimitReached:
            stopped = None
    assert stopped is None


def test_a_short_limit_returns_the_seeded_masters_audited_channel(capsys):
    """PML mi on 64 inputs (Dirichlet(1), seed 64), --time-limit 0.3: the deadline passes while the seed columns are
    built; the first master is still solved (it returned no mechanism: the alarm stopped it), its channel audited,
    and the message says how long the whole run took."""
    import numpy as np

    P = np.random.default_rng(64).dirichlet(np.ones(64))
    argv = ["design", "--prior", ",".join(map(repr, P.tolist())), "--notion", "pml", "--utility", "mi", "--eps", "2"]
    code = main([*argv, "--time-limit", "0.3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "time_limit" and out["mechanism"] is not None
    assert out["privacy"]["violation"] <= 1e-9 and "the run took" in out["message"]
