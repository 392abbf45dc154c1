"""Billing rules (costs.py): input, output, prompt caching; and the strategies' replay records (retention.py)."""

import pytest

from course_utils.costs import Bill, Call, Prices, bill, cached_prefix_tokens, common_prefix_length
from course_utils.models import model_info, priced_models
from course_utils.retention import (
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
    prices = model_info("Claude Haiku 4.5").prices
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
    from course_utils.chat import OfflineChatModel

    asked = []
    invoke = OfflineChatModel.invoke

    def spy(self, messages, *args, **kwargs):
        asked.append(messages[-1].text)
        return invoke(self, messages, *args, **kwargs)

    monkeypatch.setattr(OfflineChatModel, "invoke", spy)
    compare_strategies("spread_chat", [1024], ["summarise"], summary_words_per_token=1 / 64)
    summaries = [text for text in asked if "summary" in text.lower()]
    assert summaries and all(text.endswith("Keep it to at most 16 words.") for text in summaries)


def test_the_cost_recall_figure_has_no_overlapping_text_and_names_the_best_point(runs):
    """Thirty points: printed threshold labels used to overlap; the figure must read at a glance."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from course_utils.plots import cost_recall_figure

    model = priced_models(caching=True)[0]
    cached, plain = price_runs(runs, model.prices), price_runs(runs, model.prices, caching=False)
    fig = cost_recall_figure(cached, plain, title="recall against cost")
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        texts = [t for t in ax.texts if t.get_text().strip()]
        boxes = [t.get_window_extent(renderer) for t in texts]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), [t.get_text() for t in texts]
    named = [t.get_text() for ax in fig.axes for t in ax.texts]
    best, best_plain = best_point(cached), best_point(plain)
    assert any(f"at {best.threshold} tokens, ${best.cost * 1000:.2f}" in t for t in named)
    assert any(f"at {best_plain.threshold} tokens, ${best_plain.cost_without_caching * 1000:.2f}" in t for t in named)


def test_compare_pair_says_what_the_numbers_show_with_and_without_caching(runs):
    from course_utils.retention import compare_pair

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
