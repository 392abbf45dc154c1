"""Issue 23: the figures speak Persian in the Persian edition, drawn right to left with Persian glyphs.

- every title, axis label, legend entry and tick word of the course's figures is looked up when drawn, so
  with ``set_language("fa")`` it is Persian (apart from the glossary's Latin terms and code names);
- Persian is drawn with a font that has its glyphs (no tofu boxes, no "missing from font" warning) and laid
  out right to left, even when a line starts with a Latin word ("token در هر فراخوانی");
- the text alternative is Persian, and the ``<img>`` carries ``lang="fa" dir="rtl"`` (nothing in English);
- English is unchanged: the same words, and no ``lang`` on the ``<img>``.
"""

from __future__ import annotations

import re
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from matplotlib import ft2font  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.font_manager import findfont  # noqa: E402

from course_utils.core import i18n  # noqa: E402
from course_utils.pictures import plots  # noqa: E402

PERSIAN = re.compile(r"[\u0600-\u06FF]")
#: Latin words the Persian edition keeps (notebooks/fa/GLOSSARY.md), and the symbols of the budget.
LATIN_TERMS = {"token", "limit", "prompt", "trim", "summary", "store", "caching", "schema", "bind",
               "L", "S", "U", "R", "B", "M", "H", "max", "cl100k", "base", "dummy", "long", "chat"}
#: Bidi controls and the zero-width non-joiner: drawn as nothing, so no glyph is needed.
INVISIBLE = set("\u2066\u2067\u2068\u2069\u200c\u200f\u200e")


@pytest.fixture
def persian():
    i18n.set_language("fa")
    try:
        yield
    finally:
        i18n.set_language("en")


def _growth():
    from course_utils.window.growth import replay_growth

    return replay_growth([HumanMessage("a"), AIMessage("b")] * 6, "dummy", limit=45)


def _figures():
    """One of each figure the lessons draw, built from small inputs (in the language set now)."""
    from course_utils.core.samples import load_sample
    from course_utils.pictures.memory_views import memory_costs_figure
    from course_utils.window.budget import budget_working, overflow_working
    from course_utils.window.memory_costs import compare_memory_costs

    report = _growth()
    return {
        "overflow": plots.overflow_figure(overflow_working(1000, history=700, prompt=200, tools=180)),
        "budget": plots.budget_figure(budget_working(4096, 350, 180, 700)),
        "growth": plots.growth_figure(report),
        "cumulative": plots.cumulative_figure({"nothing trimmed": report, "trimmed to 1848 a call": report}),
        "languages": plots.languages_figure({"English": {"exact": 271, "approximate": 291},
                                             "Persian": {"exact": 600, "approximate": 300}}),
        "memory": memory_costs_figure(compare_memory_costs(load_sample("spread_chat"))),
    }


def drawn_texts(fig: Figure) -> list[str]:
    """Every non-empty text the figure draws: titles, axis labels, tick labels, legend entries, annotations."""
    FigureCanvasAgg(fig).draw()
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]


def latin_words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]+", text))


def test_persian_figures_draw_persian_words(persian):
    for name, fig in _figures().items():
        texts = drawn_texts(fig)
        worded = [t for t in texts if latin_words(t) - LATIN_TERMS or PERSIAN.search(t)]
        assert worded or name == "budget", name  # the waterfall draws symbols, digits and "token"
        for text in worded:
            assert PERSIAN.search(text), f"{name}: {text!r} is drawn in English in the Persian edition"
            assert text.startswith(i18n.RLI) and text.endswith(i18n.PDI), f"{name}: {text!r} has no RTL isolate"


def test_english_figures_draw_what_they_always_drew():
    texts = drawn_texts(_figures()["growth"])
    for words in ("history tokens", "tokens sent", "limit 45", "model call", "tokens (dummy)", "tokens per call",
                  "cumulative tokens sent"):
        assert words in texts
    assert not any(PERSIAN.search(t) or set(t) & INVISIBLE for t in texts)


def test_persian_is_drawn_with_glyphs_of_its_font(persian):
    """No tofu: the font matplotlib picks for each Persian text has a glyph for each of its letters."""
    for name, fig in _figures().items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
            FigureCanvasAgg(fig).draw()
        for text in fig.findobj(matplotlib.text.Text):
            if not PERSIAN.search(text.get_text()):
                continue
            font = ft2font.FT2Font(findfont(text.get_fontproperties(), fallback_to_default=False))
            missing = {c for c in text.get_text() if c not in INVISIBLE and not font.get_char_index(ord(c))}
            assert not missing, f"{name}: {font.family_name} has no glyph for {missing}"


def _render(text: str) -> np.ndarray:
    fig = Figure(figsize=(5, 0.8), dpi=60)
    canvas = FigureCanvasAgg(fig)
    fig.text(0.02, 0.3, text, fontsize=24)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., 0] < 128


def test_a_persian_title_that_starts_with_a_latin_word_is_laid_out_right_to_left(persian):
    """The growth figure's "tokens per call" is "token در هر فراخوانی" in Persian: its first word is Latin.

    Right to left, the last word (فراخوانی) is drawn leftmost. Without the RTL isolate the line would take
    its direction from "token" and start with it at the left: the control below shows that case.
    """
    title = _figures()["growth"].axes[0].get_title()
    assert title == i18n.RLI + "token در هر فراخوانی" + i18n.PDI
    bare = title.strip(i18n.RLI + i18n.PDI)
    last_word, first_word = _render(bare.split()[-1]), _render(bare.split()[0])

    def leftmost_is(whole: np.ndarray, word: np.ndarray) -> bool:
        columns = np.flatnonzero(word.any(axis=0))
        left = slice(columns.min(), columns.max() + 1)
        return bool((whole[:, left] == word[:, left]).all())

    assert leftmost_is(_render(title), last_word) and not leftmost_is(_render(title), first_word)
    # the control: laid out without the isolate, the Latin word comes first, from the left
    assert leftmost_is(_render(bare), first_word) and not leftmost_is(_render(bare), last_word)


def test_text_alternatives_are_persian_and_the_img_says_so(persian):
    for name, fig in _figures().items():
        bundle = fig._repr_mimebundle_()
        assert PERSIAN.search(fig.alt_text), name
        assert not re.search(r"\b(the|and|tokens|calls?)\b", fig.alt_text), f"{name}: English left in {fig.alt_text!r}"
        img = bundle["text/html"]
        assert re.match(r'<img alt="[^"]+" lang="fa" dir="rtl" ', img), img[:200]
        alt = re.match(r'<img alt="([^"]+)"', img).group(1)
        assert i18n.RLI not in alt and PERSIAN.search(alt)  # the element's dir does the isolate's work
        assert bundle["text/plain"] == fig.alt_text  # printed: one RTL isolate around the whole


def test_english_img_carries_no_lang():
    fig = _figures()["budget"]
    img = fig._repr_mimebundle_()["text/html"]
    assert img.startswith('<img alt="Waterfall: the 4,096-token context limit, minus system prompt 350, ')
    assert "lang=" not in img and "dir=" not in img


def test_isolation_figures_speak_persian(persian):
    from course_utils.model.chat import OfflineChatModel
    from course_utils.agentic.subagents import RESEARCH_TASK, compare_isolation
    from course_utils.pictures.isolation_views import totals_figure, windows_figure

    comparison = compare_isolation(OfflineChatModel(context_window=100_000), RESEARCH_TASK[:2])
    for fig in (windows_figure(comparison), totals_figure(comparison)):
        titles = [ax.get_title() for ax in fig.axes] + [ax.get_xlabel() for ax in fig.axes]
        assert all(PERSIAN.search(t) for t in titles if t), titles
        assert 'lang="fa" dir="rtl"' in fig._repr_mimebundle_()["text/html"]
