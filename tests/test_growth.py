"""Replaying a conversation call by call: growth without trimming, with a trim policy, bad input."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages

from course_utils.model.chat import OfflineChatModel
from course_utils.window.growth import GrowthReport, GrowthRow, growth_trim_kwargs, replay_growth, trim_policy
from course_utils.core.samples import load_conversation
from course_utils.window.sequences import safe_trim_kwargs
from course_utils.window.tokens import ExactTokenCounter, approximate_counter, dummy_token_counter, get_token_counter


def equal_turns(n, size=200):
    """A system prompt and ``n`` human/AI turns whose messages all have the same size."""
    messages = [SystemMessage("s" * size)]
    for i in range(n):
        messages += [HumanMessage("h" * size, id=f"h{i}"), AIMessage("a" * size, id=f"a{i}")]
    return messages


def second_differences(values):
    return [values[i + 1] - 2 * values[i] + values[i - 1] for i in range(1, len(values) - 1)]


def trim_to(max_tokens):
    def trim_policy(history):
        return trim_messages(
            history,
            max_tokens=max_tokens,
            token_counter="approximate",
            strategy="last",
            start_on="human",
            include_system=True,
        )

    return trim_policy


# --- what a row says ---------------------------------------------------------------------


def test_one_row_per_model_call_with_everything_before_it():
    messages = load_conversation("bob")
    report = replay_growth(messages, "dummy")
    assert isinstance(report, GrowthReport)
    ai_indexes = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    assert [row.ai_index for row in report.rows] == ai_indexes
    assert [row.call for row in report.rows] == list(range(1, len(ai_indexes) + 1))
    for row in report.rows:
        assert isinstance(row, GrowthRow)
        assert row.history_messages == row.sent_messages == row.ai_index
        assert row.history_tokens == row.sent_tokens == dummy_token_counter(messages[: row.ai_index])
        assert row.over_limit is None
    running = 0
    for row in report.rows:
        running += row.sent_tokens
        assert row.cumulative_sent_tokens == running
    assert report.total_sent_tokens == running
    assert report.token_counter == "dummy" and report.policy is None and report.limit is None


def test_to_rows_and_columns_for_a_table():
    report = replay_growth(load_conversation("dialogue_en"))
    rows = report.to_rows()
    assert len(rows) == report.calls == 5
    assert list(rows[0]) == [
        "call",
        "ai_index",
        "history_messages",
        "history_tokens",
        "sent_messages",
        "sent_tokens",
        "cumulative_sent_tokens",
        "over_limit",
    ]
    assert report.column("sent_tokens") == [r["sent_tokens"] for r in rows]
    with pytest.raises(ValueError, match="name must be one of"):
        report.column("tokens")


def test_counters_by_name_by_function_and_by_object():
    messages = load_conversation("dialogue_zh")
    exact = replay_growth(messages, "exact")
    assert exact.token_counter == "exact"
    counter = ExactTokenCounter()
    assert replay_growth(messages, counter).column("sent_tokens") == exact.column("sent_tokens")
    by_function = replay_growth(messages, approximate_counter)
    assert by_function.token_counter == "approximate"
    assert by_function.column("sent_tokens") == replay_growth(messages).column("sent_tokens")


def test_replay_counts_each_message_once_with_the_cached_counter():
    messages = load_conversation("long_chat")
    counter = ExactTokenCounter()
    replay_growth(messages, counter)
    assert counter.encodings == len(messages) - 1  # the last message is never sent


# --- quadratic growth without trimming, linear with a trim ---------------------------------


def test_cumulative_tokens_grow_quadratically_without_trimming():
    report = replay_growth(equal_turns(30), "approximate")
    sent = report.column("sent_tokens")
    cumulative = report.column("cumulative_sent_tokens")
    steps = [b - a for a, b in zip(sent, sent[1:])]
    assert len(set(steps)) == 1 and steps[0] > 0  # each call sends one turn more
    assert all(d > 0 for d in second_differences(cumulative))
    assert len(set(second_differences(cumulative))) == 1  # a constant second difference: a quadratic


def test_with_a_trim_policy_per_call_cost_is_capped_and_growth_is_linear():
    max_tokens = 1000
    report = replay_growth(equal_turns(30), "approximate", policy=trim_to(max_tokens))
    sent = report.column("sent_tokens")
    assert all(tokens <= max_tokens for tokens in sent)
    assert report.total_sent_tokens <= max_tokens * report.calls
    assert report.policy == "trim_policy"
    # once the cap is reached every call costs the same: zero second differences from then on
    capped_from = next(i for i, row in enumerate(report.rows) if row.sent_messages < row.history_messages)
    assert len(set(sent[capped_from:])) == 1
    assert all(d == 0 for d in second_differences(report.column("cumulative_sent_tokens")[capped_from:]))
    untrimmed = replay_growth(equal_turns(30), "approximate")
    assert report.total_sent_tokens < untrimmed.total_sent_tokens / 1.5
    for trimmed_row, full_row in zip(report.rows, untrimmed.rows):
        assert trimmed_row.history_tokens == full_row.history_tokens  # the stored history is not changed


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=300), st.text(max_size=300)), min_size=3, max_size=12))
def test_untrimmed_cumulative_is_convex_for_any_conversation(turns):
    messages = [m for human, ai in turns for m in (HumanMessage(human), AIMessage(ai))]
    report = replay_growth(messages)
    assert all(d > 0 for d in second_differences(report.column("cumulative_sent_tokens")))


# --- the limit ---------------------------------------------------------------------------------


def test_first_call_over_the_limit():
    report = replay_growth(load_conversation("long_chat"), "approximate", limit=2000)
    first = report.first_over_limit
    assert first is not None and first.sent_tokens > 2000
    before = report.rows[: first.call - 1]
    assert before and all(row.over_limit is False for row in before)
    assert all(row.over_limit for row in report.rows[first.call - 1 :])
    assert replay_growth(load_conversation("long_chat"), limit=10**6).first_over_limit is None
    assert replay_growth(load_conversation("long_chat")).first_over_limit is None  # no limit given


def test_trim_policy_keeps_every_call_under_the_limit():
    report = replay_growth(load_conversation("long_chat"), "approximate", limit=1500, policy=trim_to(1500))
    assert report.first_over_limit is None


def test_policy_cannot_change_the_stored_conversation():
    messages = load_conversation("dialogue_en")
    before = list(messages)

    def greedy(history):
        history.clear()  # mutate what it was given
        return []

    report = replay_growth(messages, policy=greedy)
    assert messages == before
    assert report.column("sent_tokens") == [0] * report.calls


# --- bad input ------------------------------------------------------------------------------------


def test_bad_arguments_name_the_parameter():
    messages = load_conversation("dialogue_en")
    with pytest.raises(TypeError, match="messages must be a list"):
        replay_growth("hello")
    with pytest.raises(TypeError, match=r"messages\[1\] must be a BaseMessage"):
        replay_growth([HumanMessage("a"), {"role": "ai", "content": "b"}])
    with pytest.raises(ValueError, match="messages has no AIMessage"):
        replay_growth([HumanMessage("a")])
    with pytest.raises(ValueError, match="messages has no AIMessage"):
        replay_growth([])
    with pytest.raises(ValueError, match="token_counter must be one of"):
        replay_growth(messages, "exactly")
    with pytest.raises(TypeError, match="token_counter must be a counter name"):
        replay_growth(messages, 4)
    for bad in (True, 1000.0, "1000"):
        with pytest.raises(TypeError, match="limit must be an int"):
            replay_growth(messages, limit=bad)
    for bad in (0, -1):
        with pytest.raises(ValueError, match=f"limit must be a positive number of tokens, got {bad}"):
            replay_growth(messages, limit=bad)
    with pytest.raises(TypeError, match="policy must be a function"):
        replay_growth(messages, policy="last")


def test_bad_policy_results_and_counter_results_are_reported():
    messages = load_conversation("dialogue_en")
    first_ai = next(i for i, m in enumerate(messages) if m.type == "ai")
    where = re.escape(f"policy(messages[:{first_ai}])")
    with pytest.raises(TypeError, match=rf"^{where} must be a list of BaseMessage objects, got str: 'oops'$"):
        replay_growth(messages, policy=lambda history: "oops")
    with pytest.raises(TypeError, match=rf"^{where}\[0\] must be a BaseMessage, got dict"):
        replay_growth(messages, policy=lambda history: [{"role": "human", "content": "x"}])
    with pytest.raises(TypeError, match="^token_counter must return a whole number of tokens, got float: 1.5 for"):
        replay_growth(messages, lambda history: 1.5)
    with pytest.raises(TypeError, match="^token_counter must return a whole number of tokens, got bool"):
        replay_growth(messages, lambda history: True)
    with pytest.raises(ValueError, match="^token_counter must return a whole number of tokens >= 0, got -1 for"):
        replay_growth(messages, lambda history: -1)


def test_a_counter_may_return_any_integral_number():
    numpy = pytest.importorskip("numpy")
    report = replay_growth(load_conversation("bob"), lambda history: numpy.int64(len(history)))
    assert report.column("sent_tokens")[0] == 1 and type(report.column("sent_tokens")[0]) is int


def test_a_chat_model_can_be_the_token_counter():
    messages = load_conversation("bob")
    model = OfflineChatModel(token_counter="dummy")
    assert replay_growth(messages, model).column("sent_tokens") == replay_growth(messages, "dummy").column("sent_tokens")


# --- trim_policy ------------------------------------------------------------------------------------


def test_trim_policy_sends_what_trim_messages_keeps():
    messages = load_conversation("long_chat")
    kwargs = {"max_tokens": 500, "token_counter": "approximate", "strategy": "last", "start_on": "human"}
    policy = trim_policy(kwargs)
    assert policy.__name__ == "trim_messages(strategy='last')"
    assert policy(messages[:20]) == trim_messages(messages[:20], **kwargs)
    kwargs["max_tokens"] = 10  # the policy took a copy
    assert policy(messages[:20]) == trim_messages(messages[:20], **{**kwargs, "max_tokens": 500})
    assert trim_policy({**kwargs, "strategy": "first", "start_on": None}).__name__ == "trim_messages(strategy='first')"


def test_trim_policy_without_a_strategy_is_trim_messages_default():
    messages = load_conversation("long_chat")
    kwargs = {"max_tokens": 500, "token_counter": "approximate"}
    policy = trim_policy(kwargs)  # was KeyError: 'strategy'
    assert policy.__name__ == "trim_messages(strategy='last')"
    assert policy(messages) == trim_messages(messages, **kwargs) == trim_messages(messages, strategy="last", **kwargs)
    report = replay_growth(messages, "approximate", policy=policy)
    assert report.policy == "trim_messages(strategy='last')"


@pytest.mark.parametrize("bad", [None, 500, "last", [("max_tokens", 500)]])
def test_trim_policy_wants_a_dict(bad):
    with pytest.raises(TypeError, match="^trim_kwargs must be a dict of trim_messages arguments"):
        trim_policy(bad)


# --- growth_trim_kwargs: the growth explorer's policies -------------------------------------


def test_growth_trim_kwargs_last_is_the_safe_trim():
    counter = get_token_counter("dummy")
    assert growth_trim_kwargs(500, "last", "dummy") == safe_trim_kwargs(500, counter)
    assert growth_trim_kwargs(500, "first", "dummy") == {"max_tokens": 500, "token_counter": counter,
                                                          "strategy": "first", "end_on": "human"}
    assert growth_trim_kwargs(500, "none", "dummy") is None
