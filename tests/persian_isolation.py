"""Which formulas, dates and arrows in a Persian string are not isolated left to right.

In a right-to-left line the Unicode bidi algorithm lays out the neutral
"=", "-", "+", "<" between Latin operands right to left: "8192 - 1200 = 6992"
shows as "6992 = 1200 - 8192". The Persian edition isolates every such run
between LRI (U+2066) or FSI (U+2068) and PDI (U+2069), as the lessons' own
prints do. :func:`unisolated` lists the runs that are not.

>>> unisolated("پس 8192 - 1200 = 6992؛ و \u20664 + 5 = 9\u2069")
['8192 - 1200 = 6992']
>>> unisolated("وارسی‌شده در 2026-12-01، مدل gpt-4o-mini")
['2026-12-01']
"""

from __future__ import annotations

import re

LRI, RLI, FSI, PDI = "\u2066", "\u2067", "\u2068", "\u2069"
#: Persian letters and punctuation (؛ ، ؟ «»): what ends a Latin run.
PERSIAN = re.compile(r"[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF«»]")
#: A formula: a date, an operator between operands, a minus between spaces, an arrow.
FORMULA = re.compile(
    r"\d{4}-\d{2}-\d{2}"
    r"|[\w)\]}'\"`…]\s*(?:<=|>=|==|!=|->|=>|[=+−×≤≥<>→])\s*[\w(\[{'\"`.…-]"
    r"|[\w)\]}`…]\s+[-–]\s+[\w(\[{`…]"
    r"|\d-\d"
)
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([a-z_]+\)[sd]")


#: A placeholder that holds a date ({checked}, {row.caching.checked}, {date}).
DATE_NAME = re.compile(r"checked|date", re.I)


def sample(name: str) -> object:
    """A placeholder's sample value: a date for a date's name, else the number 12."""
    return "2026-12-01" if DATE_NAME.search(name) else 12


class _Samples(dict):
    """Any placeholder's sample value (:func:`sample`)."""

    def __missing__(self, key: str) -> object:
        return sample(key)


def with_samples(message: str) -> str:
    """The message as shown, every placeholder ({name}, {n!r}, {t:>3}, %(name)s) given the sample value 12.

    >>> with_samples("B = {expected}; {{x}} %(count)s (checked {checked})")
    'B = 12; {x} 12 (checked 2026-12-01)'
    """
    try:
        message = message.format_map(_Samples())
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        message = PLACEHOLDER.sub(lambda m: str(sample(m.group(0))), message)  # {a.b}, {a[0]}, {}
    try:
        return message % _Samples()
    except (TypeError, ValueError, KeyError):
        return re.sub(r"%\([a-z_]+\)[sd]", "12", message)


def free_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each maximal run of non-Persian text that no LRI/FSI isolate holds."""
    runs, stack, start = [], [], None
    for i, char in enumerate(text + PERSIAN_END):
        protected = bool(stack) and stack[-1] in (LRI, FSI)
        breaks = char in (LRI, RLI, FSI, PDI) or PERSIAN.match(char) or protected
        if breaks and start is not None:
            runs.append((start, i))
            start = None
        if char in (LRI, RLI, FSI):
            stack.append(char)
        elif char == PDI and stack:
            stack.pop()
        elif not breaks and start is None:
            start = i
    return runs


PERSIAN_END = "\u0627"


def unisolated(text: str) -> list[str]:
    """The Latin runs of ``text`` holding a formula, a date or an arrow outside any LRI/FSI isolate."""
    found = []
    for start, end in free_runs(text):
        run = text[start:end]
        if FORMULA.search(run):
            found.append(run.strip())
    return found
