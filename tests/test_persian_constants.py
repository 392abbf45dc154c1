"""Course text a lesson prints from a constant or a data file has its Persian (issue 23).

Lessons 04b and 05 print ``_(LOSS_RULE)``, ``_(MODELS_NOTE)`` and
``_(row.note)``, lessons 00, 01b, 04 and 04b a tokenizer status
(``vocab.STATUS_WORDING``), and lesson 05b prints ``pgettext("fact", name)``: the
message is a variable, so tests/test_lesson_prints.py cannot see it. When the
English text changes (LOSS_RULE is a paragraph of the summaries module's
docstring), the catalogue's entry no longer matches and the Persian lesson
would silently print English: these tests fail instead.
"""

from __future__ import annotations

import re

import pytest

from course_utils.core import i18n

PERSIAN_LETTER = re.compile(r"[\u0600-\u06ff]")


@pytest.fixture
def persian():
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def test_the_constants_lessons_print_have_their_persian(persian):
    from course_utils.model.summaries import LOSS_RULE
    from course_utils.window.models import MODELS_NOTE

    # Lesson 05 prints price bands from the data (numbers), no longer a row's note (issue 34).
    for text in (LOSS_RULE, MODELS_NOTE):
        assert PERSIAN_LETTER.search(i18n._(text)), f"no Persian for {text[:60]!r}..."


def test_every_tokenizer_status_sentence_has_its_persian(persian):
    """The tokenizer status (lessons 00, 01b, 04, 04b) says one of STATUS_WORDING's sentences."""
    from course_utils.window.vocab import STATUS_WORDING, status_wording

    for key, english in STATUS_WORDING.items():
        said = status_wording(key)
        assert PERSIAN_LETTER.search(said) and said.count("{") == english.count("{"), f"no Persian for {key!r}"


def test_every_fact_of_the_spread_chat_has_a_persian_name(persian):
    from course_utils.core.samples import load_sample

    for fact in load_sample("spread_chat").facts:
        assert PERSIAN_LETTER.search(i18n.pgettext("fact", fact["fact"])), fact["fact"]
