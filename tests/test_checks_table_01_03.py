"""The table for exercises 01-03: right, wrong and hostile answers to each code question, with the status each gets.

Code questions run on cases made at check time (conversations, costs, budgets, chats and limits drawn when the
check runs), so a function that only knows the notebook's examples, or a constant, does not pass. Where a question
asks to compute a value (01 q1 the total sent, 01 q3 the first call over the limit, 02 q1 the history budget, 02 q3
the shortfall) the answer is a function, run on the question's own numbers first and then on scenarios the learner
never saw; a number typed by hand, even the right one, is refused. Each hostile answer is built to get "Correct"
without being right; none may. Every row runs in English and in Persian. The reason questions (01 q4, 02 q4, 03 q4)
are in tests/test_checks_table.py's reason table.
"""

from __future__ import annotations

from itertools import accumulate

import pytest
from langchain_core.messages import AIMessage, HumanMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from course_utils import checks
from course_utils.checks import ex01, ex02, ex03
from course_utils.checks.status import Status
from course_utils.window.growth import replay_growth
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


# --- exercise 01 q1: total_sent(calls, question, answer) -----------------------------------------------------

def total_sent(calls, question, answer):
    return sum((k - 1) * (question + answer) + question for k in range(1, calls + 1))


def total_sent_closed_form(calls, question, answer):  # right: n questions plus (n - 1) n / 2 turns
    return calls * question + (question + answer) * calls * (calls - 1) // 2


def total_sent_float(calls, question, answer):  # right: a whole float is a whole number of tokens
    return calls * question + (question + answer) * calls * (calls - 1) / 2


def total_own_answer(calls, question, answer):
    return sum(k * (question + answer) for k in range(1, calls + 1))


def total_last_call(calls, question, answer):
    return (calls - 1) * (question + answer) + question


def total_constant(calls, question, answer):  # hostile: the question's number
    return 4900


def total_lookup(calls, question, answer):  # hostile: the question's chat by heart, the history once otherwise
    return 4900 if (calls, question, answer) == (10, 40, 60) else calls * (question + answer)


def total_fixed_turn(calls, question, answer):  # hostile: the question's 40 and 60 whatever it is given
    return sum((k - 1) * 100 + 40 for k in range(1, calls + 1))


def total_ten_calls(calls, question, answer):  # hostile: always ten calls
    return sum((k - 1) * (question + answer) + question for k in range(1, 11))


def total_square(calls, question, answer):  # hostile: "it grows with the square", rounded to fit 4900
    return round(calls ** 2 * (question + answer) / 2 - calls * 10)


def total_as_text(calls, question, answer):  # hostile: the right number, as text
    return str(total_sent(calls, question, answer))


EX01_Q1 = [(total_sent, OK), (total_sent_closed_form, OK), (total_sent_float, OK),
           (total_own_answer, NO), (total_last_call, NO), (total_constant, NO), (total_lookup, NO),
           (total_fixed_turn, NO), (total_ten_calls, NO), (total_square, NO), (total_as_text, NO),
           (4900, NO), ("4900", NO)]


@pytest.mark.parametrize("answer, status", EX01_Q1, ids=_name)
def test_ex01_q1(answer, status):
    for got in _run(ex01.q1, answer):
        assert got == status if status is OK else got in BAD


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


def budget_refuses_known(limit, system, user, reserve):  # hostile: refuses the printed no-room cases only
    if (limit, system, user, reserve) in ((2048, 900, 700, 512), (1000, 300, 200, 500), (4096, 4000, 100, 50)):
        raise ValueError("no room")
    return limit - system - user - reserve


def budget_fixed_limit(limit, system, user, reserve):  # hostile: the lesson's 4096 whatever it is given
    left = 4096 - system - user - reserve
    if left <= 0:
        raise ValueError("no room")
    return left


EX02_Q2 = [(budget, OK), (budget_refuses_known, NO), (budget_fixed_limit, NO), (budget_lt, NO), (budget_clamps, NO), (budget_no_reserve, NO), (budget_constant, NO),
           (budget_lookup, NO), (budget_always_raises, NO), (budget_empty_message, NO), (budget_type_error, NO),
           (2866, NO)]


@pytest.mark.parametrize("answer, status", EX02_Q2, ids=_name)
def test_ex02_q2(answer, status):
    for got in _run(ex02.q2, answer):
        assert got == status if status is OK else got in BAD


# --- exercise 02 q1: room(limit, system, user, reserve) -------------------------------------------------------

def room(limit, system, user, reserve):
    return limit - system - user - reserve


def room_in_steps(limit, system, user, reserve):
    left = limit
    for part in (system, user, reserve):
        left -= part
    return left


def room_no_reserve(limit, system, user, reserve):
    return limit - system - user


def room_constant(limit, system, user, reserve):  # hostile: the question's 5518
    return 5518


def room_lookup(limit, system, user, reserve):  # hostile: the question's model by heart, a share otherwise
    return 5518 if (limit, system, user, reserve) == (8192, 1200, 450, 1024) else limit * 2 // 3


def room_fixed_limit(limit, system, user, reserve):  # hostile: the question's window whatever it is given
    return 8192 - system - user - reserve


def room_fixed_reserve(limit, system, user, reserve):  # hostile: the question's reserve whatever it is given
    return limit - system - user - 1024


def room_share(limit, system, user, reserve):  # hostile: about two thirds of the window, 5518 at 8192... not quite
    return round(limit * 0.6736)


EX02_Q1 = [(room, OK), (room_in_steps, OK), (budget, OK),
           (room_no_reserve, NO), (room_constant, NO), (room_lookup, NO), (room_fixed_limit, NO),
           (room_fixed_reserve, NO), (room_share, NO), (5518, NO)]


@pytest.mark.parametrize("answer, status", EX02_Q1, ids=_name)
def test_ex02_q1(answer, status):
    for got in _run(ex02.q1, answer, times=3):
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


def shortfall(limit, system, user, reserve):
    return max(0, system + user + reserve - limit)


def shortfall_if(limit, system, user, reserve):
    over = system + user + reserve - limit
    return over if over > 0 else 0


def shortfall_unclamped(limit, system, user, reserve):  # negative when the parts fit
    return system + user + reserve - limit


def shortfall_abs(limit, system, user, reserve):  # hostile: positive either way
    return abs(system + user + reserve - limit)


def shortfall_constant(limit, system, user, reserve):  # hostile: the question's 64
    return 64


def shortfall_lookup(limit, system, user, reserve):  # hostile: the question's case by heart, 0 otherwise
    return 64 if (limit, system, user, reserve) == (2048, 900, 700, 512) else 0


def shortfall_fixed_limit(limit, system, user, reserve):  # hostile: the question's window whatever it is given
    return max(0, system + user + reserve - 2048)


def shortfall_no_reserve(limit, system, user, reserve):
    return max(0, system + user - limit)


def shortfall_over_or_64(limit, system, user, reserve):  # hostile: 64 whenever the parts do not fit
    return 64 if system + user + reserve > limit else 0


def shortfall_ge(limit, system, user, reserve):  # hostile: "no room" at the limit counted as 1 short
    over = system + user + reserve - limit
    return over + 1 if over >= 0 else 0


EX02_Q3 = [
    ((_caught, shortfall), OK), ((_caught, shortfall_if), OK),
    ((_caught, shortfall_unclamped), NO), ((_caught, shortfall_abs), NO), ((_caught, shortfall_constant), NO),
    ((_caught, shortfall_lookup), NO), ((_caught, shortfall_fixed_limit), NO), ((_caught, shortfall_no_reserve), NO),
    ((_caught, shortfall_over_or_64), NO), ((_caught, shortfall_ge), NO),
    ((_caught, 64), NO), ((_caught, "64"), NO),  # a number typed by hand, even the right one
    ((lambda: ValueError, shortfall), NO), ((lambda: 64, shortfall), NO),
    ((lambda: ValueError("no room"), shortfall), NO),  # hostile: an error typed by hand
    ((lambda: ValueError(str(_caught())), shortfall), NO),  # hostile: the real message copied into a new error
    ((_raised_here, shortfall), NO),  # hostile: raised (and caught) by the learner's own code
    ((lambda: RuntimeError("no room left for history"), shortfall), NO),
    ((lambda: _other_parts(), shortfall), NO),  # hostile: a real history_budget error, for other parts
]


def _other_parts():
    from course_utils.window.budget import history_budget

    try:
        history_budget(100, 90, 10, 1)
    except ValueError as err:
        return err


@pytest.mark.parametrize("answer, status", EX02_Q3, ids=lambda v: "-".join(_name(x) for x in v)
                         if isinstance(v, tuple) else str(v))
def test_ex02_q3(answer, status):
    make, given = answer
    for _n in range(3):  # each check draws its own parts
        result = ex02.q3.check(make(), given)
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


def keep_fixed_budget(messages, max_tokens, token_counter):  # hostile: the exercise's 175 whatever it is given
    return keep_last_tokens(messages, 175, token_counter)


def keep_by_heart(messages, max_tokens, token_counter):  # hostile: the two printed examples' answers, else all
    ids = [m.id for m in messages]
    if ids[:2] == ["h1", "a1"]:
        return [m for m in messages if m.id in ("h2", "a2", "h3", "a3")]
    return list(messages)


def keep_trim_alias(messages, max_tokens, token_counter):  # hostile: the library under another name
    from langchain_core.messages import utils

    walk = getattr(utils, "trim_" + "messages")
    return walk(messages, max_tokens=max_tokens, token_counter=token_counter, strategy="last")


EX03_Q2 = [(keep_last_tokens, OK), (keep_strict, NO), (keep_skipping, NO), (keep_newest_first, NO),
           (keep_calls_trim, NO), (keep_in_place, NO), (keep_first, NO), (keep_count_budget, NO),
           (keep_everything, NO), (keep_fixed_budget, NO), (keep_by_heart, NO), (keep_trim_alias, NO)]


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


def fixed_budget(messages, max_tokens):  # hostile: the notebook's 600 whatever it is given
    return safe_trim(messages, 600)


def other_counter(messages, max_tokens):  # hostile: safe, but counted as 10 tokens a message
    return trim_messages(messages, max_tokens=max_tokens, token_counter=lambda ms: 10 * len(ms), strategy="last",
                         start_on="human", include_system=True)


def system_and_last_turn(messages, max_tokens):  # hostile: always safe, always small
    last_human = max(i for i, m in enumerate(messages) if m.type == "human")
    return [m for m in messages[:1] if m.type == "system"] + list(messages[last_human:])


EX03_Q3 = [(safe_trim, OK), (safe_trim_reference, OK), (trim_no_start, NO), (trim_no_system, NO),
           (trim_first, NO), (drop_tool_messages, NO), (half_budget, NO), (only_last_question, NO),
           (everything, NO), (fixed_budget, NO), (other_counter, NO), (system_and_last_turn, NO)]


@pytest.mark.parametrize("answer, status", EX03_Q3, ids=_name)
def test_ex03_q3(answer, status):
    for got in _run(ex03.q3, answer):
        assert got == status if status is OK else got in BAD


# --- value questions: the exact value, and the known mistakes ---------------------------------------------

VALUES = [
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


def first_over(conversation, limit):
    first = replay_growth(conversation, "approximate", limit=limit).first_over_limit
    return None if first is None else first.call


def first_over_loop(conversation, limit):
    total_calls = 0
    for i, message in enumerate(conversation):
        if isinstance(message, AIMessage):
            total_calls += 1
            if count_tokens_approximately(conversation[:i]) > limit:
                return total_calls
    return None


def first_over_at_limit(conversation, limit):  # a call that sends exactly the limit counted as over
    rows = replay_growth(conversation, "approximate").rows
    return next((row.call for row in rows if row.sent_tokens >= limit), None)


def first_over_position(conversation, limit):
    first = replay_growth(conversation, "approximate", limit=limit).first_over_limit
    return None if first is None else first.ai_index


def first_over_constant(conversation, limit):  # hostile: the question's 20
    return 20


def first_over_lookup(conversation, limit):  # hostile: 20 for the question's limit, never over otherwise
    return 20 if limit == 2000 else None


def first_over_long_chat(conversation, limit):  # hostile: measures long_chat whatever it is given
    from course_utils.core.samples import load_conversation

    return first_over(load_conversation("long_chat"), limit)


def first_over_fixed_limit(conversation, limit):  # hostile: the question's 2000 whatever it is given
    return first_over(conversation, 2000)


def first_over_running_total(conversation, limit):  # hostile: the cumulative total against the limit
    rows = replay_growth(conversation, "approximate").rows
    return next((row.call for row in rows if row.cumulative_sent_tokens > limit), None)


def first_over_dummy(conversation, limit):  # hostile: another counter
    first = replay_growth(conversation, "dummy", limit=limit).first_over_limit
    return None if first is None else first.call


FIRST_OVER = [(first_over, OK), (first_over_loop, OK),
              (first_over_at_limit, NO), (first_over_position, NO), (first_over_constant, NO), (first_over_lookup, NO),
              (first_over_long_chat, NO), (first_over_fixed_limit, NO), (first_over_running_total, NO),
              (first_over_dummy, NO), (20, NO)]


@pytest.mark.parametrize("answer, status", FIRST_OVER, ids=_name)
def test_ex01_q3_first_over(answer, status):
    import matplotlib.pyplot as plt

    report = _long_chat()
    try:
        for _n in range(2):  # each check draws its own limits and conversations
            result = ex01.q3.check(report, _figure(report), answer)
            assert (result.status == status) if status is OK else result.status in BAD, result.message
    finally:
        plt.close("all")


def test_ex01_q3_report_and_figure():
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    report = _long_chat()
    fig = _figure(report)
    try:
        assert ex01.q3.check(report, fig, first_over).status == OK
        rows = [
            (_long_chat(limit=4000), fig), (_long_chat(counter="dummy"), fig), (_long_chat(policy=_trim_1000), fig),
            (report, Figure()), (report, "figure"), ("report", fig), (..., fig), (report, ...),
        ]
        for given_report, given_fig in rows:
            result = ex01.q3.check(given_report, given_fig, first_over)
            assert result.status in BAD, result.message
    finally:
        plt.close("all")


def _trim_1000(history):
    return trim_messages(history, max_tokens=1000, token_counter="approximate", strategy="last", start_on="human",
                         include_system=True)


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
