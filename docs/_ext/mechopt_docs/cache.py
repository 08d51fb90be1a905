"""The results cache of the expensive build-time directives, and the build switches.

Entries live under ``docs/_build/.mechopt-cache/`` (gitignored), one directory per key. A key
hashes the mechopt version, the source of ``mechopt/``, ``problems/`` and ``solvers/`` (so any
code change invalidates every entry) and the directive's own arguments. An entry is a JSON value
plus, optionally, files (figure images, files a command wrote) that are restored on a hit.

Switches (environment variables, read at every build):

- ``MECHOPT_DOCS_FAST=1``: skip the expensive parts (claims, figure reproductions, command runs,
  gallery execution); each page says what was skipped;
- ``MECHOPT_DOCS_REFRESH=1``: ignore the cache, recompute everything and store it again;
- ``MECHOPT_DOCS_CACHE=DIR``: keep the cache elsewhere (default ``docs/_build/.mechopt-cache``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .common import repo_root

CODE_DIRS = ("mechopt", "problems", "solvers")


def flag(name: str) -> bool:
    """Whether the environment switch ``name`` is on (``1``, ``true``, ``yes``)."""
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def fast() -> bool:
    return flag("MECHOPT_DOCS_FAST")


def refresh() -> bool:
    return flag("MECHOPT_DOCS_REFRESH")


_CODE_HASH: dict[Path, str] = {}


def code_hash(root: Path | None = None) -> str:
    """sha256 over the path and bytes of every ``.py`` file under mechopt/, problems/, solvers/."""
    root = (root or repo_root()).resolve()
    if root not in _CODE_HASH:
        h = hashlib.sha256()
        for sub in CODE_DIRS:
            for path in sorted((root / sub).rglob("*.py")):
                h.update(path.relative_to(root).as_posix().encode())
                h.update(b"\0")
                h.update(path.read_bytes())
                h.update(b"\0")
        _CODE_HASH[root] = h.hexdigest()
    return _CODE_HASH[root]


def build_key() -> str:
    """(package version, code hash): what every entry of this build is keyed on."""
    import mechopt

    return f"{mechopt.__version__}:{code_hash()}"


class ResultsCache:
    """A directory of JSON results keyed on (version, code hash, arguments).

    Examples
    --------
    >>> import tempfile
    >>> c = ResultsCache(tempfile.mkdtemp(), version_key="1.0:abc")
    >>> c.get("verdicts", {"paper": None}) is None
    True
    >>> c.put("verdicts", {"paper": None}, [1, 2])
    >>> c.get("verdicts", {"paper": None})
    [1, 2]
    """

    def __init__(self, root: str | Path, version_key: str | None = None) -> None:
        self.root = Path(root)
        self.version_key = version_key if version_key is not None else build_key()

    def key(self, kind: str, args: Any) -> str:
        blob = json.dumps([self.version_key, kind, args], sort_keys=True, default=str)
        return f"{kind}-{hashlib.sha256(blob.encode()).hexdigest()[:24]}"

    def _dir(self, kind: str, args: Any) -> Path:
        return self.root / self.key(kind, args)

    def get(self, kind: str, args: Any, files_to: Path | None = None) -> Any:
        """The stored value (its files copied into ``files_to``), or None on a miss or refresh."""
        if refresh():
            return None
        entry = self._dir(kind, args)
        try:
            value = json.loads((entry / "value.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if files_to is not None and (entry / "files").is_dir():
            files_to.mkdir(parents=True, exist_ok=True)
            for f in (entry / "files").iterdir():
                shutil.copy2(f, files_to / f.name)
        return value

    def put(self, kind: str, args: Any, value: Any, files: list[Path] = ()) -> None:
        """Store ``value`` (JSON) and copies of ``files``; written atomically (rename)."""
        entry = self._dir(kind, args)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=self.root))
        try:
            (tmp / "value.json").write_text(json.dumps(value, default=str), encoding="utf-8")
            if files:
                (tmp / "files").mkdir()
                for f in files:
                    shutil.copy2(f, tmp / "files" / Path(f).name)
            if entry.exists():
                shutil.rmtree(entry)
            os.replace(tmp, entry)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)


def cache_for(app: Any) -> ResultsCache:
    """The cache of this Sphinx build (``<outdir>/../.mechopt-cache`` unless MECHOPT_DOCS_CACHE)."""
    if getattr(app, "_mechopt_cache", None) is None:
        env_dir = os.environ.get("MECHOPT_DOCS_CACHE")
        root = Path(env_dir) if env_dir else Path(app.outdir).resolve().parent / ".mechopt-cache"
        app._mechopt_cache = ResultsCache(root)
    return app._mechopt_cache
