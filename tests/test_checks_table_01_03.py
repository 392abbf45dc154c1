"""The table for exercises 01-03: right, wrong and hostile answers to each code question, with the status each gets.

Code questions run on cases made at check time (conversations, costs and budgets drawn when the check runs), so
a function that only knows the notebook's examples, or a constant, does not pass. Each hostile answer is built to
get "Correct" without being right; none may. The reason questions (01 q4, 02 q4, 03 q4) are in
tests/test_checks_table.py's reason table.
"""

from __future__ import annotations

from itertools import accumulate

import pytest
from langchain_core.messages import AIMessage, HumanMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from course_utils import checks
from course_utils.checks import ex01, ex02, ex03
from course_utils.checks.status import Status
from course_utils.window.sequences import safe_trim_kwargs

OK, NO = Status.CORRECT, Status.WRONG
BAD = (Status.WRONG, Status.ERROR, Status.NOT_ATTEMPTED)


@pytest.fixture(autouse=True, params=["en", "fa"])
def _lenient(monkeypatch, request):
    """Every row in both editions: the checks speak English, then Persian (the package catalogue)."""
    from course_utils.core.i18n import set_language

    monkeypatch.setattr(checks.settings, "strict", False)
    set_language(request.param)
    yield request.param
    set_language("en")


def _name(value):
    return getattr(value, "__name__", None) or repr(value)[:30]


def _run(question, answer, times=2):
    """The statuses of ``times`` checks of ``answer`` (each check draws its own cases)."""
    return [question.check(answer).status for _ in range(times)]


# --- exercise 01 q2: cumulative_sent(messages, token_counter) ----------------------------------------------

def cumulative_sent(messages, token_counter):
    calls = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    return list(accumulate(token_counter(messages[:i]) for i in calls))


def cumulative_sent_loop(messages, token_counter):
    totals, total = [], 0
    for i, message in enumerate(messages):
        if message.type == "ai":
            total += token_counter(messages[:i])
            totals.append(total)
    return totals


def includes_reply(messages, token_counter):
    calls = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    return list(accumulate(token_counter(messages[: i + 1]) for i in calls))


def per_call_only(messages, token_counter):
    return [token_counter(messages[:i]) for i, m in enumerate(messages) if isinstance(m, AIMessage)]


def per_human(messages, token_counter):
    calls = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    return list(accumulate(token_counter(messages[:i + 1]) for i in calls))


def counts_messages(messages, token_counter):
    return list(accumulate(i for i, m in enumerate(messages) if isinstance(m, AIMessage)))


def known_examples_only(messages, token_counter):  # hostile: right on the notebook's own conversations only
    if len(messages) <= 12 and not any(m.type == "tool" for m in messages):
        return cumulative_sent(messages, token_counter)
    return [0] * sum(isinstance(m, AIMessage) for m in messages)


def ignores_counter(messages, token_counter):  # hostile: the approximate counter whatever it is given
    calls = [i for i, m in enumerate(messages) if isinstance(m, AIMessage)]
    return list(accumulate(count_tokens_approximately(messages[:i]) for i in calls))


def pops_the_reply(messages, token_counter):  # hostile: right numbers, but the caller's list is changed
    result = cumulative_sent(messages, token_counter)
    messages.pop()
    return result


def right_length_zeros(messages, token_counter):  # hostile: one number per call, all zero
    return [0] * sum(isinstance(m, AIMessage) for m in messages)


def constant_bob(messages, token_counter):  # hostile: the printed example's numbers
    return [10, 40, 90, 160, 250]


EX01_Q2 = [(cumulative_sent, OK), (cumulative_sent_loop, OK),
           (includes_reply, NO), (per_call_only, NO), (per_human, NO), (counts_messages, NO),
           (known_examples_only, NO), (ignores_counter, NO), (pops_the_reply, NO), (right_length_zeros, NO),
           (constant_bob, NO), ([10, 40, 90], NO)]


@pytest.mark.parametrize("answer, status", EX01_Q2, ids=_name)
def test_ex01_q2(answer, status):
    for got in _run(ex01.q2, answer):
        assert got == status if status is OK else got in BAD


# --- exercise 02 q2: budget(limit, system, user, reserve) ---------------------------------------------------

def budget(limit, system, user, reserve):
    left = limit - system - user - reserve
    if left <= 0:
        raise ValueError(f"no room left for history: {system + user + reserve} >= {limit}")
    return left


def budget_lt(limit, system, user, reserve):  # off by one: 0 left is returned
    left = limit - system - user - reserve
    if left < 0:
        raise ValueError("no room")
    return left


def budget_clamps(limit, system, user, reserve):  # hostile: never raises, hides the problem
    return max(0, limit - system - user - reserve)


def budget_no_reserve(limit, system, user, reserve):
    left = limit - system - user
    if left <= 0:
        raise ValueError("no room")
    return left


def budget_constant(limit, system, user, reserve):  # hostile: the lesson's example
    return 2866


def budget_lookup(limit, system, user, reserve):  # hostile: the printed cases by heart, a guess otherwise
    known = {(4096, 350, 180, 700): 2866, (8192, 1200, 450, 1024): 5518, (1000, 300, 200, 499): 1}
    if (limit, system, user, reserve) in known:
        return known[(limit, system, user, reserve)]
    if limit < system + user + reserve:
        raise ValueError("no room")
    return limit // 2


def budget_always_raises(limit, system, user, reserve):  # hostile
    raise ValueError("no room left")


def budget_empty_message(limit, system, user, reserve):
    left = limit - system - user - reserve
    if left <= 0:
        raise ValueError()
    return left


def budget_type_error(limit, system, user, reserve):
    left = limit - system - user - reserve
    if left <= 0:
        raise RuntimeError("no room")
    return left


EX02_Q2 = [(budget, OK), (budget_lt, NO), (budget_clamps, NO), (budget_no_reserve, NO), (budget_constant, NO),
           (budget_lookup, NO), (budget_always_raises, NO), (budget_empty_message, NO), (budget_type_error, NO),
           (2866, NO)]


@pytest.mark.parametrize("answer, status", EX02_Q2, ids=_name)
def test_ex02_q2(answer, status):
    for got in _run(ex02.q2, answer):
        assert got == status if status is OK else got in BAD


# --- exercise 02 q3: the ValueError history_budget raises, and the shortfall ----------------------------------

def _caught():
    from course_utils.window.budget import history_budget

    try:
        history_budget(2048, 900, 700, 512)
    except ValueError as err:
        return err
    raise AssertionError("history_budget should refuse 2048, 900, 700, 512")


def _raised_here():
    try:
        raise ValueError(str(_caught()))
    except ValueError as err:
        return err


EX02_Q3 = [
    ((_caught, 64), OK),
    ((_caught, -64), NO), ((_caught, 2112), NO), ((_caught, 0), NO), ((_caught, 1024), NO),
    ((lambda: ValueError, 64), NO), ((lambda: 64, 64), NO),
    ((lambda: ValueError("no room"), 64), NO),  # hostile: an error typed by hand
    ((lambda: ValueError(str(_caught())), 64), NO),  # hostile: the real message copied into a new error
    ((_raised_here, 64), NO),  # hostile: raised (and caught) by the learner's own code
    ((lambda: RuntimeError("no room left for history"), 64), NO),
    ((lambda: _other_parts(), 64), NO),  # hostile: a real history_budget error, for other parts
]


def _other_parts():
    from course_utils.window.budget import history_budget

    try:
        history_budget(100, 90, 10, 1)
    except ValueError as err:
        return err


@pytest.mark.parametrize("answer, status", EX02_Q3, ids=lambda v: repr(v[1]) if isinstance(v, tuple) else str(v))
def test_ex02_q3(answer, status):
    make, shortfall = answer
    result = ex02.q3.check(make(), shortfall)
    assert (result.status == status) if status is OK else result.status in BAD, result.message


# --- exercise 03 q2: keep_last_tokens by hand -----------------------------------------------------------------

def keep_last_tokens(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in reversed(messages):
        cost = token_counter([message])
        if total + cost > max_tokens:
            break
        kept.append(message)
        total += cost
    return list(reversed(kept))


def keep_strict(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in reversed(messages):
        cost = token_counter([message])
        if total + cost >= max_tokens:
            break
        kept.append(message)
        total += cost
    return list(reversed(kept))


def keep_skipping(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in reversed(messages):
        cost = token_counter([message])
        if total + cost <= max_tokens:
            kept.append(message)
            total += cost
    return list(reversed(kept))


def keep_newest_first(messages, max_tokens, token_counter):
    return list(reversed(keep_last_tokens(messages, max_tokens, token_counter)))


def keep_calls_trim(messages, max_tokens, token_counter):  # hostile: the library does the walk
    return trim_messages(messages, max_tokens=max_tokens, token_counter=token_counter, strategy="last")


def keep_in_place(messages, max_tokens, token_counter):  # hostile: right result, the caller's list reversed
    messages.reverse()
    kept, total = [], 0
    for message in messages:
        cost = token_counter([message])
        if total + cost > max_tokens:
            break
        kept.append(message)
        total += cost
    return list(reversed(kept))


def keep_first(messages, max_tokens, token_counter):
    kept, total = [], 0
    for message in messages:
        cost = token_counter([message])
        if total + cost > max_tokens:
            break
        kept.append(message)
        total += cost
    return kept


def keep_count_budget(messages, max_tokens, token_counter):  # hostile: a fixed number of messages
    return list(messages[-4:])


def keep_everything(messages, max_tokens, token_counter):  # hostile
    return list(messages)


EX03_Q2 = [(keep_last_tokens, OK), (keep_strict, NO), (keep_skipping, NO), (keep_newest_first, NO),
           (keep_calls_trim, NO), (keep_in_place, NO), (keep_first, NO), (keep_count_budget, NO),
           (keep_everything, NO)]


@pytest.mark.parametrize("answer, status", EX03_Q2, ids=_name)
def test_ex03_q2(answer, status):
    for got in _run(ex03.q2, answer):
        assert got == status if status is OK else got in BAD


# --- exercise 03 q3: safe_trim repairs the orphaned ToolMessage ---------------------------------------------

def safe_trim(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", start_on="human", include_system=True)


def safe_trim_reference(messages, max_tokens):
    return trim_messages(messages, **safe_trim_kwargs(max_tokens, count_tokens_approximately))


def trim_no_start(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", include_system=True)


def trim_no_system(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="last", start_on="human")


def trim_first(messages, max_tokens):
    return trim_messages(messages, max_tokens=max_tokens, token_counter=count_tokens_approximately,
                         strategy="first")


def drop_tool_messages(messages, max_tokens):  # hostile: no orphan, because no tool result at all
    kept = [m for m in messages if m.type != "tool" and not getattr(m, "tool_calls", None)]
    return trim_messages(kept, max_tokens=max_tokens, token_counter=count_tokens_approximately, strategy="last",
                         start_on="human", include_system=True)


def half_budget(messages, max_tokens):  # hostile: safe, but not what the budget allows
    return safe_trim(messages, max_tokens // 2)


def only_last_question(messages, max_tokens):  # hostile: always fits, always safe
    return [m for m in messages if m.type == "system"] + [m for m in messages if m.type == "human"][-1:]


def everything(messages, max_tokens):  # hostile
    return list(messages)


EX03_Q3 = [(safe_trim, OK), (safe_trim_reference, OK), (trim_no_start, NO), (trim_no_system, NO),
           (trim_first, NO), (drop_tool_messages, NO), (half_budget, NO), (only_last_question, NO),
           (everything, NO)]


@pytest.mark.parametrize("answer, status", EX03_Q3, ids=_name)
def test_ex03_q3(answer, status):
    for got in _run(ex03.q3, answer):
        assert got == status if status is OK else got in BAD


# --- value questions: the exact value, and the known mistakes ---------------------------------------------

VALUES = [
    (ex01.q1, (4900,), OK), (ex01.q1, (5500,), NO), (ex01.q1, (940,), NO), (ex01.q1, (1000,), NO),
    (ex01.q1, (4500,), NO), (ex01.q1, (-4900,), NO), (ex01.q1, ("lots",), NO),
    (ex02.q1, (5518,), OK), (ex02.q1, (6542,), NO), (ex02.q1, (2674,), NO), (ex02.q1, (-5518,), NO),
    (ex02.q1, (5519,), NO), (ex02.q1, (15036,), NO),
    (ex03.q1, (["h2", "a2", "h3", "a3"],), OK), (ex03.q1, (["a3", "h3", "a2", "h2"],), NO),
    (ex03.q1, (["h1", "a1", "h2"],), NO), (ex03.q1, (["h3", "a3"],), NO), (ex03.q1, (["a1", "h2", "a2", "h3", "a3"],), NO),
    (ex03.q1, (["h1", "a1", "h2", "a2", "h3", "a3"],), NO), (ex03.q1, ("h2 a2 h3 a3",), NO), (ex03.q1, (["x"],), NO),
]


@pytest.mark.parametrize("question, answer, status", VALUES, ids=lambda v: repr(v)[:25])
def test_value_questions(question, answer, status):
    result = question.check(*answer)
    assert (result.status == status) if status is OK else result.status in BAD, result.message


# --- exercise 01 q3 and q5: a report, a figure and a call number; a prediction ------------------------------

def _long_chat(limit=2000, counter="approximate", policy=None):
    from course_utils.core.samples import load_conversation
    from course_utils.window.growth import replay_growth

    return replay_growth(load_conversation("long_chat"), counter, limit=limit, policy=policy)


def _figure(report):
    from course_utils.pictures.plots import growth_figure

    return growth_figure(report)


def test_ex01_q3_table():
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    report = _long_chat()
    fig = _figure(report)
    first = report.first_over_limit
    try:
        assert ex01.q3.check(report, fig, first.call).status == OK
        rows = [
            (report, fig, first.ai_index), (report, fig, first.call - 1), (report, fig, first.call + 1),
            (report, fig, 0), (_long_chat(limit=4000), fig, first.call), (_long_chat(counter="dummy"), fig, first.call),
            (report, Figure(), first.call), (report, "figure", first.call), ("report", fig, first.call),
            (report, fig, "the first one"),
        ]
        for row in rows:
            result = ex01.q3.check(*row)
            assert result.status in BAD, (row[2], result.message)
    finally:
        plt.close("all")


def _zh_tokens():
    from course_utils.pictures.token_view import sample_text
    from course_utils.window.tokens import count_text_tokens

    return count_text_tokens(sample_text("zh"), "o200k_base")


def test_ex01_q5_table():
    real = _zh_tokens()
    assert ex01.q5.check("o200k_base", "zh", real).status == OK
    assert ex01.q5.check(" o200k_base ", "zh", real + int(0.2 * real)).status == OK  # within 25%
    rows = [("cl100k_base", "zh", real), ("o200k_base", "fa", real), ("o200k_base", "en", real),
            ("o200k_base", "zh", 2 * real), ("o200k_base", "zh", real // 2), ("o200k_base", "zh", 0),
            ("o200k_base", "zh", -real), ("o200k", "zh", real), ("o200k_base", "Chinese", real),
            ("o200k_base", "zh", "twenty")]
    for row in rows:
        assert ex01.q5.check(*row).status in BAD, row
