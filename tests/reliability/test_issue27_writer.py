"""Issue 27, the writer findings of the hostile report (2026-11-25): N1, N2, N14, #21, #26, #17.

Each test names the finding, the command the report ran, what it saw then and what holds now.
Device nodes are private ``mknod c 1 3`` nodes in ``tmp_path`` (root only, skipped otherwise);
the full disk is a failing ``write`` (ENOSPC) and a real ``RLIMIT_FSIZE`` (what ``ulimit -f`` sets).
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/ is not a package
from nodes import SPEC, kind_of, plant  # noqa: E402

from mechopt.cli import main  # noqa: E402
from mechopt.errors import OutputFileError, ParamError  # noqa: E402
from mechopt.io.lock import Lock  # noqa: E402
from mechopt.io.writer import Output, clean_stale, write_text  # noqa: E402
from mechopt.jobs.sweep.file import SweepWriter  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    p = tmp_path / "a.toml"
    p.write_text(SPEC)
    return p


def _sweep(capsys, spec: Path, out: Path, *more: str) -> tuple[int, str, str]:
    code = main(["sweep", str(spec), "--out", str(out), *more])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _dotfiles(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# -- N1: sweep --out replaced devices, FIFOs and links ------------------------------------------------
@pytest.mark.parametrize("force", [False, True], ids=["fresh", "--force"])
def test_n1_sweep_out_device_is_written_through(tmp_path, capsys, spec, force) -> None:
    """``mknod nul c 1 3; mechopt sweep a.toml --out nul [--force]``. Was: exit 0 and ``nul`` a regular
    file of 1457 bytes. Now: exit 0, still a character device."""
    node = tmp_path / "nul"
    plant(node, "chardev")
    code, out, err = _sweep(capsys, spec, node, *(["--force"] if force else []))
    assert code == 0, err
    assert kind_of(node) == "chardev" and "3 points" in out
    assert _dotfiles(tmp_path) == []


def test_n1_sweep_out_fifo_with_reader_gets_every_line(tmp_path, capsys, spec) -> None:
    """``mkfifo ff; cat ff > got & mechopt sweep a.toml --out ff``. Was: the reader got 0 bytes and ``ff``
    became a file. Now: the reader gets the header and the 3 lines; ``ff`` is still a FIFO."""
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    for _ in range(400):  # until the reader thread has opened its end
        code, _, err = _sweep(capsys, spec, fifo)
        if "no process is reading" not in err:
            break
        threading.Event().wait(0.05)
    reader.join(30)
    assert code == 0, err
    lines = got[0].decode().splitlines()
    assert len(lines) == 4 and lines[0].startswith('{"mechopt_sweep":1')
    assert kind_of(fifo) == "fifo"


def test_n1_sweep_out_fifo_without_reader_is_refused_before_the_sweep(tmp_path, capsys, spec) -> None:
    """``mkfifo ff2; mechopt sweep a.toml --out ff2``. Was: exit 0, the FIFO replaced by a file. Now: exit 2,
    "no process is reading the FIFO", the FIFO kept."""
    fifo = tmp_path / "ff2"
    os.mkfifo(fifo)
    code, out, err = _sweep(capsys, spec, fifo)
    assert code == 2 and "no process is reading the FIFO" in err and out == ""
    assert kind_of(fifo) == "fifo"


def test_n1_sweep_out_link_to_device_keeps_both(tmp_path, capsys, spec) -> None:
    """``ln -s nul2 nlink; mechopt sweep a.toml --out nlink``. Was: the link replaced by a file."""
    dev, link = tmp_path / "nul2", tmp_path / "nlink"
    plant(dev, "chardev")
    link.symlink_to(dev.name)
    code, _, err = _sweep(capsys, spec, link)
    assert code == 0, err
    assert kind_of(link) == "symlink" and kind_of(dev) == "chardev"


def test_n1_sweep_out_link_force_writes_its_target(tmp_path, capsys, spec) -> None:
    """``ln -s tgt.jsonl slink.jsonl; mechopt sweep a.toml --out slink.jsonl --force``. Was: the link was
    replaced by a file and ``tgt.jsonl`` left unchanged. Now: the link stays, ``tgt.jsonl`` holds the sweep."""
    tgt, link = tmp_path / "tgt.jsonl", tmp_path / "slink.jsonl"
    tgt.write_text("old\n")
    link.symlink_to(tgt.name)
    code, _, err = _sweep(capsys, spec, link, "--force")
    assert code == 0, err
    assert kind_of(link) == "symlink" and tgt.read_text().startswith('{"mechopt_sweep":1')
    assert len(tgt.read_text().splitlines()) == 4


# -- N2: fixed-name siblings followed links and blocked on FIFOs -----------------------------------------
def test_n2_planted_part_link_does_not_redirect_the_sweep(tmp_path, capsys, spec) -> None:
    """``ln -s victim.txt .out.jsonl.part``. Was: ``victim.txt`` truncated and overwritten with the sweep,
    and ``out.jsonl`` became a link to it. Now: the temporary is private (mkstemp); the victim is untouched."""
    victim, out = tmp_path / "victim.txt", tmp_path / "out.jsonl"
    victim.write_text("precious victim data")
    (tmp_path / ".out.jsonl.part").symlink_to(victim.name)
    code, _, err = _sweep(capsys, spec, out)
    assert code == 0, err
    assert victim.read_text() == "precious victim data"
    assert kind_of(out) == "file" and len(out.read_text().splitlines()) == 4


def test_n2_planted_part_fifo_does_not_hang(tmp_path, capsys, spec) -> None:
    """``mkfifo .out2.jsonl.part``. Was: the sweep hung in ``open("w")`` (killed by timeout 15)."""
    (tmp_path / ".out2.jsonl.part").parent.mkdir(exist_ok=True)
    os.mkfifo(tmp_path / ".out2.jsonl.part")
    code, _, err = _sweep(capsys, spec, tmp_path / "out2.jsonl")
    assert code == 0, err
    assert kind_of(tmp_path / ".out2.jsonl.part") == "fifo"


@pytest.mark.parametrize("kind", ["symlink", "fifo", "chardev", "hardlink"])
def test_n2_planted_lock_is_refused_and_never_followed(tmp_path, capsys, spec, kind) -> None:
    """``ln -s newfile .out.jsonl.lock``. Was: ``newfile`` created (mode 0600) and the sweep ran. Now: the
    sweep is refused with one line naming the lock file; nothing is created, the node stays."""
    lock, out = tmp_path / ".o.jsonl.lock", tmp_path / "o.jsonl"
    if kind == "hardlink":
        (tmp_path / "other").write_text("x")
        os.link(tmp_path / "other", lock)
    else:
        plant(lock, kind, tmp_path / "newfile_created_by_lock")
    code, _, err = _sweep(capsys, spec, out)
    assert code == 2 and "cannot lock 'o.jsonl'" in err and ".o.jsonl.lock" in err
    assert not (tmp_path / "newfile_created_by_lock").exists() and not out.exists()
    assert kind_of(lock) == ("file" if kind == "hardlink" else kind)


def test_n2_lock_held_by_another_sweep_refuses_and_keeps_it(tmp_path) -> None:
    """The lock still does its job: a second writer of the same file is refused while the first holds it."""
    out = tmp_path / "s.jsonl"
    with Lock(out):
        with pytest.raises(ParamError, match="another sweep is writing 's.jsonl'"):
            Lock(out).acquire()
        assert _dotfiles(tmp_path) == [".s.jsonl.lock"]
    assert _dotfiles(tmp_path) == []


def test_forked_child_drops_the_inherited_lock(tmp_path) -> None:
    """d_lock.sh: an orphaned forked child kept the sweep's flock. Now a forked child closes the locks it
    inherited (os.register_at_fork), so a child alone holds nothing."""
    out = tmp_path / "s.jsonl"
    with Lock(out) as lock:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report whether its copy of the descriptor is still open, then wait
            try:
                os.fstat(lock.fd) if lock.fd is not None else None
                os.write(w, b"open" if lock.fd is not None else b"closed")
            finally:
                os._exit(0)
        os.close(w)
        said = os.read(r, 16)
        os.waitpid(pid, 0)
        os.close(r)
    assert said == b"closed"


# -- N14 / #17: a full disk and a file-size limit leave nothing behind and name the file -------------------
def test_n14_full_disk_during_a_sweep_names_the_file_and_leaves_no_debris(tmp_path, capsys, spec, monkeypatch) -> None:
    """``sweep --out tiny/s.jsonl`` on a full 64 KiB tmpfs. Was: ``[Errno 28] No space left on device`` naming
    no file, ``.s.jsonl.lock`` and an empty ``.s.jsonl.part`` left (``close()`` raised ENOSPC again and
    skipped the unlinks). Now: ``cannot write '.../s.jsonl': No space left on device``; no lock, no temporary."""
    real, calls = os.write, {"n": 0}

    def full(fd: int, data) -> int:
        calls["n"] += 1
        if calls["n"] >= 3:  # the header and the first line go through, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", full)
    code, _, err = _sweep(capsys, spec, tmp_path / "s.jsonl")
    monkeypatch.setattr(os, "write", real)
    assert code == 2 and f"cannot write '{tmp_path / 's.jsonl'}': No space left on device" in err
    assert _dotfiles(tmp_path) == []


def test_n14_full_disk_before_the_first_point_keeps_the_old_file(tmp_path, monkeypatch) -> None:
    """A fresh write that fails (ENOSPC) leaves the old file as it was and no temporary."""
    path = tmp_path / "keep.json"
    path.write_text("old")

    def full(fd: int, data) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OutputFileError, match="keep.json': No space left on device"):
        write_text(path, "new")
    monkeypatch.undo()
    assert path.read_text() == "old" and _dotfiles(tmp_path) == []


@pytest.mark.parametrize("command", ["sweep", "design"])
def test_17_file_size_limit_names_the_file(tmp_path, command) -> None:
    """``ulimit -f 2; mechopt sweep lip-tradeoff --out lim.jsonl``. Was: ``[Errno 27] File too large`` naming
    no file. Now: ``cannot write 'lim.jsonl': File too large``, no temporary or lock left."""
    out = tmp_path / ("lim.jsonl" if command == "sweep" else "big.json")
    design = "design --notion lip --utility histogram --prior uniform:40 --eps 1 --out big.json"
    argv = ["sweep", "lip-tradeoff", "--out", out.name] if command == "sweep" else design.split()

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    run = subprocess.run(
        [sys.executable, "-m", "mechopt", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=100,
    )
    assert run.returncode == 2 and f"cannot write '{out.name}': File too large" in run.stderr, run.stderr
    assert _dotfiles(tmp_path) == []


def test_n14_stale_temporary_of_a_killed_sweep_is_removed_by_the_next_run(tmp_path, capsys, spec) -> None:
    """Was: the stale ``.s.jsonl.part`` of a killed sweep stayed after a later successful ``--resume``.
    Now: temporaries ``.NAME.PID.XXXXXXXX.part`` whose process is gone are removed under the lock; a live
    process's temporary, a link or a FIFO of that name are left alone."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".s.jsonl.{dead.pid}.abcdefgh.part"
    stale.write_text('{"mechopt_sweep":1')
    live = tmp_path / f".s.jsonl.{os.getppid()}.abcdefgh.part"
    live.write_text("someone else's")
    link = tmp_path / f".s.jsonl.{dead.pid}.ijklmnop.part"
    link.symlink_to("victim")
    code, _, err = _sweep(capsys, spec, tmp_path / "s.jsonl", "--resume")
    assert code == 0, err
    assert not stale.exists() and live.exists() and kind_of(link) == "symlink"
    assert clean_stale(tmp_path / "s.jsonl") == []


def test_output_context_removes_its_temporary_on_any_exception(tmp_path) -> None:
    """An interrupt (or any exception) inside the writer leaves the old file and no temporary."""
    path = tmp_path / "f.txt"
    path.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with Output(path) as out:
            out.write(b"half")
            raise KeyboardInterrupt
    assert path.read_text() == "old" and _dotfiles(tmp_path) == []


def test_sweep_writer_publishes_at_its_first_point_only(tmp_path) -> None:
    """A fresh sweep file appears (renamed over the old one) only once its first point is written."""
    path = tmp_path / "s.jsonl"
    path.write_text("old results\n")
    with SweepWriter(path, spec_id="a", problem="design", points=1) as w:
        assert path.read_text() == "old results\n"
        w.write({"key": "k", "solver": "exact", "point": {}, "status": "optimal", "value": 1.0, "time_s": 0.1})
        assert path.read_text().count("\n") == 2
    assert _dotfiles(tmp_path) == []


def test_replaced_file_keeps_its_mode(tmp_path) -> None:
    """A replaced file keeps its permission bits (a new one gets 0666 & ~umask, not mkstemp's 0600)."""
    path = tmp_path / "m.json"
    path.write_text("old")
    path.chmod(0o640)
    write_text(path, "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o640


# -- #21: reproduce published part of a figure ----------------------------------------------------------------
def test_21_reproduce_publishes_nothing_when_a_folder_is_in_the_way(tmp_path) -> None:
    """``figs/fisher-fig-densities.json`` a folder: the ``.csv`` was published, then an IsADirectoryError,
    exit 1. Now: the figure fails naming the path and none of its files is published."""
    from mechopt.figures import Figure, FigureOutput
    from mechopt.jobs.reproduce import reproduce

    def run(out_dir: Path, quick: bool = False) -> FigureOutput:
        files = [write_text(Path(out_dir) / n, "x\n") for n in ("a.csv", "b.json", "c.txt")]
        return FigureOutput(id="demo", files=files, data=None)

    (tmp_path / "b.json").mkdir()
    rep = reproduce(["demo"], tmp_path, figures={"demo": Figure(id="demo", title="t", run=run, paper="x")})
    assert rep[0]["status"] == "error" and "b.json" in rep[0]["error"] and "directory" in rep[0]["error"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json"]


# -- #26: --plot into a read-only folder was refused only after the sweep ---------------------------------------
@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_26_plot_into_a_read_only_folder_is_refused_before_the_sweep(tmp_path, spec) -> None:
    """``sweep a.toml --plot rodir/p.png --out ok.jsonl`` without CAP_DAC_OVERRIDE. Was: the whole sweep ran,
    then the plot was refused. Now: refused at once; ``ok.jsonl`` is never written."""
    rodir = tmp_path / "rodir"
    rodir.mkdir()
    rodir.chmod(0o555)
    cmd = [sys.executable, "-m", "mechopt", "sweep", str(spec), "--plot", "rodir/p.png", "--out", "ok.jsonl"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root without setpriv: a read-only folder is writable")
        cmd = [setpriv, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search,-fowner", *cmd]
    run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=100)
    assert run.returncode == 2 and "cannot write 'rodir/p.png': Permission denied" in run.stderr, run.stderr
    assert not (tmp_path / "ok.jsonl").exists()
