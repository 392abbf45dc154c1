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
WRAPPED = ["course_utils/budget.py", "course_utils/trimming.py"]
WRAPPED += ["course_utils/agent_strategies.py", "course_utils/inspect/report.py",
            "course_utils/inspect/cli.py"]  # lesson 06b, appendix A1


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


def test_lesson_06b_and_a1_sentences_in_persian_with_the_english_numbers(persian):
    """Lesson 06b's conclusions and the inspect command's summary (appendix A1): Persian words, the English numbers."""
    import re
    from collections import Counter

    from course_utils.agent_strategies import STRATEGIES, comparison_text, facts_text
    from course_utils.agents import ModelCall, Probe, StrategyRow, TaskRun, Turn
    from course_utils.conversations import load_conversation_source, sample_file
    from course_utils.inspect import inspect_messages
    from course_utils.inspect.report import summary_lines

    numbers = lambda text: Counter(re.findall(r"\d+(?:\.\d+)?", text))  # noqa: E731
    sent = {name: 6701 + 10 * i for i, name in enumerate(STRATEGIES)}
    rows = [StrategyRow(name, 8, sent[name], 2124, 1144, 0, 2, 4, 0) for name in STRATEGIES]
    everything = TaskRun("send everything", [Turn(4, "Search.", None, "ContextWindowExceededError: ...", 0)],
                         [ModelCall(1, "agent", [], turn=4, input_tokens=2124)],
                         [Probe("Wind?", "24 km/h", "24 km/h"), Probe("Hours?", "08:00", None)], [])

    def both(make):
        persian_text = make()
        i18n.set_language("en")
        english = make()
        i18n.set_language("fa")
        return persian_text, english

    fa, en = both(lambda: comparison_text(rows, everything, 2048))
    fa = plain(fa).replace("\u2066", "")  # the left-to-right isolates too
    assert en.splitlines()[0] == ("Sending everything fails on the last call (2,124 input tokens, as the model counted "
                                  "them, against a window of 2,048); with room for it, it sends 6,711.")
    assert fa.splitlines()[0].startswith("فرستادن همه چیز در آخرین فراخوانی شکست می\u200cخورد (2,124 token")
    assert "(6,761, 6,771, 6,781)" in fa and numbers(fa) == numbers(en)
    fa, en = both(lambda: facts_text({"send everything": everything}))
    assert (fa, en) == ("\u2067\u2066send everything\u2069: 1 از 2 واقعیت\u2069", "send everything: 1/2 facts")

    loaded = load_conversation_source(sample_file("langchain"))
    fa, en = both(lambda: "\n".join(summary_lines(inspect_messages(loaded.messages, "Claude Haiku 4.5", 600))))
    assert en.splitlines()[2].startswith("A trim at 600 tokens keeps 3 of 18 messages")
    assert any(line.startswith("trim در 600 token، 3 پیام از 18 پیام را نگه می\u200cدارد") for line in plain(fa).splitlines())
    assert "\u2066" + "0, 16–17" + "\u2069" in fa  # a range of indexes stays left to right
    assert numbers(fa) == numbers(en) and not re.search(r"[a-z]{4,} [a-z]{4,} [a-z]{4,}", plain(fa))
    # Long Persian sentences are cut into printed lines, each one right to left on its own (an isolate ends with its line).
    lines = fa.splitlines() + comparison_text(rows, everything, 2048).splitlines()
    assert all(line.lstrip().startswith(i18n.RLI) and len(plain(line)) <= 100 for line in lines), lines

