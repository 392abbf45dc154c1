"""One language switch for what ``course_utils`` prints (English by default).

The sentences a learner reads (a budget's working, trimming's reasons) are
written in English in the code and looked up in a gettext catalogue when
another language is chosen. Python's standard ``gettext`` reads the
compiled catalogue ``locale/<lang>/LC_MESSAGES/course_utils.mo``; its source
is the ``.po`` file beside it, compiled by ``scripts/compile_catalogues.py``
(Babel). ``tests/test_i18n.py`` fails when the ``.mo`` is stale or a wrapped
string has no translation.

Choose the language once, in either way:

- the environment variable ``COURSE_LANG`` (``en`` or ``fa``), read at import;
- ``set_language("fa")`` in a running kernel (the Persian edition's
  notebooks start with that call).

>>> set_language("fa"); _("over budget")
'\\u2067بیش از بودجه\\u2069'
>>> set_language("en"); _("over budget")
'over budget'
"""

from __future__ import annotations

import gettext
import os
import textwrap
from pathlib import Path

#: The gettext domain: the catalogue files are named after it.
DOMAIN = "course_utils"
#: Where the compiled catalogues live, one folder per language.
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"  # course_utils/locale
#: The languages the package speaks. English is the source language: it needs no catalogue.
LANGUAGES = ("en", "fa")
#: Text direction of each language, for HTML that carries ``dir``.
DIRECTIONS = {"en": "ltr", "fa": "rtl"}

_language = "en"
_translation: gettext.NullTranslations = gettext.NullTranslations()


def _check_language(language: object, parameter: str) -> str:
    if not isinstance(language, str):
        raise TypeError(f"{parameter} must be a language code string such as 'fa', got {type(language).__name__}")
    code = language.strip().lower()
    if code not in LANGUAGES:
        raise ValueError(f"{parameter} must be one of {', '.join(LANGUAGES)}, got {language!r}")
    return code


def set_language(language: str) -> None:
    """Make every later message of the package speak ``language`` ("en" or "fa").

    >>> set_language("fa"); get_language()
    'fa'
    >>> set_language("en")
    """
    global _language, _translation
    code = _check_language(language, "language")
    if code == "en":
        _translation = gettext.NullTranslations()
    else:
        # fallback=False: a missing catalogue is an error here, not silent English.
        _translation = gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code])
    _language = code


def get_language() -> str:
    """The language the package speaks now: "en" or "fa"."""
    return _language


def direction() -> str:
    """"rtl" or "ltr": the text direction of the current language."""
    return DIRECTIONS[_language]


#: Unicode's right-to-left isolate and its end (U+2067, U+2069).
RLI, PDI = "\u2067", "\u2069"


def _isolated(translated: str, message: str) -> str:
    """A translated right-to-left message inside an RTL isolate, so it reads right to left on any line.

    Printed text is shown in left-to-right blocks (a terminal, a notebook's
    output area); inside the isolate a Persian sentence keeps its own order,
    with numbers and code names where a Persian reader expects them.
    """
    if _language != "en" and DIRECTIONS[_language] == "rtl" and translated != message:
        return f"{RLI}{translated}{PDI}"
    return translated


def _(message: str) -> str:
    """``message`` in the current language (unchanged in English or when the catalogue lacks it).

    A right-to-left translation comes inside an RTL isolate (U+2067 ... U+2069).
    """
    return _isolated(_translation.gettext(message), message)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English words by ``context``."""
    return _isolated(_translation.pgettext(context, message), message)


def translate(message: str, context: str | None = None) -> str:
    """``message`` in the current language, without the RTL isolate: for HTML, whose element carries ``dir``.

    >>> set_language("fa"); translate("over budget"); set_language("en")
    'بیش از بودجه'
    """
    if context is None:
        return _translation.gettext(message)
    return _translation.pgettext(context, message)


def html_language() -> str:
    """The ``lang`` and ``dir`` attributes a picture's outer element carries ("" in English, the default).

    >>> set_language("fa"); html_language(); set_language("en")
    ' lang="fa" dir="rtl"'
    >>> html_language()
    ''
    """
    if _language == "en":
        return ""
    return f' lang="{_language}" dir="{DIRECTIONS[_language]}"'


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form of a message for ``n``, in the current language."""
    return _translation.ngettext(singular, plural, n)


def fill(text: str, width: int = 96, **kwargs) -> str:
    r"""``textwrap.fill`` that keeps every line of a right-to-left message isolated right to left.

    A notebook shows each printed line as a paragraph of its own, so an
    isolate opened on the first line of a wrapped Persian sentence would not
    reach the next ones. English text comes out exactly as ``textwrap.fill``
    makes it.

    >>> fill("a b c", 3)
    'a b\nc'
    >>> fill("\u2067a b c\u2069", 3) == "\u2067a b\u2069\n\u2067c\u2069"
    True
    """
    bare = text.replace(RLI, "").replace(PDI, "")
    wrapped = textwrap.fill(bare, width, **kwargs)
    if bare == text:
        return wrapped
    return "\n".join(f"{RLI}{line}{PDI}" for line in wrapped.splitlines())


def _from_environment() -> None:
    value = os.environ.get("COURSE_LANG", "").strip()
    if value:
        set_language(_check_language(value, "the environment variable COURSE_LANG"))


_from_environment()
