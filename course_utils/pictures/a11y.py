"""Accessibility of the course's outputs: which language a text is in, and names for slider handles.

Two things a screen reader needs that the rest of the package cannot say on
its own:

- **The language of a text**, so it is pronounced by the right voice:
  Persian gets ``lang="fa" dir="rtl"``, Chinese ``lang="zh"``.
  :func:`text_language` reads it off the text's letters (a small pure
  function: the course's samples are English, Persian and Chinese), and
  :func:`lang_attrs` writes the HTML attributes that ``render.py`` puts on
  every element holding message text.
- **A name for every slider handle.** ipywidgets 8.1 draws an ``IntSlider``
  with noUiSlider, whose handle is a ``<div role="slider">`` with no
  accessible name: the visible description is a ``<label>`` that points at
  nothing (a label's ``for`` only names native inputs), and ipywidgets
  passes no ``aria-label`` to noUiSlider. Nothing in ipywidgets' Python API
  reaches that element, so :data:`PAGE_SCRIPT` (package data:
  ``static/page_script.js``) does it in the page: it
  points each handle's ``aria-labelledby`` at its slider's own label, and
  turns a control's tooltip into its ``aria-description``, keeps
  JupyterLab's notebook shortcuts off the arrow keys while a slider or
  dropdown has focus (``data-lm-suppress-shortcuts``: otherwise ArrowUp /
  ArrowDown jump to another cell), and draws a focus ring round a focused
  handle or scroll region. When a control redraws a widget's output while
  the learner's focus is in its scroll region, focus moves to the new
  region, at the same scroll position. The widgets of
  ``widgets.py`` display it (:func:`page_script_bundle`) just before
  themselves; it runs once per page and watches for sliders drawn later.
  It adds attributes and one style element; it moves nothing on the page.

>>> text_language("سلام، حالت چطور است؟")
TextLanguage(lang='fa', dir='rtl')
>>> text_language("你好，今天天气怎么样？")
TextLanguage(lang='zh', dir='auto')
>>> lang_attrs("hello")
' dir="auto"'
"""

from __future__ import annotations

import re
import unicodedata
from importlib import resources
from dataclasses import dataclass

from course_utils.core.args import check_text
from course_utils.core.i18n import html_language, translate
from course_utils.pictures.templates import Markup, render_template

#: Scripts told apart, by the first word of a letter's Unicode name, and the language each stands for here.
#: The course's one Arabic-script language is Persian, so Arabic letters mean "fa" (a text in Arabic or
#: Urdu would need its own tag: pass it explicitly where the language is known, as samples do).
SCRIPT_LANGUAGES = {
    "ARABIC": ("fa", "rtl"),
    "CJK": ("zh", "auto"),
    "HEBREW": ("he", "rtl"),
    "HIRAGANA": ("ja", "auto"),
    "KATAKANA": ("ja", "auto"),
    "HANGUL": ("ko", "auto"),
}


@dataclass(frozen=True)
class TextLanguage:
    """A text's language tag (None: the page's own, English) and its direction ("rtl", "ltr" or "auto")."""

    lang: str | None
    dir: str

    def attrs(self) -> str:
        """As HTML attributes, with a leading space: ``' lang="fa" dir="rtl"'``."""
        lang = f' lang="{self.lang}"' if self.lang else ""
        return f'{lang} dir="{self.dir}"'


def _script(char: str) -> str | None:
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else None


def text_language(text: str) -> TextLanguage:
    """The language a text is written in, judged by the script most of its letters are in.

    Latin letters (and texts with no letters) leave the page's language,
    English: ``lang`` is None and ``dir`` is "auto", so the browser lays
    the text out by its first strong character. A Persian sentence with
    one English word is still Persian; an English sentence quoting one
    Chinese word is still English.

    >>> text_language("I'm flying to 东京 tomorrow")
    TextLanguage(lang=None, dir='auto')
    >>> text_language("پرواز من به Tokyo فردا است")
    TextLanguage(lang='fa', dir='rtl')
    """
    check_text(text, "text")
    counts: dict[str, int] = {}
    for char in text:
        script = _script(char)
        if script is not None:
            counts[script] = counts.get(script, 0) + 1
    if not counts:
        return TextLanguage(None, "auto")
    script = max(counts, key=lambda s: (counts[s], s in SCRIPT_LANGUAGES))
    if script not in SCRIPT_LANGUAGES:
        return TextLanguage(None, "auto")
    return TextLanguage(*SCRIPT_LANGUAGES[script])


def lang_attrs(text: str, lang: str | None = None) -> str:
    """HTML attributes giving an element holding ``text`` its language and direction.

    ``lang`` names the language when it is known (a sample's declared
    language); otherwise it is read from the text with :func:`text_language`.

    >>> lang_attrs("安排三天的行程")
    ' lang="zh" dir="auto"'
    >>> lang_attrs("whatever", lang="fa")
    ' lang="fa" dir="rtl"'
    """
    check_text(lang, "lang", none_ok=True)
    if lang is None:
        return text_language(text).attrs()
    check_text(text, "text")
    rtl = {code for code, direction in SCRIPT_LANGUAGES.values() if direction == "rtl"}
    return TextLanguage(lang, "rtl" if lang.split("-")[0] in rtl else "auto").attrs()


def scroll_region_html(inner: str, *, label: str, max_height: str = "32em", css_class: str = "") -> str:
    """``inner`` HTML in a box that scrolls on its own, which a keyboard can reach and scroll.

    ``tabindex="0"`` puts it in the Tab order (the arrow keys then scroll it),
    ``role="region"`` and ``aria-label`` name it for a screen reader, and
    ``data-lm-suppress-shortcuts`` keeps JupyterLab's notebook shortcuts off
    while it has focus (else the arrow keys move to the next cell).

    >>> scroll_region_html("<table></table>", label="messages sent")
    '<div style="max-height:32em;overflow-y:auto" role="region" aria-label="messages sent" tabindex="0" data-lm-suppress-shortcuts="true"><table></table></div>'
    """
    for value, parameter in ((inner, "inner"), (label, "label"), (max_height, "max_height"), (css_class, "css_class")):
        check_text(value, parameter)
    if not re.fullmatch(r"[0-9.]+(em|px|rem|vh|%)", max_height):
        raise ValueError(f"max_height must be a CSS length such as '32em', got {max_height!r}")
    return render_template("scroll_region.html.j2", inner=Markup(inner), label=label, max_height=max_height,
                           css_class=css_class)


def with_word(bar: str, word: str, colour: str, *, shown: bool = True, slot: str = "2.6em",
              label: str | None = None) -> str:
    """A bar (or any mark) followed by a word saying what its colour means: status never by colour alone.

    The word sits in a slot of fixed width (``slot``) whether it is
    ``shown`` or not, so bars in a column of rows where only some carry the
    word keep one track length, one scale and one limit line. ``label`` is the word as
    shown when it is not ``word`` itself (a translation; ``word`` stays the
    English class name ``growth-<word>``).

    >>> 'style="font-weight:bold;color:#c62828">over</span></div></div>' in with_word("<div></div>", "over", "#c62828")
    True
    >>> "over" in with_word("<div></div>", "over", "#c62828", shown=False)
    False
    """
    for value, parameter in ((bar, "bar"), (word, "word"), (colour, "colour"), (slot, "slot")):
        check_text(value, parameter)
    label = word if label is None else check_text(label, "label")
    if not isinstance(shown, bool):
        raise TypeError(f"shown must be True or False, got {type(shown).__name__}: {shown!r:.80}")
    if not re.fullmatch(r"[0-9.]+(em|px|rem)", slot):
        raise ValueError(f"slot must be a CSS length such as '2.6em', got {slot!r}")
    return render_template("with_word.html.j2", bar=Markup(bar), word=word, colour=colour, shown=shown, slot=slot,
                           label=label)


# --- descriptions of the widgets' controls (tooltips; a screen reader reads them after the name) -----

TRIM_HELP = {
    "max_tokens": "the most tokens trim_messages may keep",
    "strategy": "last keeps the end of the conversation, first keeps its beginning",
    "token_counter": "how tokens are counted: approximate (about 4 characters a token), exact (cl100k_base) "
                     "or dummy (10 tokens a message)",
    "allow_partial": "keep part of a message that does not fit whole",
    "include_system": "always keep the system message (strategy last only)",
    "start_on": "the kept messages must start on this message type",
    "end_on": "the kept messages must end on this message type",
}
BUDGET_HELP = {
    "limit": "L, the model's context limit in tokens",
    "system": "S, tokens of the system prompt",
    "user": "U, tokens of the user's new input",
    "reserve": "R, tokens kept free for the model's reply",
    "margin": "M, a safety margin taken off the budget",
}
GROWTH_HELP = {
    "turn": "which model call of the conversation to show",
    "limit": "the context limit, drawn as a red line",
    "strategy": "send everything, or trim to the limit keeping the last or the first messages",
    "token_counter": "how tokens are counted: approximate, exact (cl100k_base) or dummy (10 tokens a message)",
}


def describe_controls(controls: dict, help_texts: dict[str, str]) -> None:
    """Give each named ipywidgets control a description: its tooltip, read out as its aria-description.

    ``controls`` maps names to widgets (a widget's ``vars(self)``), ``help_texts``
    names to words (English, looked up in the catalogue with context "control help"). In the page, :data:`PAGE_SCRIPT` copies the tooltip onto the
    focusable element as its ``aria-description``; a mouse user sees it on hover.
    """

    import ipywidgets

    for name, text in help_texts.items():
        control = controls.get(name)
        if control is None:
            continue
        text = translate(check_text(text, f"help_texts[{name!r}]"), "control help")
        control.tooltip = text
        if control.description_allow_html:
            continue
        if isinstance(control, (ipywidgets.Dropdown, ipywidgets.Checkbox)):
            # ipywidgets 8.1 draws these two kinds' tooltip only when they have no description:
            # carry it as the title of the description itself (its words, and so the name, unchanged).
            control.description_allow_html = True
            control.description = render_template("control_description.html.j2", tooltip=text,
                                                  description=control.description)
        elif html_language() and not control.description.isascii():
            # A translated label (a slider's "L: context limit"): its language and direction on it.
            control.description_allow_html = True
            control.description = render_template("control_description.html.j2", tooltip=None,
                                                  description=control.description)


# --- names for slider handles, in the page -------------------------------------------------------

def _read_page_script() -> str:
    """The page script, from ``static/page_script.js`` (package data), without the file's final newline."""
    text = resources.files("course_utils").joinpath("static", "page_script.js").read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


#: Runs once per page (a second run only rescans). For every ipywidgets slider handle without a
#: name: aria-labelledby its slider's visible label. For every control whose label has a title (an
#: ipywidgets ``tooltip``): that title as the control's aria-description. A focus ring for slider
#: handles and scroll regions (ipywidgets only fills a focused handle). Then watches the page
#: for widgets drawn later, rescanning at most once per animation frame, and gives focus back
#: to a scroll region that a redraw replaced while it had focus.
PAGE_SCRIPT = _read_page_script()


class _PageScript:
    """An output that runs :data:`PAGE_SCRIPT` in JupyterLab and shows nothing.

    ``application/javascript`` runs only in a trusted output (one the
    learner's own Run All produced); elsewhere (GitHub, an untrusted
    notebook) the empty ``text/plain`` shows nothing at all.
    """

    def _repr_mimebundle_(self, **kwargs) -> dict:
        return {"application/javascript": PAGE_SCRIPT, "text/plain": ""}


def page_script_bundle() -> _PageScript:
    """The page script as a displayable object (``IPython.display.display(page_script_bundle())``)."""
    return _PageScript()
