"""A Griffe extension (loaded by mkdocstrings, see mkdocs.yml) that lets the
package's docstrings render as Markdown without rewriting them.

The docstrings are prose with reStructuredText inline markup, not Google or
NumPy sections: ``literals`` already read as Markdown code, but the Sphinx
roles (``:class:`X```), doctest lines (``>>>``: Markdown would take them for
quotes) and literal blocks (a paragraph ending in ``::``) do not.  This
rewrites those three, in memory, before the docstrings are rendered:

- a role becomes a code span of its target (``:class:`~a.b.C``` -> ```C```);
- a run of doctest lines becomes a fenced ``pycon`` block;
- a literal block becomes a fenced block, its ``::`` a colon.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|mod|func|meth|attr|data|exc|obj|const|ref|term):`([^`]+)`")


def role(match: re.Match[str]) -> str:
    target = match.group(1)
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def fence(lines: list[str], indent: int, language: str = "") -> list[str]:
    """``lines`` (dedented) in a fenced block at ``indent``."""
    pad = " " * indent
    body = textwrap.dedent("\n".join(lines)).splitlines()
    return [f"{pad}```{language}", *(pad + line if line else "" for line in body), f"{pad}```"]


def literal_block(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """The literal block after a ``::`` line (blank lines first), fenced, and
    the index of the first line after it."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    block: list[str] = []
    while i < len(lines) and (not lines[i].strip() or indent_of(lines[i]) > indent):
        block.append(lines[i])
        i += 1
    while block and not block[-1].strip():
        block.pop()
        i -= 1
    if not block:
        return [], start
    return ["", *fence(block, indent)], i


def markdown(text: str) -> str:
    """A docstring's reST markup as Markdown (see the module's docstring)."""
    lines = ROLE.sub(role, text).splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith(">>>"):
            indent, block = indent_of(line), []
            while i < len(lines) and lines[i].strip() and indent_of(lines[i]) >= indent:
                block.append(lines[i])
                i += 1
            out.extend(fence(block, indent, "pycon"))
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            block, after = literal_block(lines, i + 1, indent_of(line))
            if block:
                text_part = line.rstrip()[:-2].rstrip()
                if text_part:
                    out.append(text_part + ":")
                out.extend(block)
                i = after
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrites every docstring Griffe loads (see the module's docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
