"""Console blocks of the docs that show a whole session run as shown, in a fresh folder, output line for line.

A block is a sequence of ``$ command`` lines, each followed by the lines it prints. Only the pages listed
here are run: their blocks need no file they do not make themselves (others show commands on the
reader's own files). An expected line ending in ``...`` matches any line it begins.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"

#: Pages whose console blocks are whole sessions, and how many commands they hold (so a block cannot vanish).
PAGES = {"howto/dominance.rst": 5, "howto/deploy.rst": 2}


def sessions(text: str) -> list[list[tuple[str, list[str]]]]:
    """Each ``.. code-block:: console`` block as [(command, expected output lines)].

    >>> sessions(".. code-block:: console\\n\\n   $ echo a\\n   a\\n\\ntext\\n")
    [[('echo a', ['a'])]]
    """
    blocks = []
    for m in re.finditer(r"^\.\. code-block:: console\n\n((?:   .*\n|\n)+)", text, flags=re.M):
        steps: list[tuple[str, list[str]]] = []
        for line in m.group(1).rstrip("\n").splitlines():
            body = line[3:]
            if body.startswith("$ "):
                steps.append((body[2:], []))
            elif steps and body:
                steps[-1][1].append(body)
        blocks.append(steps)
    return blocks


@pytest.mark.timeout(120)
@pytest.mark.parametrize("page", sorted(PAGES))
def test_console_sessions_run_as_shown(page: str, tmp_path: Path) -> None:
    steps = [s for block in sessions((DOCS / page).read_text(encoding="utf-8")) for s in block]
    assert len(steps) == PAGES[page], f"{page}: {len(steps)} commands, expected {PAGES[page]}"
    py = shlex.quote(sys.executable)
    prelude = f'python() {{ {py} "$@"; }}\nmechopt() {{ {py} -m mechopt "$@"; }}\n'
    env = {**os.environ, "COLUMNS": "200"}
    for command, expected in steps:
        run = subprocess.run(
            ["bash", "-c", prelude + command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=100
        )
        got = [line.rstrip() for line in run.stdout.splitlines()]
        want = [line.rstrip() for line in expected]
        assert len(got) == len(want) and all(
            g.startswith(w[:-3]) if w.endswith("...") else g == w for g, w in zip(got, want)
        ), f"{page}: $ {command}\n{run.stdout}{run.stderr}"
