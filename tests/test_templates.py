"""The HTML views render from templates (course_utils/templates) and give exactly the bytes they gave before."""

from __future__ import annotations

import json

import pytest

from html_cases import OUTPUTS, cases

EXPECTED = json.loads(OUTPUTS.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return cases()


def test_every_case_has_a_stored_output(rendered):
    assert sorted(rendered) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_html_is_byte_for_byte_what_it_was(rendered, name):
    assert rendered[name] == EXPECTED[name]
