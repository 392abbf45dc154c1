"""Billing rules (costs.py): input, output, prompt caching; and the strategies' replay records (retention.py)."""

import dataclasses
import itertools
import random

import pytest

from course_utils.window.costs import Call, Prices, bill, cached_prefix_tokens, common_prefix_length
from course_utils.window.models import model_info, priced_models
from course_utils.agentic.retention import (
    STRATEGIES,
    best_point,
    cheap_and_good,
    compare_strategies,
    describe_cost_recall,
    price_runs,
)

PRICES = Prices(input=2.0, output=10.0, cached_input=0.2)


def call(keys, tokens, output=0, kind="turn"):
    return Call(kind, tuple(keys), tuple(tokens), output)


# --- the rules, on hand-made calls -------------------------------------------------------------


def test_without_caching_every_input_token_costs_the_input_price_and_output_the_output_price():
    calls = [call("sa", (100, 20), output=30), call("sabc", (100, 20, 30, 10), output=5)]
    result = bill(calls, PRICES, caching=False)
    assert result.input_tokens == 280 and result.output_tokens == 35 and result.cached_tokens == 0
    assert result.cost == pytest.approx((280 * 2.0 + 35 * 10.0) / 1e6)


def test_a_shared_prefix_is_billed_at_the_cached_price_and_the_rest_at_the_input_price():
    calls = [call("sa", (100, 20)), call("sabc", (100, 20, 30, 10))]
    result = bill(calls, PRICES)
    assert result.cached_tokens == 120  # the second call starts with the first call's two messages
    fresh = 120 + 40
    assert result.cost == pytest.approx((fresh * 2.0 + 120 * 0.2) / 1e6)
    assert result.cost < bill(calls, PRICES, caching=False).cost


def test_one_changed_message_early_breaks_everything_after_it():
    first = call("sabcd", (100, 20, 20, 20, 20))
    slid = call("sbcde", (100, 20, 20, 20, 20))  # the window slid: "a" dropped, so "b" now follows "s"
    assert common_prefix_length(first.message_keys, slid.message_keys) == 1
    assert cached_prefix_tokens(slid, [first]) == 100  # only the system prompt


def test_the_cache_matches_any_earlier_call_and_respects_a_minimum_length():
    a, b = call("sx", (50, 10)), call("sy", (50, 10))
    c = call("sxz", (50, 10, 5))
    assert cached_prefix_tokens(c, [a, b]) == 60
    assert cached_prefix_tokens(c, [a, b], min_cached_tokens=61) == 0


def test_cache_writes_cost_their_own_price_and_summary_output_is_counted():
    prices = Prices(input=2.0, output=10.0, cached_input=0.2, cache_write=2.5)
    calls = [call("sa", (100, 20), output=7), call("sab", (100, 20, 9), output=40, kind="summary")]
    result = bill(calls, prices)
    assert result.summary_output_tokens == 40 and result.output_tokens == 47
    assert result.input_cost == pytest.approx((120 + 9) * 2.5 / 1e6)
    assert result.cached_cost == pytest.approx(120 * 0.2 / 1e6)


def test_a_model_without_a_cached_price_is_billed_without_caching():
    prices = Prices(input=30.0, output=60.0)
    calls = [call("sa", (100, 20)), call("sab", (100, 20, 9))]
    assert bill(calls, prices).caching is False
    assert bill(calls, prices).cost == bill(calls, prices, caching=False).cost


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="message_keys and message_tokens must have the same length"):
        Call("turn", ("a",), (1, 2), 0)
    with pytest.raises(ValueError, match="kind must be one of"):
        Call("probe", ("a",), (1,), 0)
    with pytest.raises(ValueError, match="prices.input must be a finite price >= 0"):
        Prices(-1.0, 1.0)
    with pytest.raises(TypeError, match="prices.output must be a number"):
        Prices(1.0, "ten")
    with pytest.raises(TypeError, match=r"calls\[0\] must be a Call"):
        bill([{"kind": "turn"}], PRICES)
    with pytest.raises(TypeError, match="caching must be True or False"):
        bill([], PRICES, caching="yes")


# --- the strategies, replayed ----------------------------------------------------------------------


THRESHOLDS = (512, 1024, 2048, 4096)


@pytest.fixture(scope="module")
def runs():
    return compare_strategies("spread_chat", THRESHOLDS)


def pick(runs, strategy, threshold):
    return next(r for r in runs if r.strategy == strategy and r.threshold == threshold)


def test_one_run_per_strategy_and_threshold(runs):
    assert [(r.strategy, r.threshold) for r in runs] == [(s, t) for s in STRATEGIES for t in THRESHOLDS]


def test_every_turn_call_stays_under_its_threshold(runs):
    for run in runs:
        assert all(c.input_tokens <= run.threshold for c in run.calls if c.kind == "turn"), run.strategy


def test_recall_of_trimming_is_a_curve_not_a_step(runs):
    recall = [pick(runs, "trim", t).facts_remembered for t in THRESHOLDS]
    assert recall == sorted(recall) and len(set(recall)) >= 3


def test_facts_in_the_system_prompt_survive_any_trim(runs):
    assert all(pick(runs, "pinned_facts", t).recall == 1 for t in THRESHOLDS)
    assert pick(runs, "trim", 512).recall < 1


def test_water_marks_keep_the_prefix_stable_between_cuts(runs):
    slid, chunked = pick(runs, "trim", 1024), pick(runs, "trim_chunked", 1024)
    # The mechanism, with no minimum prefix (the model's own minimum is tested below).
    prices = dataclasses.replace(model_info("Claude Haiku 4.5").prices, min_cached_tokens=0)
    assert chunked.bill(prices).cached_share > slid.bill(prices).cached_share + 0.3
    # Between cuts, each call starts with the whole of the call before it.
    turns = [c for c in chunked.calls if c.kind == "turn"]
    kept = sum(1 for a, b in zip(turns, turns[1:]) if b.message_keys[: len(a.message_keys) - 2] == a.message_keys[:-2])
    assert kept >= len(turns) * 0.7


def test_summaries_are_billed_as_output(runs):
    run = pick(runs, "summarise", 512)
    assert run.summaries > 0
    summary_calls = [c for c in run.calls if c.kind == "summary"]
    assert len(summary_calls) == run.summaries and all(c.output_tokens > 0 for c in summary_calls)
    assert run.output_tokens > pick(runs, "trim", 512).output_tokens


def test_pricing_uses_the_data_file_and_the_frontier_is_consistent(runs):
    model = priced_models(caching=True)[0]
    points = price_runs(runs, model.prices)
    assert all(p.cost <= p.cost_without_caching * 1.3 for p in points)
    best = best_point(points)
    assert best.recall == max(p.recall for p in points)
    frontier = cheap_and_good(points)
    assert best in frontier and frontier[0].cost == min(p.cost for p in points)
    text = describe_cost_recall(points, price_runs(runs, model.prices, caching=False))
    assert f"{best.threshold} tokens" in text and f"${best.cost * 1000:.2f}" in text


def test_bad_strategy_input_names_the_parameter():
    with pytest.raises(ValueError, match="strategies must be drawn from"):
        compare_strategies("spread_chat", [512], ["forget"])
    with pytest.raises(ValueError, match="window must be a number between 0 and 1"):
        compare_strategies("spread_chat", [512], window=2)
    with pytest.raises(TypeError, match="runs must be a non-empty list of StrategyRun"):
        price_runs([], PRICES)


def test_summaries_sized_to_the_threshold_make_recall_a_curve_too(runs):
    """The lossy summariser keeps fewer facts in a shorter summary, so summarising forgets at small thresholds."""
    recall = [pick(runs, "summarise", t).facts_remembered for t in THRESHOLDS]
    assert recall == sorted(recall) and recall[0] < recall[-1] == 5
    # Without a requested length the summariser's default cap holds all five facts: the curve comes from the budget.
    [unsized] = compare_strategies("spread_chat", [512], ["summarise"], summary_words_per_token=None)
    assert unsized.facts_remembered > pick(runs, "summarise", 512).facts_remembered


def test_each_summary_request_asks_for_a_length_in_proportion_to_the_threshold(monkeypatch):
    from course_utils.model.chat import OfflineChatModel

    asked = []
    invoke = OfflineChatModel.invoke

    def spy(self, messages, *args, **kwargs):
        asked.append(messages[-1].text)
        return invoke(self, messages, *args, **kwargs)

    monkeypatch.setattr(OfflineChatModel, "invoke", spy)
    compare_strategies("spread_chat", [1024], ["summarise"], summary_words_per_token=1 / 64)
    summaries = [text for text in asked if "summary" in text.lower()]
    assert summaries and all(text.endswith("Keep it to at most 16 words.") for text in summaries)


def _lesson_points(model_name):
    """The lesson 05b replay (its thresholds and counter), priced for a model as its data row says."""
    from course_utils.window.models import counter_for_tokenizer

    model = model_info(model_name)
    runs = compare_strategies("spread_chat", thresholds=(512, 1024, 1536, 2048, 3072, 4096),
                              token_counter=counter_for_tokenizer(model.tokenizer).counter)
    return runs, price_runs(runs, model.prices), price_runs(runs, model.prices, caching=False)


@pytest.mark.parametrize("model_name", ["Claude Haiku 4.5", "GPT-6.2 Sol"])
def test_the_cost_recall_figure_has_no_overlapping_markers_or_labels_at_the_lessons_data(model_name):
    """Issue 20: markers at 100 % piled up and the "cheapest..." label covered the lines. Measured on the
    rendered figure: no two marker discs overlap, no text lies over a plotting area, no text over another."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from course_utils.pictures.plots import cost_recall_figure

    _, cached, plain = _lesson_points(model_name)
    fig = cost_recall_figure(cached, plain, title=f"recall against cost, {model_name}")
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.collections]
    assert len(panels) == 2
    for ax in panels:
        discs = []
        for collection in ax.collections:
            if not str(collection.get_gid() or "").startswith("markers-"):
                continue
            centres = collection.get_offset_transform().transform(collection.get_offsets())
            for (x, y), area in zip(centres, collection.get_sizes()):
                discs.append((x, y, area ** 0.5 / 2 * fig.dpi / 72))
        assert len(discs) == 30
        for (x1, y1, r1), (x2, y2, r2) in itertools.combinations(discs, 2):
            assert (x1 - x2) ** 2 + (y1 - y2) ** 2 >= (r1 + r2) ** 2, (x1, y1, x2, y2)
        area = ax.get_window_extent(renderer)
        assert not any(t.get_window_extent(renderer).overlaps(area) for t in ax.texts if t.get_text().strip())
        assert not ax.title.get_window_extent(renderer).overlaps(area)
    texts = [t for t in fig.texts if t.get_text().strip()] + [ax.title for ax in panels]
    boxes = [t.get_window_extent(renderer) for t in texts]
    legend = fig.legends[0].get_window_extent(renderer)
    for ax in panels:
        assert not legend.overlaps(ax.get_window_extent(renderer))
    for a_box, b_box in itertools.combinations(boxes + [legend], 2):
        assert not a_box.overlaps(b_box)
    figure_box = fig.bbox
    assert figure_box.x0 <= legend.x0 and legend.x1 <= figure_box.x1
    # One panel (no prices without caching): the legend still fits and covers no plotting area.
    single = cost_recall_figure(cached)
    FigureCanvasAgg(single).draw()
    box = single.legends[0].get_window_extent(single.canvas.get_renderer())
    assert single.bbox.x0 <= box.x0 and box.x1 <= single.bbox.x1
    assert not box.overlaps(single.axes[0].get_window_extent(single.canvas.get_renderer()))
    best, best_plain = best_point(cached), best_point(plain)
    titles = [ax.get_title() for ax in panels]
    assert any(f"at {best.threshold} tokens, ${best.cost * 1000:.2f}" in t for t in titles)
    assert any(f"at {best_plain.threshold} tokens, ${best_plain.cost_without_caching * 1000:.2f}" in t for t in titles)


# --- caching as billed: the minimum prefix, the write premium, the reply's usage -------------------


def random_calls(seed, n=12):
    """Calls that grow, slide and restart, with random message sizes."""
    rng = random.Random(seed)
    sizes = {key: rng.randint(20, 900) for key in "sabcdefghijkl"}
    calls, keys = [], ["s"]
    for _ in range(n):
        move = rng.random()
        if move < 0.6:
            keys = keys + [rng.choice("abcdefghijkl")]
        elif move < 0.85 and len(keys) > 2:
            keys = [keys[0]] + keys[2:]
        else:
            keys = ["s", rng.choice("abcdefghijkl")]
        calls.append(call(keys, [sizes[k] for k in keys]))
    return calls


@pytest.mark.parametrize("seed", range(8))
def test_caching_never_applies_below_a_models_minimum_prefix(seed):
    from course_utils.window.costs import cache_tokens

    calls = random_calls(seed)
    for minimum in (0, 500, 1024, 2048, 4096):
        prices = Prices(1.0, 5.0, cached_input=0.1, cache_write=1.25, min_cached_tokens=minimum)
        for i, c in enumerate(calls):
            tokens = cache_tokens(c, calls[:i], minimum)
            assert tokens.read == 0 or tokens.read >= minimum
            if c.input_tokens < minimum:
                assert (tokens.read, tokens.written) == (0, 0)
        result = bill(calls, prices)
        # Re-price by hand: every call below the minimum pays the plain input price.
        expected = 0.0
        for i, c in enumerate(calls):
            read = cached_prefix_tokens(c, calls[:i], min_cached_tokens=minimum)
            written = c.input_tokens - read if c.input_tokens >= max(minimum, 1) else 0
            expected += (read * 0.1 + written * 1.25 + (c.input_tokens - read - written) * 1.0) / 1e6
        assert result.cost == pytest.approx(expected)


def test_no_write_premium_where_nothing_can_be_cached():
    """Issue 26: "facts in the system prompt" at 512 cost $40.25 "with caching" against $36.03 without."""
    _, cached, _ = _lesson_points("Claude Haiku 4.5")
    point = next(p for p in cached if p.strategy == "pinned_facts" and p.threshold == 512)
    assert point.cached_share == 0 and point.cost == pytest.approx(point.cost_without_caching)
    small = [call("sa", (100, 20)), call("sab", (100, 20, 9))]
    haiku = model_info("Claude Haiku 4.5").prices
    assert haiku.min_cached_tokens == 4096 and haiku.cache_write > haiku.input
    result = bill(small, haiku)
    assert result.written_tokens == 0 and result.cached_tokens == 0
    assert result.cost == pytest.approx(bill(small, haiku, caching=False).cost)


def test_the_models_data_gives_the_minimum_that_prices_apply():
    for row in priced_models(caching=True):
        assert row.prices.min_cached_tokens == (row.caching.min_prefix_tokens or 0)
    assert model_info("Claude Haiku 4.5").caching.min_prefix_tokens == 4096
    assert model_info("GPT-6.2 Sol").caching.min_prefix_tokens == 1024
    # A model the provider does not cache is billed without caching, whatever its prices say.
    assert model_info("GPT-4 (original)").prices.offers_caching is False


@pytest.mark.parametrize("minimum", [0, 1024, 4096])
def test_usage_metadata_reports_what_costs_computes(minimum):
    """The offline model reports cache_read / cache_creation as providers do, by the rule the bill prices."""
    from course_utils.model.chat import OfflineChatModel
    from course_utils.window.costs import cache_tokens, call_record
    from course_utils.window.tokens import approximate_counter

    runs = compare_strategies("spread_chat", [3072], ["trim_chunked", "trim"], token_counter="approximate")
    for run in runs:
        model = OfflineChatModel(cache_min_tokens=minimum, token_counter="approximate", context_window=10_000)
        records, reads = [], 0
        for sent in run.sent:
            details = model.invoke(list(sent)).usage_metadata["input_token_details"]
            record = call_record("turn", list(sent), 0, approximate_counter)
            expected = cache_tokens(record, records, minimum)
            assert details == {"cache_read": expected.read, "cache_creation": expected.written}
            records.append(record)
            reads += details["cache_read"]
        assert reads == bill(records, Prices(1.0, 5.0, 0.1, min_cached_tokens=minimum)).cached_tokens
        if minimum == 4096:
            assert reads == 0
    chunked_reads = sum(cache_tokens(c, run.calls[:i], 1024).read for i, c in enumerate(runs[0].calls))
    assert chunked_reads > 0
    # Without a minimum set, the reply carries no cache details (as before).
    assert "input_token_details" not in OfflineChatModel().invoke("hi").usage_metadata


def test_tool_schemas_count_as_the_first_part_of_the_cached_prefix():
    from course_utils.model.chat import OfflineChatModel

    def weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    model = OfflineChatModel(cache_min_tokens=0).bind_tools([weather])
    first = model.invoke("hi there").usage_metadata
    second = model.invoke([("human", "hi there"), ("ai", "hello"), ("human", "weather in Oslo?")]).usage_metadata
    assert first["input_token_details"]["cache_creation"] == first["input_tokens"]
    assert second["input_token_details"]["cache_read"] > 0
    assert sum(second["input_token_details"].values()) == second["input_tokens"]


# --- any chat model runs the comparison ------------------------------------------------------------


def test_compare_strategies_uses_the_model_it_is_given():
    """Two different chat models give different answers and summaries: the model passed in is the one used."""
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from course_utils.model.chat import OfflineChatModel

    class Forgetful(OfflineChatModel):
        """Answers every question with the same sentence."""

        def _respond(self, messages, tools, tool_choice, reply_id, summary_questions=None):
            return AIMessage("I do not remember.", id=reply_id)

    forgetful = Forgetful(context_window=10_000_000, token_counter="approximate")
    runs = compare_strategies("spread_chat", [1024, 4096], ["trim", "summarise"], token_counter="approximate",
                              model=forgetful)
    assert all(run.facts_remembered == 0 for run in runs)
    offline = compare_strategies("spread_chat", [4096], ["trim"], token_counter="approximate")
    assert offline[0].facts_remembered == 5
    summaries = [c for run in runs for c in run.calls if c.kind == "summary"]
    assert summaries  # the summarising runs asked the given model for summaries too

    replies = iter(["Your name is Sara."] * 200)
    fake = GenericFakeChatModel(messages=replies)
    [run] = compare_strategies("spread_chat", [1024], ["summarise"], token_counter="approximate", model=fake)
    # The fake answers "Sara" to everything: right for the name, wrong for the four other facts.
    assert [a.correct for a in run.answers] == [a.fact == "name" for a in run.answers]
    assert run.summaries > 0 and all(c.output_tokens > 0 for c in run.calls if c.kind == "summary")
    with pytest.raises(TypeError, match="model must be a BaseChatModel"):
        compare_strategies("spread_chat", [1024], ["trim"], model="offline")


def test_compare_strategies_honours_course_chat_model(monkeypatch):
    """COURSE_CHAT_MODEL names the model the comparison runs on (here a spec that needs a missing package)."""
    monkeypatch.setenv("COURSE_CHAT_MODEL", "nosuchprovider:some-model")
    with pytest.raises(ImportError, match="nosuchprovider:some-model"):
        compare_strategies("spread_chat", [1024], ["trim"])
    monkeypatch.setenv("COURSE_CHAT_MODEL", "offline")
    assert compare_strategies("spread_chat", [4096], ["trim"])[0].facts_remembered == 5


# --- exercise 05 q5 follows the rule -----------------------------------------------------------------


def test_exercise_05_q5_demands_the_minimum(monkeypatch):
    from course_utils import checks
    from course_utils.checks import ex05

    monkeypatch.setattr(checks.settings, "strict", False)
    from course_utils.window.tokens import approximate_counter

    q5 = ex05.questions[4]

    def prefix_lengths(calls):
        for i, sent in enumerate(calls):
            longest = 0
            for earlier in calls[:i]:
                n = 0
                while n < min(len(sent), len(earlier)) and (sent[n].type, sent[n].text) == (earlier[n].type, earlier[n].text):
                    n += 1
                longest = max(longest, n)
            yield sent, sum(approximate_counter([m]) for m in sent[:longest])

    def right(calls, minimum):
        return sum(p for _, p in prefix_lengths(calls) if p >= minimum)

    def no_minimum(calls, minimum):
        return sum(p for _, p in prefix_lengths(calls))

    def whole_call(calls, minimum):
        return sum(p for sent, p in prefix_lengths(calls) if approximate_counter(sent) >= minimum)

    assert q5.check(right).status == "correct"
    wrong = q5.check(no_minimum)
    assert wrong.status != "correct" and "ignored the minimum" in wrong.message
    assert q5.check(whole_call).status != "correct"


def test_compare_pair_says_what_the_numbers_show_with_and_without_caching(runs):
    from course_utils.agentic.retention import compare_pair

    model = priced_models(caching=True)[0]
    points = price_runs(runs, model.prices)
    for threshold in THRESHOLDS:
        a = next(p for p in points if p.strategy == "summarise" and p.threshold == threshold)
        b = next(p for p in points if p.strategy == "trim" and p.threshold == threshold)
        text = compare_pair(points, "summarise", "trim", threshold)
        plain = "more" if a.cost_without_caching > b.cost_without_caching else "less"
        cached = "more" if a.cost > b.cost else "less"
        assert f"without caching it costs {plain} (${a.cost_without_caching * 1000:.2f} against ${b.cost_without_caching * 1000:.2f})" in text
        assert f"with caching {cached} (${a.cost * 1000:.2f} against ${b.cost * 1000:.2f})" in text
    with pytest.raises(ValueError, match="first must be one of"):
        compare_pair(points, "forget", "trim", THRESHOLDS[0])
    with pytest.raises(ValueError, match="threshold 7 has no point"):
        compare_pair(points, "summarise", "trim", 7)
