"""Exercise 03: trimming walkthrough (``exercises/03_..._exercise.ipynb``, after ``notebooks/03_trimming_walkthrough.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex03``.

Questions 1 to 3 are data (:class:`~course_utils.checks.questions.CodeQuestion`): question 1's one case is the
exercise conversation counted by hand; questions 2 and 3 run the learner's function on the lesson's conversations
and on conversations and budgets drawn when the check runs (on, just under and around each edge), each with the
rule the question states and the known mistakes that explain a failure.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_core.messages.utils import count_tokens_approximately

from course_utils.checks.questions import Case, ChoiceQuestion, CodeQuestion, Mistake, Rule
from course_utils.checks.reason_lists import EX03_Q4
from course_utils.checks.kinds import (
    learner_message_list,
    counts_of,
    same_messages,
    snapshot,
    random_conversation,
    random_costs,
)
from course_utils.checks.spies import names_called, watching
from course_utils.core.i18n import _
from course_utils.checks.machinery import message_ids, short_list, describe, Exercise, Question
from course_utils.window.sequences import orphaned_tool_messages, safe_trim_kwargs
from course_utils.window.trimming import table_token_counter

ex03 = Exercise("03", "Trimming walkthrough", "03_trimming_walkthrough")

EX03_COSTS = {"h1": 35, "a1": 80, "h2": 45, "a2": 25, "h3": 60, "a3": 40}
EX03_BUDGET = 175


def ex03_conversation() -> list[BaseMessage]:
    """The six messages of exercise 03, question 1 (their costs are in EX03_COSTS)."""
    return [
        HumanMessage("Can you recommend a day trip from Lisbon?", id="h1"),
        AIMessage("Sintra is the classic: palaces, gardens and a castle, 40 minutes by train.", id="a1"),
        HumanMessage("How do I get there?", id="h2"),
        AIMessage("Take the train from Rossio station.", id="a2"),
        HumanMessage("Is one day enough to see the main palaces?", id="h3"),
        AIMessage("Yes, if you pick two: Pena and Quinta da Regaleira.", id="a3"),
    ]


def ids_answer(q: Question, value: Any, name: str) -> list[str]:
    """A learner's answer that is a list of message ids, as a list of strings (or stop saying what is wrong).

    Shared with exercise 04, whose first question asks for ids too.
    """
    q.need(value, name)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        q.stop(q.wrong(_("`{name}` should be a list of message ids like [\"h1\", \"a1\"], got "
                         "{describe}.").format(name=name, describe=describe(value))))
    ids = []
    for item in value:
        if isinstance(item, BaseMessage):
            ids.append(item.id)
        elif isinstance(item, str):
            ids.append(item.strip())
        else:
            q.stop(q.wrong(_("`{name}` should hold message ids (strings), but it holds {describe}.").format(name=name, describe=describe(item))))
    return ids


def _q1_prepare(q, answers):
    (kept_ids,) = answers
    ids = ids_answer(q, kept_ids, "kept_ids")
    unknown = [i for i in ids if i not in EX03_COSTS]
    if unknown:
        q.stop(q.wrong(_("{unknown} are not ids of the conversation; use {list}.").format(
            unknown=unknown, list=list(EX03_COSTS))))
    return (ids,)


def _q1_trim(strategy: str) -> list[str]:
    counter = table_token_counter(EX03_COSTS)
    return message_ids(trim_messages(ex03_conversation(), max_tokens=EX03_BUDGET, token_counter=counter,
                                     strategy=strategy))


def _q1_cost(ids) -> int:
    return sum(EX03_COSTS[i] for i in ids)


def _q1_too_early(ids) -> bool:
    """A run of the newest messages that stops before the first one that does not fit."""
    right = _q1_trim("last")
    return 0 < len(ids) < len(right) and ids == right[-len(ids):]


Q1 = CodeQuestion(
    "trim by hand",
    ("kept_ids",),
    hints=(
        "Count from the newest message back: 40 <= 175; 40 + 60 = 100; ... and stop at the first message "
        "that does not fit.",
        "Write the kept messages in chronological order, oldest first, as trim_messages returns them.",
    ),
    prepare=_q1_prepare,
    cases=lambda rng: [Case(_("the exercise conversation and max_tokens={budget}").format(budget=EX03_BUDGET))],
    run=lambda q, answers, case: answers[0],
    rules=(
        Rule("what trim_messages keeps", lambda ids, case: ids == _q1_trim("last"),
             "trim_messages keeps a run of the newest messages: count back from a3 and stop at the first message "
             "that does not fit."),
    ),
    mistakes=(
        Mistake("newest first", "those are the right messages, newest first. trim_messages returns the kept "
                "messages in chronological order (oldest first).", lambda ids, case: ids == _q1_trim("last")[::-1]),
        Mistake("strategy first", "that is strategy='first' (keep from the start). strategy='last' keeps the newest "
                "messages, counting from the end.", lambda ids, case: ids == _q1_trim("first")),
        Mistake("over the budget", "those cost more than the budget of 175 tokens.",
                lambda ids, case: _q1_cost(ids) > EX03_BUDGET),
        Mistake("stopped too early", "you stopped too early: the next message back still fits. Stop only when a "
                "message does not fit.", lambda ids, case: _q1_too_early(ids)),
        Mistake("out of order", "keep the messages in the conversation's order.",
                lambda ids, case: sorted(ids, key=list(EX03_COSTS).index) != ids),
    ),
    praise="from the end: 40 <= 175; 40 + 60 = 100; 100 + 25 = 125; 125 + 45 = 170; 170 + 80 = 250 > 175, stop. "
           "Kept in chronological order: h2, a2, h3, a3.",
    seeds=1,  # a count by hand: the function is question 2
)
Q1.register(ex03)


def _greedy_last(messages, max_tokens, counter, *, strict=False, skip=False):
    kept, total = [], 0
    for message in reversed(messages):
        cost = counter([message])
        fits = total + cost < max_tokens if strict else total + cost <= max_tokens
        if fits:
            kept.append(message)
            total += cost
        elif not skip:
            break
    return list(reversed(kept))


class _CounterMisuse(TypeError):
    """The learner called the token counter with something other than a list of messages."""


def _list_counter(counter):
    """``counter`` as the learner's function receives it: it refuses anything but a list of messages.

    Called with one message, a list counter would iterate over the message's
    fields and fail deep inside the package (``'tuple' object has no
    attribute 'id'``); this says what was wrong instead.
    """

    def token_counter(messages):
        if isinstance(messages, BaseMessage):
            raise _CounterMisuse(_("token_counter was given one {kind}, not a list").format(kind=type(messages).__name__))
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence) or not all(
                isinstance(m, BaseMessage) for m in messages):
            raise _CounterMisuse(_("token_counter was given {value}, not a list of messages").format(
                value=describe(messages)))
        return counter(messages)

    return token_counter


def _explain_counter_misuse(exc: BaseException, about: str) -> str | None:
    if isinstance(exc, _CounterMisuse):
        return _("for {about}: {exc}. The token counter takes a *list* of messages and returns their cost: "
                 "`token_counter([message])` for one message, not `token_counter(message)`.").format(about=about, exc=exc)
    return None


def _ex03_q2_cases(rng: random.Random | None = None):
    from course_utils.window.tokens import dummy_token_counter
    from course_utils.window.trimming import SLIDE_BUDGET, SLIDE_COSTS, slide_conversation

    cases = [(_("the worked example's conversation"), slide_conversation(), SLIDE_BUDGET,
              table_token_counter(SLIDE_COSTS), "")]
    cases.append((_("the exercise conversation"), ex03_conversation(), EX03_BUDGET, table_token_counter(EX03_COSTS), ""))
    source = rng or random.SystemRandom()
    seeds = [source.randrange(2 ** 31) for _ in range(3)]  # made at check time
    for n, seed in enumerate(seeds):
        messages = random_conversation(seed, turns=5, system=n != 1)
        costs = random_costs(messages, seed)
        counter = table_token_counter(costs)
        values = [costs[m.id] for m in messages]
        suffix = [sum(values[-k:]) for k in range(1, len(values) + 1)]
        seeded = random.Random(seed)
        k = seeded.randint(2, len(values) - 2)
        budgets = {suffix[k - 1], suffix[k - 1] - 1, seeded.randint(0, suffix[-1]), 0, suffix[-1] + 7}
        # a big message followed by small ones: skipping it would wrongly keep the small ones
        budgets.add(suffix[k - 1] + min(values[: len(values) - k]) - 1)
        what = _("a generated conversation of {counts}").format(counts=counts_of(messages))
        for budget in sorted(budgets):
            if budget >= 0:
                cases.append((what, messages, budget, counter, _(" (costs {costs})").format(costs=short_list(values))))
    bob = random_conversation(34, turns=4, system=False, tools=False)
    cases.append((_("a 10-token-a-message conversation"), bob, 45, dummy_token_counter, ""))
    return cases


#: The rule exercise 03 q2 states, and what the check says when a function breaks it.
EX03_Q2_BY_HAND = ("the question asks you to write `keep_last_tokens` *without* calling `trim_messages`: your "
                   "function calls it, so it shows nothing of how the walk works. Walk `reversed(messages)` "
                   "yourself, adding `token_counter([message])`, and stop at the first message that does not fit.")


def _q2_prepare(q, answers):
    (fn,) = answers
    fn = q.need_function(fn, "keep_last_tokens")
    if "trim_messages" in names_called(fn):
        q.stop(q.wrong(_(EX03_Q2_BY_HAND)))
    return (fn,)


def _q2_cases(rng: random.Random) -> list[Case]:
    return [Case(_("{what} and max_tokens={budget}{costs}").format(what=what, budget=budget, costs=costs),
                 {"messages": messages, "budget": budget, "counter": counter})
            for what, messages, budget, counter, costs in _ex03_q2_cases(rng)]


def _q2_run(q, answers, case):
    (fn,) = answers
    messages, budget, counter = case["messages"], case["budget"], case["counter"]
    given = list(messages)
    before = snapshot(given)
    with watching(fn) as seen:
        returned = q.call(fn, given, budget, _list_counter(counter), about=case.label, explain=_explain_counter_misuse)
    if seen.trim_calls:
        q.stop(q.wrong(_(EX03_Q2_BY_HAND)))
    got = learner_message_list(q, returned, "keep_last_tokens")
    if snapshot(given) != before:
        q.stop(q.wrong(_("for {about} your function changed the list it was given (now {value}...). Walk "
                         "`reversed(messages)` instead of reversing it in place: the caller's history must stay as "
                         "it was.").format(about=case.label, value=message_ids(given)[:4])))
    return {"got": got, "right": trim_messages(messages, max_tokens=budget, token_counter=counter, strategy="last")}


def _q2_kept(test):
    """A known mistake: the learner kept ``test(case)``'s messages, which are not the right ones."""
    return lambda obs, case: same_messages(obs["got"], test(case)) and not same_messages(obs["got"], obs["right"])


Q2 = CodeQuestion(
    "keep_last_tokens by hand",
    ("keep_last_tokens",),
    hints=(
        "Walk `reversed(messages)`, adding `token_counter([message])`; stop at the first message that would "
        "take the total over `max_tokens` (equal is fine).",
        "You collected the messages newest first: return them in chronological order, without changing the "
        "list you were given.",
    ),
    prepare=_q2_prepare,
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("what trim_messages keeps", lambda obs, case: same_messages(obs["got"], obs["right"]),
             "for {case}: trim_messages keeps {right}, you kept {got}.",
             lambda obs, case: {"right": message_ids(obs["right"]), "got": message_ids(obs["got"])}),
    ),
    mistakes=(
        Mistake("newest first", "right messages, newest first: return them in chronological order.",
                lambda obs, case: same_messages(obs["got"], list(reversed(obs["right"])))
                and not same_messages(obs["got"], obs["right"])),
        Mistake("strictly under", "off by one: a message that brings the total to exactly max_tokens still fits "
                "(use <=, not <).",
                _q2_kept(lambda case: _greedy_last(case["messages"], case["budget"], case["counter"], strict=True))),
        Mistake("skipping", "you skipped a message that did not fit and kept going. trim_messages keeps a run of the "
                "newest messages: it stops at the first one that does not fit, so nothing older sneaks in past a gap.",
                _q2_kept(lambda case: _greedy_last(case["messages"], case["budget"], case["counter"], skip=True))),
        Mistake("strategy first", "that is strategy='first' (the oldest messages). Keep the newest.",
                _q2_kept(lambda case: trim_messages(case["messages"], max_tokens=case["budget"],
                                                    token_counter=case["counter"], strategy="first"))),
        Mistake("over the budget", "what you kept costs more than max_tokens.",
                lambda obs, case: sum(case["counter"]([m]) for m in obs["got"]) > case["budget"]),
    ),
    praise="your function agrees with `trim_messages(strategy=\"last\")` on the worked example, the exercise's, and "
           "conversations generated when the check ran, with budgets on and around the edges.",
    seeds=1,  # three conversations drawn now, each at six budgets
)
Q2.register(ex03)


def _unanswered(messages: Sequence[BaseMessage]) -> list[AIMessage]:
    """AIMessages with a tool call whose ToolMessage is not in the list."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [m for m in messages if isinstance(m, AIMessage) and any(c["id"] not in answered for c in m.tool_calls)]


def _safe_reference(messages, max_tokens):
    return trim_messages(messages, **safe_trim_kwargs(max_tokens, count_tokens_approximately))


def _ex03_q3_cases(rng: random.Random | None = None):
    from course_utils.core.samples import load_conversation

    agent = load_conversation("agent_tools")
    # 1200: trimming without start_on keeps ToolMessage at-09 without its AIMessage (with or without
    # include_system); 600 and 550 show the trap too, 300 and 800 do not.
    cases = [(_("the agent_tools conversation"), agent, cap) for cap in (1200, 600, 550, 300, 800, 1500)]
    source = rng or random.SystemRandom()
    for seed in [source.randrange(2 ** 31) for _draw in range(2)]:  # made at check time
        messages = random_conversation(seed, turns=6, system=True)
        total = count_tokens_approximately(messages)
        for share in (3, 2):
            cases.append((_("a generated agent conversation of {counts}").format(counts=counts_of(messages)), messages,
                          total // share))
    return cases


def _q3_cases(rng: random.Random) -> list[Case]:
    return [Case(_("{what} and max_tokens={budget}").format(what=what, budget=cap), {"messages": messages, "cap": cap})
            for what, messages, cap in _ex03_q3_cases(rng)]


def _q3_prepare(q, answers):
    (fn,) = answers
    return (q.need_function(fn, "safe_trim"),)


def _q3_run(q, answers, case):
    (fn,) = answers
    messages, cap = case["messages"], case["cap"]
    given = list(messages)
    before = snapshot(given)
    got = learner_message_list(q, q.call(fn, given, cap, about=case.label), "safe_trim")
    if snapshot(given) != before:
        q.stop(q.wrong(_("for {about} `safe_trim` changed the list it was given; trim a copy, never the "
                         "history.").format(about=case.label)))
    return {"got": got, "right": _safe_reference(messages, cap)}


def _orphan_caller_kept(obs) -> bool:
    orphans = orphaned_tool_messages(obs["got"])
    return bool(orphans) and any(isinstance(m, AIMessage) and any(c["id"] == orphans[0].tool_call_id
                                                                   for c in m.tool_calls) for m in obs["got"])


def _body(messages):
    return [m for m in messages if not isinstance(m, SystemMessage)]


def _kept_the_start(obs, case) -> bool:
    first = trim_messages(case["messages"], max_tokens=case["cap"], token_counter=count_tokens_approximately,
                          strategy="first")
    body = _body(obs["got"])
    return bool(body) and same_messages(body, _body(first)) and not same_messages(obs["got"], obs["right"])


Q3 = CodeQuestion(
    "repair the orphaned ToolMessage",
    ("safe_trim",),
    hints=(
        "Keep `strategy=\"last\"` and the budget: the fix is where the kept list may *start*.",
        "`start_on=\"human\"` drops messages from the front of the kept list until it begins with a human "
        "message; `include_system=True` keeps the system prompt in front.",
    ),
    prepare=_q3_prepare,
    cases=_q3_cases,
    run=_q3_run,
    rules=(
        Rule("the safe trim", lambda obs, case: same_messages(obs["got"], obs["right"]),
             "for {case} you kept {got}; trim_messages(strategy=\"last\", start_on=\"human\", include_system=True) "
             "with the approximate counter keeps {right}.",
             lambda obs, case: {"got": short_list(message_ids(obs["got"]), 6),
                                "right": short_list(message_ids(obs["right"]), 6)}),
    ),
    mistakes=(
        Mistake("over the budget", "what you kept is over max_tokens. Keep the budget as given; fix the start of the "
                "kept list instead.",
                lambda obs, case: bool(obs["got"]) and count_tokens_approximately(obs["got"]) > case["cap"]),
        Mistake("out of order", "a ToolMessage does not come right after the AIMessage that made its call. A tool "
                "result must follow its call: keep a run of the newest messages, in the conversation's order.",
                lambda obs, case: _orphan_caller_kept(obs)),
        Mistake("orphan", "a ToolMessage you kept answers a tool call whose AIMessage was cut. That is the orphan "
                "trap: make the kept list start on a human message.",
                lambda obs, case: bool(orphaned_tool_messages(obs["got"]))),
        Mistake("tool results removed", "an AIMessage you kept calls a tool, but its ToolMessage is not in the list. "
                "You removed the tool results; providers reject a tool call without its answer. Keep whole tool "
                "rounds and fix where the kept list starts instead.", lambda obs, case: bool(_unanswered(obs["got"]))),
        Mistake("no system prompt", "the system prompt was dropped. Keep it with `include_system=True`.",
                lambda obs, case: isinstance(case["messages"][0], SystemMessage)
                and not any(isinstance(m, SystemMessage) for m in obs["got"])),
        Mistake("starts on an AIMessage", "it starts with an AIMessage. Chat models expect the first message after "
                "the system prompt to be a human one: `start_on=\"human\"`.",
                lambda obs, case: bool(_body(obs["got"])) and isinstance(_body(obs["got"])[0], AIMessage)),
        Mistake("the start", "that is the *start* of the conversation (strategy='first'). A chatbot must keep the "
                "newest messages, the user's latest question among them.", _kept_the_start),
    ),
    praise="no orphaned ToolMessage on the agent conversation at any budget, nor on agent conversations generated "
           "when the check ran: every kept list starts with the system prompt and a human message.",
    seeds=1,  # two agent conversations drawn now, each at two budgets
)
Q3.register(ex03)


EX03_Q4_OPTIONS = {
    "a": "The chatbot now keeps the oldest messages and drops the newest, including the user's latest question.",
    "b": "Nothing: strategy='first' can never start on a ToolMessage, so the trap is gone.",
    "c": "strategy='first' is not allowed together with a token counter.",
    "d": "It costs more tokens than strategy='last'.",
}


_ex03_q4 = ChoiceQuestion(
    "a teammate's fix",
    hints=(
        "What does strategy='first' keep when the history is over the budget?",
        "Which message must a chatbot always send, whatever else it drops?",
    ),
    options=EX03_Q4_OPTIONS,
    answer="a",
    feedback={
        "b": "it does avoid the orphan, but look at what it keeps: the oldest messages. The model never sees "
        "the latest question.",
        "c": "both strategies take the same token_counter; the problem is what strategy='first' keeps.",
        "d": "both strategies keep at most max_tokens; the problem is *which* messages they keep.",
    },
    statements=EX03_Q4,
    praise="strategy='first' keeps the oldest messages, so the model never sees the newest question. "
    "Keep strategy='last' and fix the boundary with start_on='human'.",
).register(ex03)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex03.q1``, ``ex03.questions``), as the package's ``ex03`` does."""
    return getattr(ex03, name)
