"""Tests for course_utils.window.thresholds: H_max suggestions and model limits (the strategy replay is tests/test_retention.py)."""

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage, trim_messages

from course_utils.window.budget import budget_working, history_budget
from course_utils.pictures.render import limits_table
from course_utils.core.samples import load_conversation
from course_utils.window.thresholds import (
    MODEL_LIMITS,
    TASK_PROFILES,
    TASKS,
    limits_rows,
    model_limit,
    suggest_thresholds,
)
from course_utils.window.models import model_info
from course_utils.window.tokens import exact_counter


# --- suggestions ------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("limit", [8192, 32_768, 128_000, 200_000])
def test_h_max_is_history_budget_with_the_same_parts(task, limit):
    s = suggest_thresholds(limit, task)
    assert s.h_max == history_budget(limit, s.system, s.user, s.reserve, margin=s.margin)
    assert s.working.lines == budget_working(limit, s.system, s.user, s.reserve, margin=s.margin).lines
    assert s.trim_max_tokens == limit - s.reserve - s.margin == s.h_max + s.system + s.user


def test_the_lesson_example_with_a_300_token_margin():
    s = suggest_thresholds(8192, "chat", margin=300)
    assert (s.system, s.user, s.reserve, s.margin) == (500, 300, 1200, 300)
    assert s.working.lines == ["8192 - 500 = 7692", "7692 - 300 = 7392", "7392 - 1200 = 6192", "6192 - 300 = 5892"]
    assert s.h_max == 5892


@pytest.mark.parametrize("task", TASKS)
def test_every_task_gives_a_valid_suggestion(task):
    s = suggest_thresholds(8192, task)
    assert 0 < s.h_max < 8192
    assert min(s.system, s.user, s.reserve, s.margin) > 0
    assert s.margin == 410  # 5% of 8192, rounded up
    assert s.advice and TASK_PROFILES[task].description
    history = load_conversation("long_chat")
    kept = trim_messages(history, **s.trim_kwargs(exact_counter))
    assert isinstance(kept[0], SystemMessage) and isinstance(kept[1], HumanMessage)
    assert exact_counter(kept) <= s.trim_max_tokens


def test_tasks_differ_where_the_lesson_says():
    chat, agent, retrieval = (TASK_PROFILES[t] for t in ("chat", "agent", "retrieval"))
    assert agent.system > chat.system  # tool schemas are sent with every call
    assert retrieval.user > max(chat.user, agent.user)  # retrieved documents are new input
    assert suggest_thresholds(8192, "retrieval").h_max < suggest_thresholds(8192, "chat").h_max


def test_measured_parts_replace_the_typical_ones():
    s = suggest_thresholds(8192, "agent", system=1234, user=111, reserve=222, margin=0)
    assert (s.system, s.user, s.reserve, s.margin) == (1234, 111, 222, 0)
    assert s.h_max == 8192 - 1234 - 111 - 222


def test_raising_the_reserve_lowers_h_max():
    ceilings = [suggest_thresholds(8192, "chat", reserve=r, margin=300).h_max for r in (600, 1200, 2400)]
    assert ceilings == [6492, 5892, 4692]


def test_bad_suggestion_input_names_the_parameter():
    with pytest.raises(ValueError, match="task must be one of"):
        suggest_thresholds(8192, "poetry")
    with pytest.raises(TypeError, match="limit must be an int"):
        suggest_thresholds(8192.0, "chat")
    with pytest.raises(TypeError, match="limit must be an int"):
        suggest_thresholds(True, "chat")
    with pytest.raises(ValueError, match="system must be >= 0"):
        suggest_thresholds(8192, "chat", system=-1)
    with pytest.raises(ValueError, match="limit 4096 is too small for the 'retrieval' task: no room left"):
        suggest_thresholds(4096, "retrieval")


# --- model limits ---------------------------------------------------------------------------


def test_model_limits_are_plain_positive_numbers():
    names = [m.model for m in MODEL_LIMITS]
    assert len(names) == len(set(names))
    assert all(isinstance(m.context_window, int) and m.context_window >= 4096 for m in MODEL_LIMITS)
    from course_utils.window.models import CURRENT_MODELS

    assert [m.model for m in MODEL_LIMITS] == [m.model for m in CURRENT_MODELS]  # one source: models.json
    assert model_limit("llama 3 8b instruct") == model_info("Llama 3 8B Instruct").context_window
    with pytest.raises(ValueError, match="model must be one of"):
        model_limit("GPT-4 (original)")  # retired: history only, not a limit to plan with
    with pytest.raises(ValueError, match="model must be one of"):
        model_limit("gpt-99")


def test_limits_table_lists_every_model_and_says_when_there_is_no_room():
    table = limits_table(limits_rows())
    for entry in MODEL_LIMITS:
        assert entry.model in table and f"{entry.context_window:,}" in table
    smallest = min(MODEL_LIMITS, key=lambda m: m.context_window)
    line = next(line for line in table.splitlines() if line.startswith(smallest.model))
    assert line.split()[-1] == f"{suggest_thresholds(smallest.context_window, 'retrieval').h_max:,}"
    with pytest.raises(ValueError, match="tasks must name tasks"):
        limits_rows(["chat", "poetry"])


def test_limits_rows_are_suggest_thresholds_for_every_model_and_task():
    rows = limits_rows()
    assert [row.model for row in rows] == [entry.model for entry in MODEL_LIMITS]
    assert rows == limits_rows(TASKS)
    for row in rows:
        assert list(row.h_max) == list(TASKS)
        for task, h_max in row.h_max.items():
            if h_max is None:
                with pytest.raises(ValueError, match="too small"):
                    suggest_thresholds(row.context_window, task, max_input=row.max_input_tokens)
            else:
                assert h_max == suggest_thresholds(row.context_window, task, max_input=row.max_input_tokens).h_max
    assert list(limits_rows(["agent"])[0].h_max) == ["agent"]
    with pytest.raises(TypeError, match="tasks must be a non-empty list"):
        limits_rows("chat")
    with pytest.raises(TypeError, match=r"rows\[0\] must be a LimitsRow \(from thresholds.limits_rows\)"):
        limits_table([{"model": "x"}])
    with pytest.raises(TypeError, match="rows must be a non-empty list of LimitsRow"):
        limits_table([])


def test_the_pictures_live_in_plots_and_render_only():
    from course_utils.window import thresholds

    # Presentation depends on computation, never the reverse (tests/test_architecture.py checks the imports).
    for name in ("limits_table",):
        assert not hasattr(thresholds, name)


# --- models.json ----------------------------------------------------------------------------------


def test_every_model_row_is_dated_and_sourced():
    import datetime

    from course_utils.window.models import MODELS

    assert len(MODELS) >= 5
    for row in MODELS:
        assert datetime.date.fromisoformat(row.checked) <= datetime.date(2026, 12, 31), row.model
        assert row.source.startswith("https://") and row.note.strip(), row.model
        assert row.context_window > 0 and row.tokenizer
        if row.has_prices and row.price_cached_input is not None:
            assert row.price_cached_input <= row.price_input


def test_each_tokenizer_family_gets_its_counter():
    from course_utils.window.models import EXACT_COUNTERS, MODELS, counter_for_tokenizer
    from course_utils.window.tokens import approximate_counter

    for row in MODELS:
        choice = counter_for_tokenizer(row.tokenizer)
        assert choice.exact == (row.tokenizer in EXACT_COUNTERS)
        if not choice.exact:
            assert choice.counter is approximate_counter and "approximate, margin" in choice.label
            assert choice.margin_share > counter_for_tokenizer("cl100k_base").margin_share
    assert counter_for_tokenizer("cl100k_base").counter is exact_counter


def test_the_approximate_margin_covers_the_measured_error():
    import math

    from course_utils.window.calibration import safety_margin
    from course_utils.window.models import EXACT_MARGIN_SHARE, approximate_worst_ratio, counter_for_tokenizer

    for language in ("en", "fa", "zh"):
        choice = counter_for_tokenizer("claude", language)
        worst = approximate_worst_ratio(language)
        assert choice.margin(8192) == max(math.ceil(EXACT_MARGIN_SHARE * 8192), safety_margin(8192, worst))
        # Trimmed to L - M by the estimate, the true count stays inside L even when the estimate is worst-case low.
        assert (8192 - choice.margin(8192)) * worst <= 8192
    assert counter_for_tokenizer("claude", "fa").margin(8192) > counter_for_tokenizer("claude", "en").margin(8192)
    assert counter_for_tokenizer("llama3").exact and counter_for_tokenizer("o200k_base").exact
    with pytest.raises(ValueError, match="language must be one of"):
        counter_for_tokenizer("claude", "de")


def _lesson_05b_model():
    """The model lesson 05b prices for, chosen by its rule: the cheapest with a cached-input price."""
    from course_utils.window.models import priced_models

    return priced_models(caching=True)[0]


def _lesson_05b_runs():
    from course_utils.agentic.retention import compare_strategies
    from course_utils.window.models import counter_for_tokenizer

    model = _lesson_05b_model()
    return compare_strategies("spread_chat", thresholds=(512, 1024, 1536, 2048, 3072, 4096),
                              token_counter=counter_for_tokenizer(model.tokenizer).counter)


def _outputs(name):
    import nbformat

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.ipynb", as_version=4)
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def test_lesson_05b_prices_for_the_cheapest_current_model_and_its_conclusions_hold():
    """Issue 34: the cheapest model is Claude Haiku 5.5 now, not the legacy Haiku 4.5; the lesson's computed
    lines and prose must hold for its own replay."""
    from course_utils.agentic.retention import price_runs
    from course_utils.window.models import model_info

    model = _lesson_05b_model()
    assert model.model == "Claude Haiku 5.5" and model.prices.min_cached_tokens == 0  # no minimum stated
    runs = _lesson_05b_runs()
    cached = {(p.strategy, p.threshold): p for p in price_runs(runs, model.prices)}
    plain = {(p.strategy, p.threshold): p for p in price_runs(runs, model.prices, caching=False)}
    text = _outputs("05b_cost_and_caching")
    # "a cache rewards a stable prefix": chunked trimming caches more and costs less than the sliding window
    for threshold in (2048, 3072):
        slid, chunked = cached["trim", threshold], cached["trim_chunked", threshold]
        assert chunked.cached_share > slid.cached_share + 0.3 and chunked.cost < slid.cost
        assert f"at {threshold}: sliding trim caches {slid.cached_share:.0%}, chunked {chunked.cached_share:.0%}" in text
    for label, points in (("with caching", cached), ("without caching", plain)):
        full = [p for p in points.values() if p.facts_remembered == p.facts_asked]
        best = min(full, key=lambda p: (p.cost, p.strategy, p.threshold))
        assert f"{label:>15}: {best.strategy} at {best.threshold}, ${best.cost * 1000:.2f} per 1,000" in text
    # summaries sized to a small threshold keep only some facts; facts in the system prompt keep all five
    assert cached["summarise", 512].facts_remembered == 2
    assert all(p.facts_remembered == 5 for (s, _), p in cached.items() if s == "pinned_facts")
    # "Claude Haiku 4.5 ... Almost no call of this replay is that long, so on it nothing is read or written"
    legacy = model_info("Claude Haiku 4.5")
    calls = [c for r in runs for c in r.calls]
    assert sum(c.input_tokens >= legacy.caching.min_prefix_tokens for c in calls) <= len(calls) // 100
    assert all(p.cached_share == 0 for p in price_runs(runs, legacy.prices))


def test_lesson_05b_pauses_break_the_5_minute_cache_and_not_the_1_hour_one():
    """Issue 34: the pause cell's prose: up to four minutes the default cache holds and is cheaper; from six
    minutes it has expired and costs more than no caching; the 1-hour lifetime holds through 30 minutes."""
    from course_utils.window.costs import bill

    model = _lesson_05b_model()
    chunked = next(r for r in _lesson_05b_runs() if r.strategy == "trim_chunked" and r.threshold == 3072)
    five, hour = model.prices, model.prices_with(lifetime="longer")
    none = bill(chunked.calls, five, caching=False).cost
    for pause in (5, 60, 240):
        short, long = bill(chunked.calls, five, pauses=pause), bill(chunked.calls, hour, pauses=pause)
        assert short.cached_share > 0.8 and short.cost < long.cost
    for pause in (360, 1800):
        short, long = bill(chunked.calls, five, pauses=pause), bill(chunked.calls, hour, pauses=pause)
        assert short.cached_share == 0 and short.cost > none
        assert long.cached_share > 0.8 and long.cost < none
    text = _outputs("05b_cost_and_caching")
    assert f"{bill(chunked.calls, five, pauses=360).cost * 1000:>9.2f}" in text


def test_lesson_05b_reasoning_raises_every_bill_and_most_for_more_calls():
    from course_utils.agentic.retention import price_runs
    from course_utils.window.models import model_info

    opus = model_info("Claude Opus 5.5")
    assert opus.reasoning.always
    runs = _lesson_05b_runs()
    before = {p.strategy: p.cost for p in price_runs(runs, opus.prices) if p.threshold == 2048}
    after = {p.strategy: p.cost for p in price_runs(runs, opus.prices_with(reasoning=True)) if p.threshold == 2048}
    assert all(after[s] > before[s] for s in before)
    assert after["summarise"] - before["summarise"] > after["trim_chunked"] - before["trim_chunked"]
    assert after["summarise"] / after["trim_chunked"] < before["summarise"] / before["trim_chunked"]


def test_lesson_01_prices_tokens_sent_by_the_models_caching_rules():
    """Lesson 01: sending everything (append-only) is cheaper than trimming for the model with the lower
    caching minimum, and dearer for the one whose minimum most calls never reach."""
    from langchain_core.messages import trim_messages

    from course_utils.window.costs import bill, call_record
    from course_utils.window.models import model_info
    from course_utils.core.samples import load_sample
    from course_utils.window.tokens import exact_counter

    chat = load_sample("long_chat").messages
    starts = [i for i, m in enumerate(chat) if m.type == "human"]

    def keep_last(history):
        return trim_messages(history, max_tokens=1848, token_counter=exact_counter, strategy="last",
                             start_on="human", include_system=True)

    cost = {}
    for name in ("GPT-6.2 Sol", "Claude Haiku 4.5"):
        prices = model_info(name).prices
        for label, policy in (("all", lambda h: h), ("trim", keep_last)):
            calls = [call_record("turn", policy(chat[: i + 1]), 0, exact_counter) for i in starts]
            cost[name, label] = bill(calls, prices)
    assert cost["GPT-6.2 Sol", "all"].input_tokens > cost["GPT-6.2 Sol", "trim"].input_tokens
    assert cost["GPT-6.2 Sol", "all"].cost < cost["GPT-6.2 Sol", "trim"].cost
    assert cost["Claude Haiku 4.5", "all"].cost > cost["Claude Haiku 4.5", "trim"].cost
    text = _outputs("01_measuring_growth")
    assert f"${cost['GPT-6.2 Sol', 'all'].cost * 1000:.2f} per 1,000 conversations" in text


def test_every_model_row_has_dated_sourced_caching_rules_and_a_reason_for_each_gap():
    from course_utils.window.models import BREAKPOINTS, MODELS

    for row in MODELS:
        rules = row.caching
        assert rules.checked and rules.source.startswith("https://") and rules.note.strip(), row.model
        for field in ("min_prefix_tokens", "lifetime_minutes", "breakpoint"):
            value = getattr(rules, field)
            assert (value is None) == (field in rules.unstated), (row.model, field)
        assert rules.breakpoint in (None, *BREAKPOINTS)
        if row.price_cached_input is not None and rules.offered:
            assert row.cache_write_premium >= 1.0


@pytest.mark.parametrize("name", ["05_threshold_selection", "05b_cost_and_caching"])
def test_lesson_05_code_lines_fit_the_notebook_width(name):
    """Issue 20: a code line ran past the right edge at 1,400 px. Code and printed lines stay within 100 characters."""
    import nbformat

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.ipynb", as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code
    for cell in code:
        assert all(len(line) <= 100 for line in cell.source.splitlines()), cell.source
        printed = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        assert all(len(line) <= 100 for line in printed.splitlines()), printed




def test_lesson_05_dates_and_sources_every_published_measurement_it_quotes():
    """Issue 26: the quality-at-length step quotes RULER and LongMemEval; each figure carries its source and the
    date the course read it, and says which models were tested."""
    import re

    import nbformat

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "05_threshold_selection.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    section = text[text.index("## 3. Below the window"):text.index("## 4. A procedure")]
    for source in ("https://arxiv.org/abs/2404.06654", "https://openreview.net/forum?id=0OshX1hiSa",
                   "https://arxiv.org/abs/2502.05167", "https://huggingface.co/datasets/openai/mrcr",
                   "https://developers.openai.com/api/docs/guides/prompt-caching"):
        assert source in section
    assert len(re.findall(r"read\s+2026-12-0[14]", section)) >= 4
    for named in ("NoLiMa", "ICML 2025", "MRCR v2", "GPT-4-1106-preview", "GPT-4o"):
        assert named in section
    assert "None of these tested this lesson's current models" in section
    # the harness runs offline and names the setting that makes it measure a real model
    assert "COURSE_CHAT_MODEL" in section and "def needle_test" in "\n".join(
        c.source for c in nb.cells if c.cell_type == "code")
    assert "Choose below the length where your model's quality was measured to\n   drop" in text or \
        "choose below the length where your model's quality was measured to drop" in " ".join(text.split()).lower()


def test_lesson_05_sentences_refuse_bad_input():
    from course_utils.window.thresholds import suggest_thresholds, undercount_sentence

    chat = suggest_thresholds(8192, "chat")
    with pytest.raises(TypeError, match="name"):
        chat.share_sentence(100, "")
    with pytest.raises((TypeError, ValueError), match="tokens"):
        chat.share_sentence(-1, "Sara")
    with pytest.raises(ValueError, match="language"):
        undercount_sentence("claude", "de")
    with pytest.raises(TypeError, match="tokenizer"):
        undercount_sentence("", "en")
    with pytest.raises(TypeError, match="width"):
        chat.describe(width="wide")
    with pytest.raises(ValueError, match="width"):
        chat.describe(width=10)
