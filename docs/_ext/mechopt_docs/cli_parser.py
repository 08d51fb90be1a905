"""The ``mechopt`` parser for ``sphinx-argparse``, its help texts made safe for reStructuredText.

sphinx-argparse parses every help text as rst, but the parser's texts are plain text written for
``--help`` (``a | b``, ``*_tol``, aligned example lines). This module returns the same parser
with argument help escaped and multi-line descriptions and epilogs as literal blocks, so the
reference reads like ``mechopt CMD --help`` and the build stays warning-free.

Examples
--------
>>> escape("0.1,0.2,0.7 | uniform:d, *_tol")
'0.1,0.2,0.7 \\\\| uniform:d, \\\\*\\\\_tol'
>>> block("usage:\\n  mechopt x")
'::\\n\\n    usage:\\n      mechopt x'
"""

from __future__ import annotations

import argparse
import re


def escape(text: str) -> str:
    """Escape the rst inline markup characters of a one-paragraph text."""
    return re.sub(r"([\\*`|_])", r"\\\1", text)


def block(text: str) -> str:
    """A multi-line text as an rst literal block (shown as written); one line is escaped."""
    if "\n" not in text.strip():
        return escape(text)
    return "::\n\n" + "\n".join(("    " + ln) if ln.strip() else "" for ln in text.rstrip().splitlines())


def _clean(parser: argparse.ArgumentParser) -> None:
    for attr in ("description", "epilog"):
        if getattr(parser, attr):
            setattr(parser, attr, block(getattr(parser, attr)))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.help:
                    choice.help = escape(choice.help)
            for sub in action.choices.values():
                _clean(sub)
        elif action.help and action.help is not argparse.SUPPRESS:
            action.help = escape(action.help)


def parser() -> argparse.ArgumentParser:
    """``mechopt.cli.build_parser()`` with rst-safe help texts (an import error propagates)."""
    from mechopt.cli import build_parser

    p = build_parser()
    _clean(p)
    return p
