"""Observation layouts as data: every entry of an observation vector named,
placed and explained in one table, the single source of a game's offsets,
its observation bounds and the index table in its docs.

A :class:`Layout` is a list of :class:`Field` s laid end to end.  A field
repeated per seat (``count``) may have ``parts``, a layout of its own for one
repeat (e.g. Pepper's block of 60 per relative seat)::

    SEAT = Layout([Field("table", 24, "its card on the table"), ...])
    LAYOUT = Layout([Field("hand", 24, "own hand"), Field("seats", 0, "per relative seat", count=4, parts=SEAT)])
    LAYOUT["seats"].offset, LAYOUT.size, LAYOUT.bounds(), LAYOUT.markdown()
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .jit import kernel


@dataclass(frozen=True)
class Field:
    """``size`` entries (per repeat) named ``name``; ``low``/``high`` bound
    every entry (``±np.inf`` for raw scores); ``count`` repeats (the field
    spans ``count * size``); ``parts`` lays out one repeat (then ``size`` is
    the parts' size); ``counts`` names the ``state_dict()`` key whose cards
    the entries count, for the kit's ``public_counts`` check (``"hands"``:
    one entry per relative seat, or the seat of a per-seat block;
    ``"stock"``: its size; ``"key[+k]"``: relative seat k's).  ``offset``
    is set by the layout."""

    name: str
    size: int
    meaning: str
    count: int = 1
    low: float = 0.0
    high: float = 1.0
    parts: Layout | None = None
    offset: int = -1
    counts: str = ""

    @property
    def span(self) -> int:
        return self.count * self.size

    @property
    def stop(self) -> int:
        return self.offset + self.span


class Layout:
    """Fields laid end to end from index 0."""

    def __init__(self, fields: Sequence[Field]):
        placed, at = [], 0
        for f in fields:
            size = f.parts.size if f.parts is not None else f.size
            placed.append(replace(f, size=size, offset=at))
            at += f.count * size
        self.fields = tuple(placed)
        self.size = at
        self._by_name = {f.name: f for f in self.fields}
        if len(self._by_name) != len(self.fields):
            raise ValueError("layout field names must be distinct")

    def __getitem__(self, name: str) -> Field:
        return self._by_name[name]

    def __iter__(self):
        return iter(self.fields)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` float arrays of ``size`` entries."""
        low = np.zeros(self.size, np.float64)
        high = np.zeros(self.size, np.float64)
        for f in self.fields:
            if f.parts is not None:
                plo, phi = f.parts.bounds()
                low[f.offset : f.stop] = np.tile(plo, f.count)
                high[f.offset : f.stop] = np.tile(phi, f.count)
            else:
                low[f.offset : f.stop] = f.low
                high[f.offset : f.stop] = f.high
        return low, high

    def rows(self, indent: str = "") -> list[tuple[str, str, str, str]]:
        """(index, size, name, meaning) per field, parts indented below theirs."""
        out = []
        for f in self.fields:
            size = f"{f.count}x{f.size}" if f.count > 1 else str(f.size)
            index = f"{indent}+{f.offset}" if indent else str(f.offset)
            out.append((index, size, f.name, f.meaning + _range(f)))
            if f.parts is not None:
                out.extend(f.parts.rows(indent + "\u2003"))
        return out

    def without(self, *names: str) -> Layout:
        """This layout with the fields ``names`` left out, the others closed
        up in their order (e.g. an observation's public part: its viewer's
        own fields left out)."""
        missing = set(names) - set(self._by_name)
        if missing:
            raise KeyError(f"no fields {sorted(missing)} in the layout")
        return Layout([f for f in self.fields if f.name not in names])

    def indices(self, names: Iterable[str]) -> np.ndarray:
        """The indices of the fields ``names`` in this layout, field after
        field in the order given: ``vector[layout.indices(sub_names)]`` is
        those fields laid end to end (as :meth:`without` lays them out)."""
        spans = [np.arange(self[name].offset, self[name].stop) for name in names]
        return np.concatenate(spans) if spans else np.zeros(0, np.int64)

    def markdown(self) -> str:
        """The index table as a Markdown table (parts as ``+offset`` rows)."""
        lines = ["| index | size | name | meaning |", "| --- | --- | --- | --- |"]
        lines += [f"| {i} | {s} | `{n}` | {m} |" for i, s, n, m in self.rows()]
        return "\n".join(lines)


#: The largest "left before the cap" an observation shows (int16's largest):
#: a cap further away than this is shown as this many.
LEFT_MAX = 32767


def left_field(name: str, what: str, cap: str, ends: str = "the episode") -> Field:
    """The field that says how many ``what`` are left before the ``cap``
    option ends ``ends``, so that the cut is part of what a seat sees (the
    ending stays Markov): the current one counts, 0 means no cap (or the
    game is over), at most :data:`LEFT_MAX`."""
    meaning = f"{what} left before `{cap}` ends {ends}, the current one included (0: no `{cap}`; at most {LEFT_MAX})"
    return Field(name, 1, meaning, high=LEFT_MAX)


@kernel
def left_before(cap, used):
    """What :func:`left_field` shows: ``cap - used`` clipped to 0..LEFT_MAX,
    0 for no cap (``cap`` 0)."""
    if cap <= 0:
        return 0
    return min(max(cap - used, 0), LEFT_MAX)


def left_before_rows(cap: int | None, used: np.ndarray) -> np.ndarray:
    """:func:`left_before` of every row of ``used`` (whole-batch numpy writers;
    ``cap`` None or 0: no cap)."""
    if not cap:
        return np.zeros_like(used)
    return np.clip(cap - used, 0, LEFT_MAX)


def _range(f: Field) -> str:
    if f.parts is not None or (f.low, f.high) == (0.0, 1.0):
        return ""
    lo = "-inf" if f.low == -np.inf else f"{f.low:g}"
    hi = "inf" if f.high == np.inf else f"{f.high:g}"
    return f" ({lo}..{hi})"


def with_observation_table(doc: str | None, *tables: tuple[str, Layout]) -> str:
    """An env module's docstring with its observation index tables appended
    (``(title, layout)`` each), so ``help(<game>_v0)`` shows the same table as
    the docs page: both are generated from the layout."""
    parts = [(doc or "").rstrip(), ""]
    for title, layout in tables:
        parts += [f"{title} ({layout.size} entries)", "", layout.markdown(), ""]
    return "\n".join(parts)
