"""Issue 19, severe items 1 and 3: writing never destroys the output path; reading never hangs or exhausts memory.

Each test names the input, the old behaviour and the new one. FIFOs and
device nodes are private nodes made by the test in ``tmp_path`` (device
nodes need root: skipped otherwise); no system path is ever written.
"""

from __future__ import annotations

import os
import stat
import threading
import tracemalloc

import pytest

from mechopt.cli import main
from mechopt.errors import InputFileError, MechoptError, ProblemError
from mechopt.io.catalog import CatalogError, read_toml
from mechopt.io.files import read_input
from mechopt.io.mechfile import read_mechanism
from mechopt.io.writer import savefig, write_text
from mechopt.model.priors import parse_prior

pytestmark = pytest.mark.timeout(120)  # a regression to the old hang fails instead of blocking the suite

DESIGN = ["design", "--notion", "ldp", "--utility", "mi", "--eps", "1"]


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _char_device(tmp_path, name="null", minor=3):
    """A private character device (1, minor) (3: like /dev/null, 5: like /dev/zero); root only."""
    path = tmp_path / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    return path


def _reader(path, sink):
    with open(path, "rb") as fh:
        sink.append(fh.read())


# -- item 1: writing --------------------------------------------------------------------------------
def test_out_to_device_writes_it_and_keeps_the_node(tmp_path, capsys):
    """``design --out NODE`` with NODE a character device (like /dev/null).
    Old: os.replace turned the device into an ordinary file. New: written directly, still a device."""
    dev = _char_device(tmp_path)
    code, _, err = _run(capsys, DESIGN + ["--prior", "0.3,0.7", "--out", str(dev)])
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_plot_to_device_keeps_the_node(tmp_path):
    """``savefig(fig, NODE)`` (``--plot``). Old: the device became a PNG file. New: still a device."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dev = _char_device(tmp_path)
    fig = plt.figure()
    try:
        savefig(fig, dev)
    finally:
        plt.close(fig)
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_out_to_fifo_with_reader_delivers_everything(tmp_path):
    """A FIFO with a waiting reader. Old: renamed over (the reader got 0 bytes, the FIFO was gone).
    New: the reader gets the whole text and the FIFO stays."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = threading.Thread(target=_reader, args=(fifo, got))
    t.start()
    text = "x" * 200_000 + "\n"  # more than a pipe buffer: the writer must block, not drop data
    for _ in range(200):  # the reader may not have opened the FIFO yet
        try:
            write_text(fifo, text)
            break
        except ProblemError:
            threading.Event().wait(0.05)
    t.join(30)
    assert got == [text.encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_out_to_fifo_without_reader_is_refused(tmp_path):
    """A FIFO nobody reads. Old: replaced by a file. New: a ProblemError at once, the FIFO stays."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ProblemError, match="no process is reading"):
        write_text(fifo, "{}")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_out_through_symlink_keeps_the_link(tmp_path):
    """``--out link`` with link → real.json. Old: the link was replaced by a file. New: the target is written."""
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old")
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_out_equal_to_prior_is_refused_before_work(tmp_path, capsys):
    """``--prior p.txt --out p.txt``. Old: the prior was overwritten by the mechanism. New: exit 2, p.txt intact."""
    p = tmp_path / "p.txt"
    p.write_text("0.3 0.7\n")
    code, out, err = _run(capsys, DESIGN + ["--prior", str(p), "--out", str(p)])
    assert code == 2 and "is the run's --prior file" in err and out == ""
    assert p.read_text() == "0.3 0.7\n"


SWEEP_SPEC = (
    'problem = "design"\nsolvers = ["exact"]\n[fixed]\nnotion = "ldp"\nutility = "mi"\nprior = "0.3,0.7"\n'
    "[grid]\neps = [0.5, 1.0]\n"
)


def test_sweep_out_equal_to_spec_is_refused(tmp_path, capsys):
    """``sweep spec.toml --out spec.toml --force``. Old: the spec was overwritten with JSON lines.
    New: exit 2 before any point runs; the spec is intact."""
    spec = tmp_path / "spec.toml"
    spec.write_text(SWEEP_SPEC)
    code, _, err = _run(capsys, ["sweep", str(spec), "--out", str(spec), "--force"])
    assert code == 2 and "sweep spec" in err
    assert spec.read_text() == SWEEP_SPEC


def test_sweep_out_equal_to_plot_is_refused(tmp_path, capsys):
    """``sweep spec --out a --plot a``. Old: the plot overwrote the results. New: exit 2, nothing written."""
    spec = tmp_path / "spec.toml"
    spec.write_text(SWEEP_SPEC)
    out = tmp_path / "a.out"
    code, _, err = _run(capsys, ["sweep", str(spec), "--out", str(out), "--plot", str(out)])
    assert code == 2 and "same file as --out" in err
    assert not out.exists()


# -- item 3: reading ---------------------------------------------------------------------------------
READERS = [
    ("prior", lambda p: parse_prior(str(p)), ProblemError),
    ("mechanism", read_mechanism, ProblemError),
    ("toml", read_toml, CatalogError),
    ("graph", lambda p: __import__("mechopt.cli.design", fromlist=["read_graph"]).read_graph(p), ProblemError),
    (
        "sweep --resume",
        lambda p: __import__("mechopt.jobs.sweep.run", fromlist=["read_lines"]).read_lines(p),
        ProblemError,
    ),
]


@pytest.mark.parametrize("what, read, exc", READERS, ids=[r[0] for r in READERS])
def test_reader_refuses_fifo_at_once(tmp_path, what, read, exc):
    """Every reader given a FIFO with no writer. Old: blocked forever in open(). New: a typed error at once."""
    fifo = tmp_path / "input.txt"
    os.mkfifo(fifo)
    with pytest.raises(exc, match="FIFO"):
        read(fifo)


@pytest.mark.parametrize("what, read, exc", READERS, ids=[r[0] for r in READERS])
def test_reader_refuses_zero_device(tmp_path, what, read, exc):
    """Every reader given a /dev/zero-like device. Old: read until memory ran out. New: refused, not read."""
    dev = _char_device(tmp_path, "zero", minor=5)
    with pytest.raises(exc, match="character device"):
        read(dev)


def test_large_prior_refused_before_reading(tmp_path):
    """A 40 MB prior text file. Old: parsed (40 s, 1.2 GB) before the symbol-count refusal.
    New: refused from its size, reading nothing (peak Python allocation under 1 MB)."""
    big = tmp_path / "prior.txt"
    with open(big, "wb") as fh:
        fh.truncate(40 * 1024 * 1024)  # sparse: costs no disk
    tracemalloc.start()
    try:
        with pytest.raises(InputFileError, match="more than"):
            parse_prior(str(big))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024


def test_read_input_never_reads_past_the_limit(tmp_path):
    """The size check is the helper's: a file of exactly the limit is read, one byte more is refused."""
    f = tmp_path / "f"
    f.write_bytes(b"a" * 10)
    assert read_input(f, "file", 10) == b"a" * 10
    with pytest.raises(InputFileError):
        read_input(f, "file", 9)


def test_cli_fifo_prior_is_one_line_exit_2(tmp_path, capsys):
    """``design --prior FIFO``. Old: hung. New: exit 2, one line naming the FIFO, no traceback."""
    fifo = tmp_path / "p.txt"
    os.mkfifo(fifo)
    code, out, err = _run(capsys, DESIGN + ["--prior", str(fifo)])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "FIFO" in err
    assert isinstance(InputFileError("x"), MechoptError)
