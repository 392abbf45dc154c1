"""Text tables for ``print`` whose columns line up in English and in Persian.

Some lessons print a result as a fixed-width text table (a header line, then
one line a row). In English each cell is padded with spaces to its column's
width, as ``f"{value:>8}"`` would, and the columns are joined by ``sep``.

In a right-to-left language the same table is laid out right to left, the way
a Persian reader reads a table: the first column at the right. A notebook
shows printed lines left to right, so each line is written in visual order
(columns reversed), every cell flush right in its column, and the whole line
in a left-to-right isolate (U+2066 ... U+2069); a translated header keeps the
RTL isolate ``_()`` gave it, so its words read right to left. Widths count
what a fixed-width font shows: the isolates, the zero-width non-joiner and
Persian vowel marks take no room, Persian letters one cell each (as in Vazir
Code; the Persian edition's outputs draw other Persian fonts scaled to about a
cell a letter, ``core.style.PERSIAN_FACE``).

>>> print(text_table([[1, True], [10, False]], header=["turn", "same"]))
turn   same
   1   True
  10  False
>>> from course_utils.core.i18n import set_language, _
>>> set_language("fa"); table = text_table([[1, True]], header=[_("turn"), "same"]); set_language("en")
>>> [line.replace("\\u2066", "<").replace("\\u2067", "[").replace("\\u2069", "]") for line in table.splitlines()]
['<same  [نوبت]]', '<True     1]']
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from course_utils.core.i18n import PDI, RLI, direction

#: Unicode's left-to-right isolate (U+2066): a line laid out in visual order stays in that order.
LRI = "\u2066"


def visible_width(text: str) -> int:
    """How many cells ``text`` takes in a fixed-width font: format characters and combining marks take none.

    >>> visible_width("\\u2067token\\u200cها\\u2069"), visible_width("abc")
    (7, 3)
    """
    return sum(0 if unicodedata.category(ch) in ("Mn", "Me", "Cf") else 1 for ch in text)


def _check(rows: Any, header: Any, align: Any, widths: Any, sep: Any) -> tuple[list[list[str]], int]:
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a list of rows (lists of cells), got {type(rows).__name__}: {rows!r:.80}")
    table = [list(header)] if header else []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise TypeError(f"rows[{i}] must be a list of cells, got {type(row).__name__}: {row!r:.80}")
        table.append([str(cell) for cell in row])
    if not table:
        raise ValueError("text_table needs a header or at least one row, got neither")
    count = len(table[0])
    for i, row in enumerate(table):
        if len(row) != count:
            raise ValueError(f"every row must have {count} cells like the first, row {i} has {len(row)}: {row!r:.80}")
    if align is not None and (not isinstance(align, str) or len(align) != count or set(align) - set("<>")):
        raise ValueError(f"align must be a string of {count} characters '<' or '>', got {align!r}")
    if widths is not None and (len(widths) != count or not all(isinstance(w, int) and w >= 0 for w in widths)):
        raise ValueError(f"widths must be {count} whole numbers >= 0, got {widths!r}")
    if not isinstance(sep, str):
        raise TypeError(f"sep must be a string, got {type(sep).__name__}: {sep!r:.80}")
    return table, count


def text_table(rows: Sequence[Sequence[Any]], *, header: Sequence[str] = (), align: str | None = None,
               widths: Sequence[int] | None = None, sep: str = "  ") -> str:
    """``rows`` (and ``header``, translated by the caller) as lines of aligned columns.

    ``align`` has one character a column, ``">"`` (right, the default) or
    ``"<"`` (left); ``widths`` gives columns a least width. A column is as
    wide as its widest cell. Lines end without trailing spaces. In a
    right-to-left language the columns run right to left and every cell is
    flush right (see the module's docstring).
    """
    table, count = _check(rows, header, align, widths, sep)
    align = align or ">" * count
    least = list(widths) if widths is not None else [0] * count
    if direction() == "rtl":
        width = [max([least[c]] + [visible_width(row[c]) for row in table]) for c in range(count)]
        lines = []
        for row in table:
            cells = [" " * (width[c] - visible_width(row[c])) + row[c] for c in reversed(range(count))]
            lines.append(f"{LRI}{sep.join(cells).rstrip()}{PDI}")
        return "\n".join(lines)
    width = [max([least[c]] + [len(row[c]) for row in table]) for c in range(count)]
    return "\n".join(sep.join(f"{row[c]:{align[c]}{width[c]}}" for c in range(count)).rstrip() for row in table)


__all__ = ["LRI", "RLI", "text_table", "visible_width"]
