"""The language switch (course_utils.i18n) and the Persian catalogue (issue 23)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from course_utils import i18n
from course_utils.budget import budget_working, history_budget, overflow_working
from course_utils.trimming import SLIDE_BUDGET, SLIDE_COSTS, explain_trim, slide_conversation, table_token_counter
from course_utils.trimming import trim_walkthrough

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "course_utils/locale/fa/LC_MESSAGES/course_utils.po"
#: The modules whose learner-facing strings are wrapped so far.
WRAPPED = ["course_utils/budget.py", "course_utils/trimming.py", "course_utils/retention.py"]


def plain(text: str) -> str:
    """Text without the RTL isolates (U+2067, U+2069) that wrap each Persian message."""
    return text.replace(i18n.RLI, "").replace(i18n.PDI, "")


@pytest.fixture
def persian():
    i18n.set_language("fa")
    yield
    i18n.set_language("en")


def wrapped_strings(path: Path) -> set[tuple[str | None, str]]:
    """(context, msgid) of every _("...") and pgettext("ctx", "...") call with literal text."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if node.func.id == "_" and len(args) == 1:
                found.add((None, args[0]))
            elif node.func.id == "pgettext" and len(args) == 2:
                found.add((args[0], args[1]))
    return found


def test_every_wrapped_string_has_a_persian_translation():
    from babel.messages.pofile import read_po

    with PO.open("rb") as f:
        catalog = read_po(f)
    translated = {(m.context, m.id): m.string for m in catalog if m.id}
    strings = set().union(*(wrapped_strings(ROOT / p) for p in WRAPPED))
    assert len(strings) >= 10, "the AST walk found too few wrapped strings: has the wrapping changed?"
    missing = sorted(s for s in strings if not translated.get(s))
    assert not missing, f"no Persian in {PO.name} for {missing}"
    # and the reasons used as constants (wrapped where a row is built)
    from course_utils import trimming
    for reason in (trimming.FITS, trimming.OVER_BUDGET, trimming.BEFORE_START_ON, trimming.AFTER_END_ON,
                   trimming.SYSTEM_KEPT, trimming.NOT_TRIMMED):
        assert translated.get((None, reason)), reason


def test_compiled_catalogue_is_not_stale():
    result = subprocess.run([sys.executable, str(ROOT / "scripts/compile_catalogues.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_english_is_the_default_and_unchanged():
    assert i18n.get_language() == "en"
    assert str(budget_working(4096, 350, 180, 700)).splitlines()[-1] == "B = 2866"
    assert overflow_working(1000, history=700, prompt=200, tools=180).line == "700 + 200 + 180 = 1080 > 1000: 80 tokens over"


def test_persian_budget_sentences(persian):
    text = str(budget_working(4096, 350, 180, 700))
    assert text.splitlines()[-1] == "\u2067بنابراین بودجهٔ تاریخچه B = 2866 token است.\u2069"  # reads right to left
    text = plain(text)
    assert "4096 - 350 = 3746" in text and "3746 - 180 = 3566" in text and "3566 - 700 = 2866" in text
    assert text.splitlines()[-1] == "بنابراین بودجهٔ تاریخچه B = 2866 token است."
    assert "سقف تاریخچه H_max = 5892" in plain(str(budget_working(8192, 500, 300, 1200, margin=300)))
    assert plain(overflow_working(1000, history=700, prompt=200, tools=180).line).endswith("80 token بیش از limit")
    with pytest.raises(ValueError, match="جایی برای تاریخچه نمی‌ماند"):
        history_budget(1024, 350, 180, 700)


def test_persian_trim_reasons_and_walkthrough(persian):
    counter = table_token_counter(SLIDE_COSTS)
    walk = trim_walkthrough(slide_conversation(), SLIDE_BUDGET, counter)
    assert plain(walk.lines[-1]) == "150 + 60 = 210 > 150: توقف"
    assert plain(walk.conclusion) == "نگه داشته شده، به ترتیب زمانی: ['human2', 'tool2', 'ai2']"
    report = explain_trim(slide_conversation(), max_tokens=SLIDE_BUDGET, token_counter=counter)
    assert [plain(row.reason) for row in report.rows] == ["بیش از بودجه"] * 2 + ["در بودجه جا می\u200cشود"] * 3
    assert [row.status for row in report.rows] == ["dropped"] * 2 + ["kept"] * 3  # status stays the English key


def test_the_environment_variable_picks_the_language():
    code = "from course_utils import i18n; print(i18n.get_language())"
    env = {"COURSE_LANG": "fa", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "fa", out.stderr
    bad = subprocess.run([sys.executable, "-c", code], env={**env, "COURSE_LANG": "klingon"},
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "COURSE_LANG" in bad.stderr and "klingon" in bad.stderr


@pytest.mark.parametrize("value, error", [("de", ValueError), (None, TypeError), (3, TypeError)])
def test_set_language_refuses_bad_input(value, error):
    with pytest.raises(error, match="language"):
        i18n.set_language(value)
    assert i18n.get_language() == "en"


def test_persian_trim_conclusion_220_to_128(persian):
    """Lesson 04's worked example: a 220-token state trimmed to a 128-token cap, in a Persian sentence."""
    from langchain_core.messages import SystemMessage

    from course_utils.samples import load_conversation
    from course_utils.tokens import exact_counter

    state = [SystemMessage("You are a friendly assistant for sports fans. Answer in one or two short sentences "
                           "and use only what the user told you so far.", id="system"), *load_conversation("bob")[:9]]
    report = explain_trim(state, max_tokens=128, token_counter=exact_counter, start_on="human", include_system=True)
    assert report.total_tokens == 220 and report.result_tokens <= 128
    assert plain(report.conclusion) == (f"trim_messages از 10 پیام، {len(report.kept)} پیام را نگه داشت: "
                                 f"{report.result_tokens} token از 220 token، در سقف max_tokens=128")


def test_persian_cost_and_caching_sentences(persian):
    """Lesson 05b's conclusions (retention.py) read in Persian and carry exactly the English sentence's numbers."""
    import re

    from course_utils.retention import CacheReach, CostPoint, cache_use, compare_pair, compare_trims, describe_best
    from course_utils.retention import describe_cost_recall

    def point(strategy, kept, cost, plain_cost, share, summaries, inputs, outputs):
        return CostPoint(strategy, 512, kept / 5, kept, 5, cost, plain_cost, share, summaries, inputs, outputs)

    points = [point("trim", 1, 0.07174, 0.07174, 0.25, 0, 16746, 3825),
              point("trim_chunked", 2, 0.06310, 0.06310, 0.67, 0, 12426, 3825),
              point("summarise", 5, 0.07756, 0.07555, 0.0, 12, 18849, 3986)]
    sentences = {
        "pair": lambda: compare_pair(points, "summarise", "trim", 512),
        "recall": lambda: describe_cost_recall(points, points),
        "trims": lambda: compare_trims(points, 512),
        "best": lambda: describe_best("GPT-6.2 Sol", points),
        "reach": lambda: str(CacheReach(1024, 1254, 561, 4139)),
        "cache use": lambda: cache_use(1024, [{"cache_read": 0, "cache_creation": 2840},
                                              {"cache_read": 2840, "cache_creation": 148}]),
    }
    persian_text = {name: plain(make()).replace("\u00a0", " ") for name, make in sentences.items()}  # labels: no-break spaces
    i18n.set_language("en")
    english_text = {name: make() for name, make in sentences.items()}
    number = re.compile(r"\d+(?:\.\d+)?")
    for name in sentences:
        assert re.search("[\u0600-\u06FF]", persian_text[name]), persian_text[name]
        assert sorted(number.findall(persian_text[name])) == sorted(number.findall(english_text[name])), name
    assert persian_text["cache use"] == "حداقل 1,024: خواند 0/نوشت 2,840؛ خواند 2,840/نوشت 148"
    assert "2,103 token ورودی بیشتر" in persian_text["pair"] and "گران‌تر" in persian_text["pair"]
    assert persian_text["best"] == "ارزان‌ترین با بیشترین واقعیت‌ها، GPT-6.2 Sol: راهبرد «summary (روش راهنما)» در 512 (77.56 دلار)"
    assert english_text["best"] == "cheapest with the most facts, GPT-6.2 Sol: summarise (how-to) at 512 ($77.56)"
    # a wrapped Persian sentence stays right to left on every line; English wraps as textwrap does
    i18n.set_language("fa")
    lines = i18n.fill(describe_cost_recall(points, points), 60).splitlines()
    assert len(lines) > 2 and all(line.startswith(i18n.RLI) and line.endswith(i18n.PDI) for line in lines)
