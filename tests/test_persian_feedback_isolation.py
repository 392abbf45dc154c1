"""Every formula, date and arrow in the package's Persian messages is isolated left to right.

The checks' feedback, hints and walk-throughs, the widgets' and figures'
sentences all come from ``course_utils/locale/fa/LC_MESSAGES/course_utils.po``
and are shown inside a right-to-left isolate. A Latin run such as
"8192 - 1200 = 6992" or "`strategy='first'`" left in the Persian sentence is
laid out right to left by the bidi algorithm ("6992 = 1200 - 8192"), so each
must sit between LRI (U+2066) or FSI (U+2068) and PDI (U+2069), as the
lessons' own prints do. Each message is rendered with sample values (12 for
every placeholder) and searched for an unisolated run
(``tests/persian_isolation.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from persian_isolation import LRI, PDI, unisolated, with_samples

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "course_utils" / "locale" / "fa" / "LC_MESSAGES" / "course_utils.po"


def persian_messages() -> list[tuple[str, str]]:
    with CATALOGUE.open("rb") as f:
        catalogue = read_po(f, locale="fa")
    found = []
    for message in catalogue:
        if not message.id or message.fuzzy:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        found += [(ids[0], text) for text in strings if text]
    return found


def test_the_detector_finds_what_the_review_found():
    """The runs the Persian review saw mirrored are found, and isolating them clears them."""
    assert unisolated("8192 - 1200 = 6992؛ پس B = 5518 token") == ["8192 - 1200 = 6992", "B = 5518 token"]
    assert unisolated("این `strategy='first'` است") == ["`strategy='first'`"]
    assert unisolated("(وارسی‌شده در 2026-12-01)") == ["2026-12-01)"]  # the run as the bidi algorithm sees it
    assert unisolated(f"{LRI}8192 - 1200 = 6992{PDI}؛ مدل gpt-4o-mini") == []


def test_every_persian_message_isolates_its_formulas():
    messages = persian_messages()
    assert len(messages) > 1000, "the package catalogue was not read"
    bad = [(msgid, runs) for msgid, text in messages if (runs := unisolated(with_samples(text)))]
    listing = "\n".join(f"  {msgid!r}: {runs}" for msgid, runs in bad)
    assert not bad, (
        f"{len(bad)} Persian messages hold a formula, date or code with '=' '-' '+' not isolated: put each "
        f"run between U+2066 and U+2069 in {CATALOGUE.relative_to(ROOT)}, then run "
        f"python scripts/compile_catalogues.py\n{listing}"
    )


@pytest.mark.parametrize("msgid", ["8192 - 1200 = 6992; then take off U and R."])
def test_the_exercise_02_hint_is_isolated_in_the_compiled_catalogue(msgid):
    """What the learner gets is the compiled .mo: it carries the isolates too."""
    from course_utils.core import i18n

    before = i18n.get_language()
    i18n.set_language("fa")
    try:
        shown = i18n._(msgid)
    finally:
        i18n.set_language(before)
    assert f"{LRI}8192 - 1200 = 6992{PDI}" in shown, shown
