"""Issue 27: a symlink, a FIFO or a device node planted at any path a writer touches is never replaced.

Every writer of an output file (``design --out`` JSON and ``.npy``, ``design --plot`` and
``--certificate``, ``sweep --out`` fresh and ``--force``, ``sweep --plot``, ``audit --report``, ``report --html``,
``compare --plot``, ``reproduce``, ``write_mechanism``, ``Mechanism.save``, the figures'
``write_data``, the synthetic datasets, ``randomize --out``'s column writer) runs with
a node planted at one of the paths it touches: the output itself, its lock (``.NAME.lock``), the
old fixed temporary (``.NAME.part``) and the temporary pattern of this process
(``.NAME.PID.XXXXXXXX.part``). Afterwards the planted node is still what it was (a link still
points where it pointed), the victim file outside the output folder is untouched, and nothing
outside the output folder changed. At the output itself a link is followed and kept (its target
inside the folder is written), a device is written through and a FIFO without a reader is refused;
at the lock, a sweep refuses to run; elsewhere the writer goes on and ignores the node.

Device nodes are private ``mknod c 1 3`` nodes in ``tmp_path`` (root only; skipped otherwise).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/ is not a package
from nodes import KINDS, SPEC, kind_of, plant, snapshot  # noqa: E402

from mechopt.cli import main  # noqa: E402
from mechopt.errors import MechoptError  # noqa: E402

pytestmark = pytest.mark.timeout(120)  # a writer that blocks on a planted FIFO fails instead of hanging

DESIGN = ["design", "--notion", "ldp", "--utility", "mi", "--eps", "1", "--prior", "0.3,0.7"]
CATALOG = """[[instance]]
problem = "design"
name = "binary"
params = { prior = "0.3,0.7", notion = "lip", utility = "histogram", eps = 1.0 }
"""


def _cli(*argv: str) -> int:
    return main(list(argv))


def _reproduce(out: Path, name: str) -> None:
    from mechopt.figures import Figure, FigureOutput
    from mechopt.jobs.reproduce import reproduce

    def run(out_dir: Path, quick: bool = False) -> FigureOutput:
        from mechopt.io.writer import write_text

        p = write_text(Path(out_dir) / name, "x,y\n0,1\n")
        return FigureOutput(id="demo", files=[p], data=None)

    rep = reproduce(["demo"], out, figures={"demo": Figure(id="demo", title="t", run=run, paper="x")})
    if rep[0]["status"] != "ok":
        raise MechoptError(rep[0]["error"])


def _mechanism(out: Path, name: str) -> None:
    from mechopt.io.mechfile import write_mechanism

    write_mechanism(out / name, [[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5], notion="ldp", eps=1.1)


def _write_data(out: Path, name: str) -> None:
    from mechopt.figures import write_data

    write_data(out, name.removesuffix(".json"), {"a": 1}, [{"x": 1}])


def _mechanism_save(out: Path, name: str) -> None:
    from mechopt.mechanism import Mechanism

    Mechanism([[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5]).save(out / name)


def _column(out: Path, name: str) -> None:
    pytest.importorskip("pandas")
    from mechopt.io.tables import ColumnWriter

    with ColumnWriter(out / name, "y") as w:
        w.write(["a", "b"])
        w.commit()


def _dataset(out: Path, name: str) -> None:
    from mechopt.io.datasets import synthetic_kosarak

    synthetic_kosarak(out / name, n_streams=20, n_pages=10)


#: writer -> (output file name, call(out folder, name, files) -> exit code or None)
WRITERS: dict[str, tuple[str, Callable[[Path, str, dict[str, Path]], int | None]]] = {
    "design --out json": ("m.json", lambda o, n, f: _cli(*DESIGN, "--out", str(o / n))),
    "design --out npy": ("q.npy", lambda o, n, f: _cli(*DESIGN, "--out", str(o / n))),
    "design --plot": ("q.png", lambda o, n, f: _cli(*DESIGN, "--plot", str(o / n))),
    "design --certificate": ("c.json", lambda o, n, f: _cli(*DESIGN, "--solver", "exact", "--certificate", str(o / n))),
    "sweep --out": ("s.jsonl", lambda o, n, f: _cli("sweep", str(f["spec"]), "--out", str(o / n))),
    "sweep --out --force": ("s.jsonl", lambda o, n, f: _cli("sweep", str(f["spec"]), "--out", str(o / n), "--force")),
    "sweep --plot": ("s.png", lambda o, n, f: _cli("sweep", str(f["spec"]), "--plot", str(o / n))),
    "audit --report": ("r.html", lambda o, n, f: _cli("audit", str(f["mech"]), "--report", str(o / n))),
    "report --html": ("card.html", lambda o, n, f: _cli("report", str(f["mech"]), "--html", str(o / n))),
    "compare --plot": (
        "compare_design.png",
        lambda o, n, f: _cli("compare", "--catalog", str(f["catalog"]), "--solver", "exact", "--plot", str(o)),
    ),
    "reproduce": ("demo.csv", lambda o, n, f: _reproduce(o, n)),
    "write_mechanism": ("w.json", lambda o, n, f: _mechanism(o, n)),
    "Mechanism.save": ("mech.json", lambda o, n, f: _mechanism_save(o, n)),
    "figures.write_data": ("fid.json", lambda o, n, f: _write_data(o, n)),
    "datasets.synthetic_kosarak": ("k.dat", lambda o, n, f: _dataset(o, n)),
    "randomize --out (ColumnWriter)": ("r.csv", lambda o, n, f: _column(o, n)),
}
WHERE = ("output", "lock", "old part", "temporary pattern")


def _at(out: Path, name: str, where: str) -> Path:
    return {
        "output": out / name,
        "lock": out / f".{name}.lock",
        "old part": out / f".{name}.part",
        "temporary pattern": out / f".{name}.{os.getpid()}.abcdefgh.part",
    }[where]


def _files(root: Path) -> dict[str, Path]:
    spec, mech, catalog = root / "spec.toml", root / "mech.json", root / "cat.toml"
    spec.write_text(SPEC)
    mech.write_text('{"Q": [[0.75, 0.25], [0.25, 0.75]], "prior": [0.5, 0.5]}')
    catalog.write_text(CATALOG)
    return {"spec": spec, "mech": mech, "catalog": catalog}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_planted_node_is_never_replaced(tmp_path, capsys, writer, where, kind) -> None:
    name, call = WRITERS[writer]
    inputs, out = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    out.mkdir()
    files = _files(inputs)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious victim data\n")
    node = _at(out, name, where)
    link_target = out / f"real-{name}" if where == "output" else victim  # a followed link stays in the folder
    if where == "output":
        link_target.write_text("old")  # a link to nothing is refused: give it a file to write through to
    plant(node, kind, link_target)
    before = snapshot(tmp_path, skip=out)
    try:
        code = call(out, name, files)
    except MechoptError:
        code = 2
    err = capsys.readouterr().err
    assert kind_of(node) == kind, f"{writer}: the planted {kind} at the {where} was replaced"
    if kind == "symlink":
        assert node.readlink() == link_target
    assert snapshot(tmp_path, skip=out) == before, f"{writer}: something outside the output folder changed"
    assert victim.read_text() == "precious victim data\n"
    stray = [p.name for p in out.iterdir() if p.name.startswith(".") and p != node]
    assert stray == [], f"{writer}: left {stray} behind"
    refused = (
        where == "output"
        and kind == "fifo"  # nobody reads it
        or where == "lock"
        and writer.startswith("sweep --out")  # not a lock file mechopt made
        or where == "output"
        and kind == "symlink"
        and writer == "sweep --out"  # its target exists: --force
    )
    if refused:  # one line, nothing written
        assert code not in (0, None) and err.count("\n") <= 1 and "Traceback" not in err, err
    else:
        assert code in (0, None), f"{writer}: {err}"
    if where == "output" and kind == "symlink" and not refused:
        assert link_target.read_bytes() != b"old"  # the link was followed: its target holds the output
