"""explain_trim explains trim_messages without ever disagreeing with it."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages

from course_utils.window.tokens import ExactTokenCounter, dummy_token_counter, exact_counter, get_token_counter
from course_utils.window.trimming import (
    AFTER_END_ON,
    BEFORE_START_ON,
    NO_TRIM,
    NOT_TRIMMED,
    OVER_BUDGET,
    SLIDE_BUDGET,
    SLIDE_COSTS,
    explain_trim,
    list_token_counter,
    slide_conversation,
    table_token_counter,
    trim_walkthrough,
    untrimmed_report,
)

TEN = "This is a 4 token text. The full message is 10 tokens."


def reference_messages():
    """The five messages of the trim_messages reference page."""
    return [
        SystemMessage(TEN),
        HumanMessage(TEN, id="first"),
        AIMessage(
            [
                {"type": "text", "text": "This is the FIRST 4 token block."},
                {"type": "text", "text": "This is the SECOND 4 token block."},
            ],
            id="second",
        ),
        HumanMessage(TEN, id="third"),
        AIMessage(TEN, id="fourth"),
    ]


FIRST_BLOCK = [{"type": "text", "text": "This is the FIRST 4 token block."}]
SECOND_BLOCK = [{"type": "text", "text": "This is the SECOND 4 token block."}]

# The page's seven examples: arguments and the output the page prints, as
# (id, content) pairs. The page is the source document under test here.
PAGE_EXAMPLES = [
    (dict(max_tokens=30, strategy="first"), [(None, TEN), ("first", TEN)]),
    (dict(max_tokens=30, strategy="first", allow_partial=True), [(None, TEN), ("first", TEN), ("second", FIRST_BLOCK)]),
    (dict(max_tokens=30, strategy="first", allow_partial=True, end_on="human"), [(None, TEN), ("first", TEN)]),
    (dict(max_tokens=30, include_system=True, strategy="last"), [(None, TEN), ("third", TEN), ("fourth", TEN)]),
    (
        dict(max_tokens=40, strategy="last", allow_partial=True, include_system=True),
        [(None, TEN), ("second", FIRST_BLOCK), ("third", TEN), ("fourth", TEN)],
    ),
    (
        dict(max_tokens=30, strategy="last", end_on="human", include_system=True, allow_partial=True),
        [(None, TEN), ("second", FIRST_BLOCK), ("third", TEN)],
    ),
    (
        dict(max_tokens=40, strategy="last", include_system=True, allow_partial=True, start_on="human"),
        [(None, TEN), ("third", TEN), ("fourth", TEN)],
    ),
]


def as_pairs(messages):
    return [(m.id, m.content) for m in messages]


@pytest.mark.parametrize("kwargs,page_output", PAGE_EXAMPLES)
def test_reference_examples_match_trim_messages(kwargs, page_output):
    messages = reference_messages()
    report = explain_trim(messages, token_counter=dummy_token_counter, **kwargs)
    assert report.result == trim_messages(reference_messages(), token_counter=dummy_token_counter, **kwargs)
    assert len(report.rows) == len(messages)
    library = as_pairs(report.result)
    if kwargs["strategy"] == "last" and kwargs.get("allow_partial"):
        # The page shows the FIRST block; the library keeps the LAST one, as
        # the allow_partial text says ("the last part of the content").
        expected = [(i, SECOND_BLOCK if c == FIRST_BLOCK else c) for i, c in page_output]
        assert library != page_output or FIRST_BLOCK not in [c for _, c in page_output]
        assert library == expected
    else:
        assert library == page_output


def test_reference_rows_and_reasons():
    report = explain_trim(reference_messages(), token_counter=dummy_token_counter, **PAGE_EXAMPLES[6][0])
    assert [r.status for r in report.rows] == ["kept", "dropped", "dropped", "kept", "kept"]
    assert [r.tokens for r in report.rows] == [10, 10, 14, 10, 10]
    assert report.rows[0].reason == "system kept by include_system"
    assert report.rows[1].reason == OVER_BUDGET
    # The AI message fit partly (10 of 40), but start_on="human" removed it.
    assert report.rows[2].reason == BEFORE_START_ON
    assert report.result_tokens == 30 <= report.max_tokens


def test_partial_row_keeps_last_block_with_last_strategy():
    report = explain_trim(reference_messages(), token_counter=dummy_token_counter, **PAGE_EXAMPLES[4][0])
    row = report.rows[2]
    assert row.status == "partial"
    assert row.kept.content == SECOND_BLOCK
    assert row.kept_tokens == 10 and row.tokens == 14
    assert "last 1 of 2 content blocks" in row.reason


def test_end_on_reasons_for_both_strategies():
    first = explain_trim(reference_messages(), token_counter=dummy_token_counter, **PAGE_EXAMPLES[2][0])
    assert first.rows[2].reason == AFTER_END_ON  # the partial AI message was cut by end_on
    last = explain_trim(reference_messages(), token_counter=dummy_token_counter, **PAGE_EXAMPLES[5][0])
    assert last.rows[4].reason == AFTER_END_ON  # removed before counting


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(max_tokens=30, strategy="first", start_on="human"),
        dict(max_tokens=30, strategy="first", include_system=True),
        dict(max_tokens=30, strategy="middle"),
        dict(max_tokens=30, token_counter="exactly"),
    ],
)
def test_errors_are_trim_messages_own(kwargs):
    kwargs = {"token_counter": dummy_token_counter, **kwargs}
    with pytest.raises(ValueError) as theirs:
        trim_messages(reference_messages(), **kwargs)
    with pytest.raises(ValueError) as ours:
        explain_trim(reference_messages(), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_bad_messages_argument():
    with pytest.raises(TypeError, match="messages must be a list"):
        explain_trim("hello", max_tokens=10, token_counter=dummy_token_counter)
    with pytest.raises(TypeError, match="token_counter"):
        list_token_counter(42)


@pytest.mark.parametrize(
    "max_tokens,error,words",
    [(-1, ValueError, "max_tokens must be >= 0, got -1"), (10.5, TypeError, "max_tokens must be an int, got float"),
     (True, TypeError, "max_tokens must be an int, got bool"), ("30", TypeError, "max_tokens must be an int, got str")],
)
def test_explain_trim_checks_max_tokens_which_trim_messages_does_not(max_tokens, error, words):
    if not isinstance(max_tokens, str):
        trim_messages(reference_messages(), max_tokens=max_tokens, token_counter=dummy_token_counter)  # no error there
    with pytest.raises(error, match=re.escape(words)):
        explain_trim(reference_messages(), max_tokens=max_tokens, token_counter=dummy_token_counter)


def test_a_string_annotation_is_a_list_counter_as_trim_messages_decides():
    calls = []

    def counter(messages: "BaseMessage") -> int:  # a string, as under `from __future__ import annotations`
        calls.append(messages)
        return 5 + sum(len(m.text) for m in messages)  # trim_messages calls it with a list

    assert list_token_counter(counter) is counter
    messages = [HumanMessage("hello"), AIMessage("hi there"), HumanMessage("bye")]
    report = explain_trim(messages, max_tokens=20, token_counter=counter)
    assert all(isinstance(c, list) for c in calls)
    assert report.result == trim_messages(messages, max_tokens=20, token_counter=counter)
    assert [row.tokens for row in report.rows] == [10, 13, 8]  # each message as a list of one: 5 + its length
    assert [row.status for row in report.rows] == ["dropped", "kept", "kept"]  # 5 + 8 + 3 = 16 <= 20

    def per_message(message: BaseMessage) -> int:  # the class itself: one message at a time
        assert isinstance(message, BaseMessage)
        return len(message.text)

    assert list_token_counter(per_message)(messages) == 5 + 8 + 3
    with pytest.raises(ValueError, match="token_counter"):
        list_token_counter("exactly")


def test_untrimmed_report_keeps_every_row_and_measures_against_the_limit():
    messages = reference_messages()
    report = untrimmed_report(messages, 30, dummy_token_counter)
    assert report.strategy == NO_TRIM and report.result == messages and report.result is not messages
    assert [(r.status, r.reason) for r in report.rows] == [("kept", NOT_TRIMMED)] * 5
    assert [r.kept for r in report.rows] == messages and [r.tokens for r in report.rows] == [10, 10, 14, 10, 10]
    assert report.result_tokens == dummy_token_counter(messages) == 54 and report.over_budget
    assert report.max_tokens == 30 and report.arguments == {"max_tokens": 30, "token_counter": dummy_token_counter}
    assert untrimmed_report([], 5, "approximate").result_tokens == 0
    with pytest.raises(ValueError, match="max_tokens must be >= 0"):
        untrimmed_report(messages, -1, dummy_token_counter)
    with pytest.raises(TypeError, match="messages must be a list"):
        untrimmed_report("hi", 5, dummy_token_counter)


def test_empty_conversation():
    report = explain_trim([], max_tokens=10, token_counter=dummy_token_counter)
    assert report.rows == [] and report.result == []


def test_per_message_counter_and_dicts_are_accepted():
    def per_message(message: BaseMessage) -> int:
        return len(message.text)

    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi there"}]
    report = explain_trim(messages, max_tokens=8, token_counter=per_message)
    assert [r.status for r in report.rows] == ["dropped", "kept"]
    assert [r.tokens for r in report.rows] == [5, 8]


# --- the slide's walkthrough ---------------------------------------------------


def test_slide_walkthrough_numbers():
    walk = trim_walkthrough(slide_conversation(), SLIDE_BUDGET, table_token_counter(SLIDE_COSTS))
    assert walk.lines == ["70 <= 150", "70 + 30 = 100 <= 150", "100 + 50 = 150 <= 150", "150 + 60 = 210 > 150: stop"]
    assert [m.id for m in walk.kept] == ["human2", "tool2", "ai2"]


def test_walkthrough_agrees_with_trim_messages():
    counter = table_token_counter(SLIDE_COSTS)
    report = explain_trim(slide_conversation(), max_tokens=150, token_counter=counter)
    walk = trim_walkthrough(slide_conversation(), 150, counter)
    assert report.result == walk.kept


def test_walkthrough_and_table_counter_validate():
    with pytest.raises(TypeError, match="max_tokens"):
        trim_walkthrough(slide_conversation(), "150", dummy_token_counter)
    with pytest.raises(ValueError, match="max_tokens"):
        trim_walkthrough(slide_conversation(), -1, dummy_token_counter)
    with pytest.raises(ValueError, match="costs\\['x'\\]"):
        table_token_counter({"x": -3})
    with pytest.raises(ValueError, match="no cost"):
        table_token_counter({})([HumanMessage("hi", id="nope")])


# --- property-based: any conversation, any arguments -------------------------------

TEXT = st.text(alphabet="ab \nسلام你好", min_size=0, max_size=40)


@st.composite
def conversations(draw):
    messages = []
    if draw(st.booleans()):
        messages.append(SystemMessage(draw(TEXT)))
    for n in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["human", "ai", "ai_blocks", "tool_turn"]))
        if kind == "human":
            messages.append(HumanMessage(draw(TEXT), id=f"h{n}"))
        elif kind == "ai":
            messages.append(AIMessage(draw(TEXT), id=f"a{n}"))
        elif kind == "ai_blocks":
            blocks = [{"type": "text", "text": draw(TEXT)} for _ in range(draw(st.integers(1, 3)))]
            messages.append(AIMessage(blocks, id=f"b{n}"))
        else:
            call = {"name": "lookup", "args": {"q": draw(TEXT)}, "id": f"call{n}"}
            messages.append(AIMessage("", tool_calls=[call], id=f"c{n}"))
            messages.append(ToolMessage(draw(TEXT), tool_call_id=f"call{n}", id=f"t{n}"))
    return messages


def per_message_len(message: BaseMessage) -> int:
    return 1 + len(message.text)


def per_list_len(messages):
    """A list counter that does not add up per message (2 extra per list, 1 more for every 3 messages)."""
    return 2 + len(messages) // 3 + sum(len(m.text) for m in messages) if messages else 0


ROLES = st.one_of(st.none(), st.sampled_from(["human", "ai", "tool", ("human", "ai"), HumanMessage]))


@st.composite
def trim_arguments(draw):
    strategy = draw(st.sampled_from(["first", "last"]))
    kwargs = dict(
        max_tokens=draw(st.integers(0, 120)),
        strategy=strategy,
        token_counter=draw(
            st.sampled_from(
                [dummy_token_counter, "approximate", per_message_len, exact_counter, get_token_counter("o200k_base"), per_list_len]
            )
        ),
        allow_partial=draw(st.booleans()),
        end_on=draw(ROLES),
    )
    if strategy == "last":
        kwargs["start_on"] = draw(ROLES)
        kwargs["include_system"] = draw(st.booleans())
    return kwargs


def boundary_oracle(messages, kwargs):
    """Indices the budget allowed but start_on/end_on removed, from full second calls."""
    if kwargs["strategy"] == "last":
        if not kwargs.get("start_on"):
            return set()
        without = trim_messages(messages, **{**kwargs, "start_on": None})
        final = trim_messages(messages, **kwargs)
        head = 1 if kwargs.get("include_system") and messages and isinstance(messages[0], SystemMessage) else 0
        end = len(messages)
        while kwargs.get("end_on") and end > 0 and not _matches(messages[end - 1], kwargs["end_on"]):
            end -= 1
        head = head if end else 0
        return set(range(end - (len(without) - head), end - (len(final) - head)))
    if not kwargs.get("end_on"):
        return set()
    without = trim_messages(messages, **{**kwargs, "end_on": None})
    final = trim_messages(messages, **kwargs)
    return set(range(len(final), len(without)))


def _matches(message, types):
    types = [types] if isinstance(types, (str, type)) else list(types)
    return any(message.type == t if isinstance(t, str) else isinstance(message, t) for t in types)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations(), trim_arguments())
def test_explain_trim_agrees_with_trim_messages(messages, kwargs):
    report = explain_trim(messages, **kwargs)
    assert report.result == trim_messages(messages, **kwargs)
    assert [row.index for row in report.rows] == list(range(len(messages)))
    assert all(row.message is m for row, m in zip(report.rows, messages))
    # The kept rows, in input order, are exactly the result.
    assert [row.kept for row in report.kept] == report.result
    assert sum(row.status == "partial" for row in report.rows) <= 1
    counter = list_token_counter(kwargs["token_counter"])
    for row in report.rows:
        assert row.status in ("kept", "partial", "dropped")
        assert row.tokens == counter([row.message])
        assert (row.kept is None) == (row.status == "dropped")
    # Boundary reasons agree with an independent pair of full calls.
    cut = {row.index for row in report.rows if row.reason in (BEFORE_START_ON, AFTER_END_ON)}
    assert cut == boundary_oracle(messages, kwargs) | _popped_by_end_on(messages, kwargs)
    # "over budget" agrees with an independent call that has no start_on / end_on.
    dropped = {row.index for row in report.dropped}
    assert all(row.reason in (OVER_BUDGET, BEFORE_START_ON, AFTER_END_ON) for row in report.dropped)
    over = {row.index for row in report.rows if row.reason == OVER_BUDGET}
    assert over == budget_oracle(messages, kwargs, dropped)


def budget_oracle(messages, kwargs, dropped):
    """Dropped indices the budget alone refused: not kept by trim_messages without start_on/end_on.

    strategy="last" pops the messages after the last end_on type before it
    counts, so the budget-only call trims what is left; those popped are
    "after end_on", never "over budget". strategy="first" applies end_on
    after counting, so the budget-only call trims the whole list.
    """
    plain = {**kwargs, "start_on": None, "end_on": None} if kwargs["strategy"] == "last" else {**kwargs, "end_on": None}
    popped = _popped_by_end_on(messages, kwargs)
    considered = messages[: len(messages) - len(popped)]
    budget_only = trim_messages(considered, **plain)
    if kwargs["strategy"] == "first":
        allowed = set(range(len(budget_only)))  # a prefix
    else:
        head = 1 if kwargs.get("include_system") and considered and isinstance(considered[0], SystemMessage) else 0
        allowed = set(range(head)) | set(range(len(considered) - (len(budget_only) - head), len(considered)))
    return {i for i in dropped if i not in allowed and i not in popped}


def _popped_by_end_on(messages, kwargs):
    """strategy="last" removes trailing messages after end_on before counting."""
    if kwargs["strategy"] != "last" or not kwargs.get("end_on"):
        return set()
    end = len(messages)
    while end > 0 and not _matches(messages[end - 1], kwargs["end_on"]):
        end -= 1
    return set(range(end, len(messages)))


# --- the reference page's examples, as course_utils stores them ----------------------

import ast  # noqa: E402

from course_utils.core.samples import load_conversation  # noqa: E402
from course_utils.window.sequences import orphaned_tool_messages  # noqa: E402
from course_utils.window.reference_page import (  # noqa: E402
    REFERENCE_EXAMPLES,
    compare_reference_examples,
    page_style,
)
from course_utils.window.reference_page import reference_messages as stored_reference_messages  # noqa: E402


def test_stored_reference_messages_are_the_pages():
    assert stored_reference_messages() == reference_messages()


def test_stored_printed_outputs_match_this_files_transcription():
    # Two transcriptions of the page, made independently, must agree.
    assert [e.number for e in REFERENCE_EXAMPLES] == list(range(1, 8))
    for example, (kwargs, page_output) in zip(REFERENCE_EXAMPLES, PAGE_EXAMPLES):
        assert example.kwargs == kwargs
        assert [(id_, content) for _, id_, content in example.printed] == page_output


def _call_keywords(text):
    call = ast.parse(text, mode="eval").body
    assert call.func.id == "trim_messages" and [a.id for a in call.args] == ["messages"]
    keywords = {k.arg: k.value for k in call.keywords}
    assert keywords.pop("token_counter").id == "dummy_token_counter"
    return {name: ast.literal_eval(value) for name, value in keywords.items()}


def test_printed_calls_say_what_kwargs_say_and_only_the_third_fails_to_compile():
    for example in REFERENCE_EXAMPLES:
        if example.number == 3:
            with pytest.raises(SyntaxError):
                compile(example.call, "page example 3", "eval")
            fixed = example.call.replace('strategy="first"\n', 'strategy="first",\n')
            assert _call_keywords(fixed) == example.kwargs
        else:
            assert _call_keywords(example.call) == example.kwargs


def test_only_examples_5_and_6_differ_and_only_in_the_kept_block():
    checks = compare_reference_examples()
    assert [c.example.number for c in checks if not c.matches] == [5, 6]
    for check in checks:
        assert check.library == trim_messages(reference_messages(), token_counter=dummy_token_counter,
                                              **check.example.kwargs)
        if check.matches:
            assert check.differences == []
        else:
            [line] = check.differences
            assert line.startswith("position 1: ") and "FIRST" in line.split(";")[0] and "SECOND" in line.split(";")[1]


def test_the_page_examples_titles_and_differences_read_in_persian():
    # Lesson 03b prints each example's title and where the library differs; the Persian edition reads them in Persian.
    from course_utils.core import i18n

    english = [line for check in compare_reference_examples() for line in check.differences]
    i18n.set_language("fa")
    try:
        for example in REFERENCE_EXAMPLES:
            assert i18n.translate(example.title) != example.title and "token" in i18n.translate(example.title)
        persian = [line for check in compare_reference_examples() for line in check.differences]
    finally:
        i18n.set_language("en")
    assert len(persian) == len(english) == 2
    for line in persian:
        assert line.startswith(i18n.RLI) and "جایگاه 1" in line and "FIRST" in line and "SECOND" in line
        assert line.index("FIRST") < line.index("SECOND")   # the page's block first, as in English


def test_page_style_writes_messages_like_the_page():
    assert page_style(HumanMessage(TEN, id="first")) == f'HumanMessage("{TEN}", id="first")'
    assert page_style(SystemMessage(TEN)) == f'SystemMessage("{TEN}")'
    assert page_style(("AIMessage", "second", SECOND_BLOCK)) == (
        'AIMessage([{"type": "text", "text": "This is the SECOND 4 token block."}], id="second")'
    )


# --- valid boundaries: orphaned tool answers ------------------------------------------


def _call(call_id, name="lookup"):
    return {"name": name, "args": {}, "id": call_id}


def test_orphaned_tool_messages_follow_the_provider_rule():
    ai = AIMessage("", tool_calls=[_call("c1"), _call("c2")], id="ai")
    t1, t2 = ToolMessage("1", tool_call_id="c1", id="t1"), ToolMessage("2", tool_call_id="c2", id="t2")
    assert orphaned_tool_messages([HumanMessage("q"), ai, t1, t2, AIMessage("done")]) == []  # parallel calls
    assert orphaned_tool_messages([t1, t2, AIMessage("done")]) == [t1, t2]  # the call was cut
    # The call is earlier, but a human message came between: not a valid place either.
    assert orphaned_tool_messages([ai, HumanMessage("wait"), t1]) == [t1]
    assert orphaned_tool_messages([ai, ToolMessage("x", tool_call_id="c9", id="t9")])[0].id == "t9"
    assert orphaned_tool_messages([]) == []


def test_orphaned_tool_messages_validates():
    with pytest.raises(TypeError, match="messages must be a list"):
        orphaned_tool_messages("hello")
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        orphaned_tool_messages([HumanMessage("a"), "b"])


def test_slide_result_has_an_orphan():
    walk = trim_walkthrough(slide_conversation(), SLIDE_BUDGET, table_token_counter(SLIDE_COSTS))
    assert [m.id for m in orphaned_tool_messages(walk.kept)] == ["tool2"]


def test_agent_trap_and_its_fix():
    agent = load_conversation("agent_tools")
    budgets = range(0, 2000)
    trapped = [n for n in budgets if orphaned_tool_messages(trim_messages(agent, max_tokens=n, token_counter="approximate"))]
    assert trapped, "the sample must show langchain issue #33245"
    first = trim_messages(agent, max_tokens=trapped[0], token_counter="approximate")
    assert isinstance(first[0], ToolMessage)
    fixed = dict(token_counter="approximate", start_on="human", include_system=True)
    assert not any(orphaned_tool_messages(trim_messages(agent, max_tokens=n, **fixed)) for n in budgets)


def test_table_counter_has_a_readable_name():
    assert table_token_counter(SLIDE_COSTS).__name__ == "table_token_counter(costs)"


# --- valid_tail: the summarising graph's "keep the last few" without orphans ---------

from course_utils.window.sequences import safe_trim_kwargs, valid_tail  # noqa: E402


def _tool_turn(n):
    return [
        HumanMessage(f"question {n}", id=f"h{n}"),
        AIMessage("", tool_calls=[_call(f"c{n}")], id=f"c{n}"),
        ToolMessage(f"result {n}", tool_call_id=f"c{n}", id=f"t{n}"),
        AIMessage(f"answer {n}", id=f"a{n}"),
    ]


def test_valid_tail_moves_the_cut_back_to_a_human_turn():
    msgs = _tool_turn(1) + _tool_turn(2)
    assert orphaned_tool_messages(msgs[-2:])  # the plain slice is the bug
    for keep_last in (1, 2, 3, 4):
        assert [m.id for m in valid_tail(msgs, keep_last)] == ["h2", "c2", "t2", "a2"]
    assert [m.id for m in valid_tail(msgs, 5)] == [m.id for m in msgs]
    assert valid_tail(msgs, 8) == msgs and valid_tail(msgs, 80) == msgs
    assert valid_tail(msgs, 0) == [] and valid_tail([], 3) == []
    assert valid_tail(msgs, 4) is not msgs  # a new list
    plain = [HumanMessage("a", id="x"), AIMessage("b", id="y")]
    assert valid_tail(plain, 1) == plain  # an AIMessage-only tail moves back to its question


def test_valid_tail_without_a_human_turn_keeps_only_what_the_calls_need():
    system = SystemMessage("tools only")
    msgs = [system] + _tool_turn(1)[1:] + _tool_turn(2)[1:]  # no HumanMessage at all
    assert [m.id for m in valid_tail(msgs, 1)] == ["a2"]
    assert [m.id for m in valid_tail(msgs, 2)] == ["c2", "t2", "a2"]
    assert [m.id for m in valid_tail(msgs, 3)] == ["c2", "t2", "a2"]
    # Orphans already in the input are not valid_tail's to remove; it adds none.
    stray = ToolMessage("stray", tool_call_id="zz", id="stray")
    assert [m.id for m in valid_tail([stray, AIMessage("x", id="x")], 1)] == ["x"]
    assert [m.id for m in valid_tail([AIMessage("x", id="x"), stray], 1)] == ["stray"]


@settings(max_examples=200, deadline=None)
@given(conversations(), st.integers(0, 30))
def test_valid_tail_never_orphans_and_keeps_at_least_keep_last(messages, keep_last):
    tail = valid_tail(messages, keep_last)
    assert tail == messages[len(messages) - len(tail):]  # a suffix
    assert len(tail) >= min(keep_last, len(messages))
    before = {id(m) for m in orphaned_tool_messages(messages)}
    assert all(id(m) in before for m in orphaned_tool_messages(tail))
    if tail and any(isinstance(m, HumanMessage) for m in messages[: len(messages) - len(tail) + 1]):
        assert isinstance(tail[0], HumanMessage)


@pytest.mark.parametrize(
    "keep_last,error,match",
    [(-1, ValueError, "keep_last must be >= 0, got -1"), (True, TypeError, "keep_last must be an int, got bool"),
     (1.5, TypeError, "keep_last must be an int, got float")],
)
def test_valid_tail_validates(keep_last, error, match):
    with pytest.raises(error, match=match):
        valid_tail([HumanMessage("a")], keep_last)
    with pytest.raises(TypeError, match="messages must be a list"):
        valid_tail("hello", 1)


def test_safe_trim_kwargs_never_orphans_the_agent():
    kwargs = safe_trim_kwargs(120)
    assert kwargs == {"max_tokens": 120, "token_counter": "approximate", "strategy": "last",
                      "start_on": "human", "include_system": True}
    assert safe_trim_kwargs(5, dummy_token_counter)["token_counter"] is dummy_token_counter
    agent = load_conversation("agent_tools")
    assert not any(orphaned_tool_messages(trim_messages(agent, **safe_trim_kwargs(n))) for n in range(0, 2000, 7))
    with pytest.raises(TypeError, match="max_tokens must be an int, got bool"):
        safe_trim_kwargs(True)
    with pytest.raises(ValueError, match="max_tokens must be >= 0, got -3"):
        safe_trim_kwargs(-3)


# --- counting each message once (the course's counters add up per message) ------------------


def test_explain_trim_counts_each_message_once_with_an_additive_counter():
    messages = load_conversation("long_chat")
    counter = ExactTokenCounter(cache=False)  # so every count is a real encoding
    kwargs = dict(max_tokens=300, strategy="last", start_on="human", include_system=True, token_counter=counter)
    report = explain_trim(messages, **kwargs)
    [row.tokens for row in report.rows], report.total_tokens, report.result_tokens
    assert counter.encodings == len(messages)
    assert report.result == trim_messages(messages, **{**kwargs, "token_counter": ExactTokenCounter(cache=False)})
    assert report.arguments["token_counter"] is counter  # the report still names the learner's counter


def test_a_counter_that_does_not_add_up_keeps_the_plain_path():
    calls = []

    def counting(messages):
        calls.append(len(messages))
        return per_list_len(messages)

    messages = load_conversation("long_chat")
    report = explain_trim(messages, max_tokens=200, strategy="last", token_counter=counting)
    assert report.result == trim_messages(messages, max_tokens=200, strategy="last", token_counter=per_list_len)
    assert max(calls) > 1  # trim_messages itself called it on whole lists
    assert report.rows[0].tokens == per_list_len([messages[0]])
