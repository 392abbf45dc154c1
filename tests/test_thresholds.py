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
    from course_utils.window.models import MODELS

    assert [m.model for m in MODEL_LIMITS] == [m.model for m in MODELS]  # one source: models.json
    assert model_limit("gpt-4 (original)") == model_info("GPT-4 (original)").context_window
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
                    suggest_thresholds(row.context_window, task)
            else:
                assert h_max == suggest_thresholds(row.context_window, task).h_max
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


def test_the_loader_refuses_a_row_without_date_or_source():
    import json
    from importlib import resources

    from course_utils.window.models import models_from_dict

    raw = json.loads(resources.files("course_utils").joinpath("data", "models.json").read_text())
    good = raw["models"][0]
    for key, bad, message in (
        ("checked", "late 2026", "'checked' must be a date"),
        ("source", "the provider's page", "'source' must be an https:// address"),
        ("context_window", 0, "'context_window' must be a positive int"),
        ("price_input", None, "give both 'price_input' and 'price_output'"),
    ):
        with pytest.raises(ValueError, match=message):
            models_from_dict({"models": [{**good, key: bad}]})
    with pytest.raises(ValueError, match="missing keys"):
        models_from_dict({"models": [{k: v for k, v in good.items() if k != "checked"}]})
    with pytest.raises(ValueError, match="models repeated"):
        models_from_dict({"models": [good, good]})


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


def _lesson_05b_models():
    """The two models lesson 05b prices for, chosen by its rules."""
    from course_utils.window.models import priced_models

    model = priced_models(caching=True)[0]
    documented = [m for m in priced_models(caching=True) if m.caching.min_prefix_tokens]
    low = min(documented, key=lambda m: (m.caching.min_prefix_tokens, m.price_input))
    return model, low


def _lesson_05b_points():
    from course_utils.window.models import counter_for_tokenizer
    from course_utils.agentic.retention import compare_strategies, price_runs

    model, low = _lesson_05b_models()
    runs = compare_strategies("spread_chat", thresholds=(512, 1024, 1536, 2048, 3072, 4096),
                              token_counter=counter_for_tokenizer(model.tokenizer).counter)
    return runs, {m.model: {(p.strategy, p.threshold): p for p in price_runs(runs, m.prices)} for m in (model, low)}


def _outputs(name):
    import nbformat

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / f"{name}.ipynb", as_version=4)
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def test_lesson_05b_headline_is_the_cheapest_strategy_under_the_named_models_caching_minimum():
    """Issue 26: the headline must be what costs computes with the model's documented minimum (4,096 for
    Claude Haiku 4.5), not with a cache that would not exist."""
    import textwrap

    from course_utils.agentic.retention import best_point, describe_cost_recall, price_runs

    runs, points = _lesson_05b_points()
    model, low = _lesson_05b_models()
    assert model.model == "Claude Haiku 4.5" and model.prices.min_cached_tokens == 4096
    cached = price_runs(runs, model.prices)
    best = best_point(cached)
    # Recomputed by hand: among the runs that keep every fact, the cheapest as billed (nothing cached).
    full = [p for p in cached if p.facts_remembered == p.facts_asked]
    assert (best.strategy, best.threshold) == min(((p.cost, p.strategy, p.threshold) for p in full))[1:]
    assert (best.strategy, best.threshold) == ("pinned_facts", 512)
    assert all(p.cached_share == 0 for p in cached)
    text = _outputs("05b_cost_and_caching")
    headline = textwrap.fill(describe_cost_recall(cached, price_runs(runs, model.prices, caching=False)), 96,
                             break_on_hyphens=False)
    assert headline in text
    assert f"cheapest with the most facts, {model.model}: facts in the system prompt at 512" in text
    low_best = best_point(list(points[low.model].values()))
    assert f"cheapest with the most facts, {low.model}: trim in chunks (water marks) at {low_best.threshold}" in text


def test_lesson_05b_prose_holds_for_its_own_replay():
    """Lesson 05b's sections 2 to 4 and summary state these in words; the replay it runs must show them."""
    from course_utils.agentic.retention import cache_reach

    runs, points = _lesson_05b_points()
    model, low = _lesson_05b_models()
    first, second = points[model.model], points[low.model]
    # "Almost no call of this replay is as long as this model's minimum, so nothing is read from the cache."
    reach = cache_reach(runs, model.prices)
    assert reach.reaching <= reach.calls // 100 and all(p.cached_share == 0 for p in first.values())
    # "that is why the summarising row at 4096 costs more 'with caching' than without"
    assert first["summarise", 4096].cost > first["summarise", 4096].cost_without_caching
    # "on the second, with a lower minimum, trimming in chunks is cheapest"; "the sliding window ... little is cached"
    for threshold in (2048, 3072):
        assert second["trim_chunked", threshold].cached_share > second["trim", threshold].cached_share + 0.15
    # "what the sliding window caches comes from the calls before the first cut": more when the cut comes late.
    assert second["trim", 4096].cached_share > second["trim", 2048].cached_share
    assert second["trim_chunked", 4096].cached_share > second["trim", 4096].cached_share
    # "summarising keeps 2 of the 5 facts at 512 tokens" (8 words); facts in the system prompt: all five everywhere
    assert second["summarise", 512].facts_remembered == 2
    assert all(p.facts_remembered == 5 for (s, _), p in second.items() if s == "pinned_facts")
    # "Tokens sent are not money": the same runs, a different cheapest strategy for each model's rules.
    from course_utils.agentic.retention import best_point

    assert best_point(list(first.values())).strategy != best_point(list(second.values())).strategy
    # The trim forgets in order: at 2048 it has lost the pet but knows the name.
    assert next(r for r in runs if r.strategy == "trim" and r.threshold == 2048).forgotten == ["pet"]


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


def test_the_loader_refuses_bad_caching_rules():
    import json
    from importlib import resources

    from course_utils.window.models import models_from_dict

    raw = json.loads(resources.files("course_utils").joinpath("data", "models.json").read_text())
    good = raw["models"][2]
    for key, bad, message in (
        ("min_prefix_tokens", -1, "'min_prefix_tokens' must be an int >= 0 or null"),
        ("min_prefix_tokens", None, "is null exactly when 'unstated' gives a reason"),
        ("breakpoint", "magic", "'breakpoint' must be one of"),
        ("checked", "soon", "'checked' must be a date"),
        ("source", "a blog", "'source' must be an https:// address"),
    ):
        with pytest.raises(ValueError, match=message):
            models_from_dict({"models": [{**good, "caching": {**good["caching"], key: bad}}]})
    with pytest.raises(ValueError, match="'caching': missing keys"):
        models_from_dict({"models": [{**good, "caching": {"min_prefix_tokens": 1}}]})


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
    for source in ("https://arxiv.org/abs/2404.06654", "https://arxiv.org/abs/2410.10813",
                   "https://developers.openai.com/api/docs/guides/prompt-caching"):
        assert source in section
    assert len(re.findall(r"read\s+2026-12-01", section)) >= 3
    for tested in ("GPT-4-1106-preview", "Llama 3.1", "GPT-4o"):
        assert tested in section
    assert "Neither paper tested this lesson's models" in section
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
