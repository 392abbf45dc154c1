"""The language switch (course_utils.core.i18n) and the Persian catalogue (issue 23)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from course_utils.core import i18n
from course_utils.window.budget import budget_working, history_budget, overflow_working
from course_utils.window.trimming import SLIDE_BUDGET, SLIDE_COSTS, explain_trim, slide_conversation, table_token_counter
from course_utils.window.trimming import trim_walkthrough

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "course_utils/locale/fa/LC_MESSAGES/course_utils.po"
#: Every module of the package: a string wrapped anywhere must have its Persian.
WRAPPED = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "course_utils").rglob("*.py"))
#: The templates, whose words are wrapped as _("..."), pgettext("context", "...") or ngettext("...", "...", n).
TEMPLATES = sorted((ROOT / "course_utils").rglob("*.j2"))
_TEMPLATE_CALL = re.compile(r"""\b(_|pgettext|ngettext)\(\s*"((?:[^"\\]|\\.)*)"(?:\s*,\s*"((?:[^"\\]|\\.)*)")?""")


def plain(text: str) -> str:
    """Text without the isolates: RTL (U+2067) around each Persian message, LTR (U+2066) around its formulas."""
    return text.replace(i18n.RLI, "").replace("\u2066", "").replace(i18n.PDI, "")


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
            literal = [isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args]
            if node.func.id in ("_", "translate") and literal[:1] == [True] and len(args) == 1 and len(literal) == 1:
                found.add((None, args[0]))
            elif node.func.id == "translate" and literal == [True, True]:
                found.add((args[1], args[0]))
            elif node.func.id == "pgettext" and len(args) == 2:
                found.add((args[0], args[1]))
    return found


def template_strings(path: Path) -> set[tuple[str | None, str]]:
    """(context, msgid) of every literal gettext call in a Jinja2 template (a plural gives its singular)."""
    found = set()
    for kind, first, second in _TEMPLATE_CALL.findall(path.read_text(encoding="utf-8")):
        if kind == "pgettext" and second:
            found.add((first, second))
        elif kind in ("_", "ngettext"):
            found.add((None, first))
    return found


def test_every_wrapped_string_has_a_persian_translation():
    from babel.messages.pofile import read_po

    with PO.open("rb") as f:
        catalog = read_po(f)
    translated = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id): m.string for m in catalog if m.id}
    strings = set().union(*(wrapped_strings(ROOT / p) for p in WRAPPED), *(template_strings(p) for p in TEMPLATES))
    assert (None, "(open to see them)") in strings and ("trim status", "kept") not in strings  # the scan reads templates
    assert len(strings) >= 10, "the AST walk found too few wrapped strings: has the wrapping changed?"
    missing = sorted(s for s in strings if not translated.get(s))
    assert not missing, f"no Persian in {PO.name} for {missing}"
    # and the reasons used as constants (wrapped where a row is built)
    from course_utils.window import trimming
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
    assert text.splitlines()[-1] == "\u2067بنابراین بودجهٔ تاریخچه \u2066B = 2866 token\u2069 است.\u2069"  # reads right to left
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
    code = "from course_utils.core import i18n; print(i18n.get_language())"
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

    from course_utils.core.samples import load_conversation
    from course_utils.window.tokens import exact_counter

    state = [SystemMessage("You are a friendly assistant for sports fans. Answer in one or two short sentences "
                           "and use only what the user told you so far.", id="system"), *load_conversation("bob")[:9]]
    report = explain_trim(state, max_tokens=128, token_counter=exact_counter, start_on="human", include_system=True)
    assert report.total_tokens == 220 and report.result_tokens <= 128
    assert plain(report.conclusion) == (f"trim_messages از 10 پیام، {len(report.kept)} پیام را نگه داشت: "
                                 f"{report.result_tokens} token از 220 token، در سقف max_tokens=128")


def long_chat_report():
    from course_utils.window.growth import replay_growth
    from course_utils.core.samples import load_sample
    from course_utils.window.tokens import exact_counter

    return replay_growth(load_sample("long_chat").messages, exact_counter, limit=2048 - 200)


def test_lesson_01_conclusions_in_english():
    over = overflow_working(1000, history=700, prompt=200, tools=180)
    assert over.conclusion == f"So the call is {over.over} tokens over the limit: it cannot be sent as it is."
    fits = overflow_working(1000, history=620, prompt=200, tools=180)
    assert fits.conclusion == "So the call fits, with 0 tokens to spare."
    report = long_chat_report()
    first = report.first_over_limit
    assert report.conclusion("L - R").splitlines() == [
        f"The first call whose input is over L - R = {report.limit} tokens is call {first.call}: "
        f"{first.history_messages} messages, {first.sent_tokens} tokens.",
        f"The last call sends {report.rows[-1].sent_tokens} tokens; "
        f"all {report.calls} calls together send {report.total_sent_tokens} tokens.",
    ]


def test_persian_overflow_keeps_its_arithmetic_left_to_right(persian):
    """Lesson 01's worked example, 1080 and 80 over, in Persian: the sum outside the RTL isolate, the verdict inside."""
    call = overflow_working(1000, history=700, prompt=200, tools=180)
    assert call.line == "700 + 200 + 180 = 1080 > 1000: \u206780 token بیش از limit\u2069"
    assert plain(call.conclusion) == "پس این فراخوانی 80 token بیش از limit است و نمی\u200cشود آن را همین\u200cطور فرستاد."
    fits = overflow_working(1000, history=620, prompt=200, tools=180)
    assert fits.line == "620 + 200 + 180 = 1000 <= 1000: \u2067جا می\u200cشود و 0 token خالی می\u200cماند\u2069"
    assert plain(fits.conclusion) == "پس این فراخوانی جا می\u200cشود و 0 token خالی می\u200cماند."


def test_persian_growth_conclusion(persian):
    """Lesson 01's replay in Persian: "L - R = 1848" stays left to right (U+2066 ... U+2069) inside the sentence."""
    report = long_chat_report()
    first = report.first_over_limit
    lines = report.conclusion("L - R").splitlines()
    assert f"\u2066L - R = {report.limit}\u2069" in lines[0]
    assert [plain(line).replace("\u2066", "") for line in lines] == [
        f"نخستین فراخوانی\u200cای که ورودی\u200cاش از L - R = {report.limit} token بیشتر است، "
        f"فراخوانی {first.call} است: {first.history_messages} پیام، {first.sent_tokens} token.",
        f"آخرین فراخوانی {report.rows[-1].sent_tokens} token می\u200cفرستد؛ "
        f"همهٔ {report.calls} فراخوانی روی هم {report.total_sent_tokens} token می\u200cفرستند.",
    ]
    from course_utils.window.growth import replay_growth
    from course_utils.core.samples import load_sample
    from course_utils.window.tokens import exact_counter

    roomy = replay_growth(load_sample("long_chat").messages, exact_counter, limit=100_000)
    assert plain(roomy.conclusion("L - R").splitlines()[0]).replace("\u2066", "") == (
        "ورودی هیچ فراخوانی\u200cای از L - R = 100000 token بیشتر نیست.")


@pytest.mark.parametrize("value, error", [("", ValueError), ("   ", ValueError), (None, TypeError), (3, TypeError)])
def test_growth_conclusion_refuses_a_bad_limit_name(value, error):
    with pytest.raises(error, match="limit_name"):
        long_chat_report().conclusion(value)
def test_lesson_05_task_profiles_and_cap_in_persian(persian):
    """Lesson 05 prints each task's description and advice, and the trim cap worked out from H_max = 5892."""
    from babel.messages.pofile import read_po

    from course_utils.window.thresholds import TASK_PROFILES, suggest_thresholds

    with PO.open("rb") as f:
        translated = {m.id: m.string for m in read_po(f) if m.id and not m.context}
    for profile in TASK_PROFILES.values():  # constants, translated where a suggestion is made or described
        assert translated.get(profile.description) and translated.get(profile.advice), profile.task
    chat = suggest_thresholds(8192, "chat", margin=300)
    assert plain(chat.advice) == translated[TASK_PROFILES["chat"].advice]
    assert plain(chat.cap_sentence()) == ("سقف تاریخچه H_max = 5892 token است؛ "
                                         "پس برای trim_messages: max_tokens = 5892 + 500 + 300 = 6692")
    lines = chat.describe().splitlines()
    assert lines[0] == f"chat: {i18n.RLI}دستیاری دوستانه با گفتگویی طولانی{i18n.PDI}"
    assert lines[4] == "   6192 - 300 = 5892  -> H_max = 5892"
    advice = lines[5:]  # wrapped: every line its own right-to-left isolate (an isolate ends at a line break)
    assert len(advice) >= 2 and all(line.startswith("   ") and line.endswith(i18n.PDI) for line in advice)
    assert all(line.count(i18n.RLI) == 1 and line.split(i18n.RLI)[0].strip() == "" for line in advice)
    # right-aligned: padded so every line ends at the same column (ZWNJ and the hamza mark take none)
    ends = {len(line.split(i18n.RLI)[0]) + len(re.sub("[\u200c\u0654\u0650]", "", line.split(i18n.RLI)[1]))
            for line in advice}
    assert len(ends) == 1 and ends.pop() <= 96
    assert " ".join(plain(line).strip() for line in advice) == "توصیه: " + translated[TASK_PROFILES["chat"].advice]


def test_lesson_05_counting_sentences_in_persian(persian):
    """Lesson 05's counter labels, the undercount per language and the share of H_max a conversation fills."""
    from course_utils.window.models import counter_for_tokenizer
    from course_utils.window.thresholds import suggest_thresholds, undercount_sentence

    assert plain(counter_for_tokenizer("cl100k_base").label) == "دقیق (cl100k_base)"
    margin = counter_for_tokenizer("claude", "fa").margin_share
    assert plain(counter_for_tokenizer("claude", "fa").label) == f"تقریبی، حاشیهٔ {margin:.0%} (fa)"
    sentence = plain(undercount_sentence("claude", "fa"))
    assert sentence.startswith("fa: شمارش تقریبی ممکن است تا ") and "برابر کمتر از واقع باشد؛ پس شمارش: تقریبی، حاشیهٔ" in sentence
    big = suggest_thresholds(1_000_000, "chat")
    assert plain(big.share_sentence(big.h_max // 4, "Sara")) == "کل گفتگوی Sara 25.00% از آن را پر می\u200cکند"


def test_lesson_05_counting_sentences_in_english():
    from course_utils.window.thresholds import suggest_thresholds, undercount_sentence

    assert undercount_sentence("cl100k_base", "en").endswith("times too low -> exact (cl100k_base)")
    assert suggest_thresholds(1_000_000, "chat").share_sentence(9480, "Sara") == "Sara's whole conversation fills 1.00% of it"
def test_persian_cost_and_caching_sentences(persian):
    """Lesson 05b's conclusions (retention.py) read in Persian and carry exactly the English sentence's numbers."""
    import re

    from course_utils.agentic.retention import CacheReach, CostPoint, cache_use, compare_pair, compare_trims, describe_best
    from course_utils.agentic.retention import describe_cost_recall

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
def test_a1_sentences_in_persian_with_the_english_numbers(persian):
    """The inspect command's summary (appendix A1): Persian words, the English numbers."""
    import re
    from collections import Counter

    from course_utils.agentic.conversations import load_conversation_source, sample_file
    from course_utils.inspect import inspect_messages
    from course_utils.inspect.report import summary_lines

    numbers = lambda text: Counter(re.findall(r"\d+(?:\.\d+)?", text))  # noqa: E731
    def both(make):
        persian_text = make()
        i18n.set_language("en")
        english = make()
        i18n.set_language("fa")
        return persian_text, english

    loaded = load_conversation_source(sample_file("langchain"))
    fa, en = both(lambda: "\n".join(summary_lines(inspect_messages(loaded.messages, "Claude Haiku 4.5", 600))))
    assert en.splitlines()[2].startswith("A trim at 600 tokens keeps 3 of 18 messages")
    assert any(line.startswith("trim در 600 token، 3 پیام از 18 پیام را نگه می\u200cدارد") for line in plain(fa).splitlines())
    assert "\u2066" + "0, 16–17" + "\u2069" in fa  # a range of indexes stays left to right
    assert numbers(fa) == numbers(en) and not re.search(r"[a-z]{4,} [a-z]{4,} [a-z]{4,}", plain(fa))
    # Long Persian sentences are cut into printed lines, each one right to left on its own (an isolate ends with its line).
    lines = fa.splitlines()
    assert all(line.lstrip().startswith(i18n.RLI) and len(plain(line)) <= 100 for line in lines), lines



def test_no_catalogue_entry_is_left_unused():
    """An entry no source can ask for (a lesson's print moved into its cells, a check rewritten) is removed."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts/prune_catalogues.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_unused_entry_finder_sees_looked_up_texts(monkeypatch):
    """Texts translated where they are shown (``_(reason)``, a question's hints) count as used, literal calls too."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import prune_catalogues

    from course_utils.window import trimming

    used = prune_catalogues.used_texts()
    assert trimming.FITS in used and "(open to see them)" in used
    from course_utils.model.summaries import LOSS_RULE  # built from a docstring when the module loads

    assert LOSS_RULE in used
    assert "a sentence no source has ever held" not in used
