"""Exercise 05: threshold selection (``exercises/05_..._exercise.ipynb``, after ``notebooks/05_threshold_selection.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex05``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage, trim_messages

from course_utils.checks.ex04 import ex04_trim
from course_utils.checks.questions import (
    Case,
    CodeQuestion,
    Mistake,
    Rule,
    Statements,
    grade_statements,
    own_words,
    with_own_words,
)
from course_utils.checks.reason_lists import EX05_Q4 as EX05_Q4_REASONS
from course_utils.checks.kinds import counts_of, snapshot, random_conversation
from course_utils.checks.machinery import describe, ltr, Exercise
from course_utils.core.i18n import _
from course_utils.window.sequences import safe_trim_kwargs

ex05 = Exercise("05", "Threshold selection", "05_threshold_selection")

EX05_Q1 = {"limit": 16384, "system": 900, "user": 600, "reserve": 2000, "margin": 800}
#: The worked example of lesson 05 (L, S, U, R, M): H_max = 5892. Each check reproduces it first.
EX05_LESSON = (8192, 500, 300, 1200, 300)
#: Question 2: the reserve the question raises R to, and the lesson's own step (R = 1200 -> 1800: 5892 -> 5292).
EX05_Q2_RESERVE = 3000
EX05_LESSON_RESERVE = 1800
#: Context windows the scenarios drawn at check time use.
EX05_WINDOWS = (4096, 8192, 16384, 32768, 128000, 200000)


def _call_text(name: str, parts: Sequence[int]) -> str:
    """``h_max(8192, 500, 300, 1200, 300)``, left to right in a right-to-left line."""
    return ltr(f"{name}({', '.join(str(p) for p in parts)})")


def _ceiling(limit: int, system: int, user: int, reserve: int, margin: int) -> int:
    """The reference: H_max = L - S - U - R - M.

    >>> _ceiling(8192, 500, 300, 1200, 300)
    5892
    """
    return limit - system - user - reserve - margin


def _drawn_parts(rng: random.Random) -> tuple[int, int, int, int, int]:
    """A model and its fixed parts drawn now: every part at least 1, and room left for the history."""
    limit = rng.choice(EX05_WINDOWS)
    system, user = rng.randint(1, limit // 6), rng.randint(1, limit // 6)
    reserve = rng.randint(1, limit // 6)
    margin = rng.randint(1, limit // 10)
    return limit, system, user, reserve, margin


def _whole_number(q, fn, parts, about, name):
    """The learner's function on ``parts``: a whole number, or stop saying what came back."""
    got = q.call(fn, *parts, about=about)
    if got is None:
        q.stop(q.wrong(_("`{about}` returned None: `{name}` should return a number of tokens (`return ...`).")
                       .format(about=about, name=name)))
    if isinstance(got, bool) or not isinstance(got, (int, float)) or (isinstance(got, float) and not got.is_integer()):
        q.stop(q.wrong(_("`{about}` returned {value}; `{name}` should return a whole number of tokens.").format(
            about=about, value=describe(got), name=name)))
    return int(got)


def _function_answer(name: str, signature: str):
    """``prepare`` for a question whose answer is a function ``signature``: a number typed by hand is refused."""
    def prepare(q, answers):
        (fn,) = answers
        q.need(fn, name)
        if not callable(fn):
            q.stop(q.wrong(_("`{name}` should be a function `{signature}`: the check runs it on other models "
                             "too, so a number typed by hand cannot pass; got {value}.").format(
                                 name=name, signature=signature, value=describe(fn))))
        return (q.need_function(fn, name),)
    return prepare


# --- question 1: H_max as a function -------------------------------------------------------------------


def _q1_cases(rng: random.Random) -> list[Case]:
    """The lesson's worked example first, then the question's model, then models and parts drawn now."""
    parts = [EX05_LESSON, tuple(EX05_Q1.values()), *(_drawn_parts(rng) for _n in range(3))]
    return [Case(_call_text("h_max", p), {"parts": p}) for p in parts]


def _q1_run(q, answers, case):
    (fn,) = answers
    return {"got": _whole_number(q, fn, case["parts"], case.label, "h_max"), "right": _ceiling(*case["parts"])}


def _q1_forgot(index: int):
    """The answer that leaves out one part (1: S, 2: U, 3: R, 4: M)."""
    return lambda obs, case: obs["got"] == obs["right"] + case["parts"][index] != obs["right"]


def _typed(obs, case, known) -> bool:
    """The learner's number is one of the worked examples' results, on a scenario where it is not right."""
    return obs["got"] != obs["right"] and obs["got"] in known


Q1 = CodeQuestion(
    "compute H_max",
    ("h_max",),
    hints=(
        "H_max = L - S - U - R - M: one subtraction per fixed part, the margin last.",
        "`return limit - system - user - reserve - margin`. For the lesson's example: 8192 - 500 = 7692; continue "
        "with U, R and M.",
    ),
    prepare=_function_answer("h_max", "h_max(limit, system, user, reserve, margin)"),
    cases=_q1_cases,
    run=_q1_run,
    rules=(
        Rule("H_max = L - S - U - R - M", lambda obs, case: obs["got"] == obs["right"],
             "`{case}` returned {got}; H_max = L - S - U - R - M = {right}.",
             lambda obs, case: {"got": obs["got"], "right": obs["right"]}),
    ),
    mistakes=(
        Mistake("a number typed in", "your function returns the worked example's number whatever it is given: "
                "compute H_max from its arguments.", lambda obs, case: _typed(obs, case, (5892, 12084))),
        Mistake("no margin", "that is B: you forgot the safety margin M.", _q1_forgot(4)),
        Mistake("no reserve", "you forgot the reply reserve R.", _q1_forgot(3)),
        Mistake("no user input", "you forgot the user input U.", _q1_forgot(2)),
        Mistake("no system prompt", "you forgot the system prompt S.", _q1_forgot(1)),
        Mistake("margin added", "the margin is taken off, not added.",
                lambda obs, case: obs["got"] == obs["right"] + 2 * case["parts"][4]),
        Mistake("the fixed parts", "that is what the fixed parts use; H_max is what is left of L.",
                lambda obs, case: obs["got"] == sum(case["parts"][1:])),
    ),
    praise="H_max = L - S - U - R - M on the lesson's example (8192 - 500 - 300 - 1200 - 300 = 5892), on the "
           "question's model (16384 - 900 - 600 - 2000 - 800 = 12084) and on models drawn when the check ran.",
    seeds=1,  # three models drawn now, after the two worked examples
)
Q1.register(ex05)


# --- question 2: what a change of R does to H_max, as a function --------------------------------------------


def _q2_cases(rng: random.Random) -> list[Case]:
    """The lesson's step (R 1200 -> 1800) first, the question's (2000 -> 3000), then R drawn up, down and unchanged."""
    scenarios = [(*EX05_LESSON, EX05_LESSON_RESERVE), (*EX05_Q1.values(), EX05_Q2_RESERVE)]
    for direction in (1, -1, 0):
        limit, system, user, reserve, margin = _drawn_parts(rng)
        step = direction * rng.randint(1, max(1, reserve - 1) if direction < 0 else limit // 8)
        scenarios.append((limit, system, user, reserve, margin, reserve + step))
    rng.shuffle(scenarios[2:])
    return [Case(_call_text("h_max_change", s), {"parts": s}) for s in scenarios]


def _q2_run(q, answers, case):
    (fn,) = answers
    limit, system, user, reserve, margin, new_reserve = case["parts"]
    old = _ceiling(limit, system, user, reserve, margin)
    new = _ceiling(limit, system, user, new_reserve, margin)
    return {"got": _whole_number(q, fn, case["parts"], case.label, "h_max_change"), "right": new - old,
            "old": old, "new": new}


Q2 = CodeQuestion(
    "if R grows",
    ("h_max_change",),
    hints=(
        "R appears in H_max = L - S - U - R - M with a minus sign.",
        "Work out H_max with the old reserve and with the new one (your `h_max` does it); the change is new "
        "minus old.",
    ),
    prepare=_function_answer("h_max_change", "h_max_change(limit, system, user, reserve, margin, new_reserve)"),
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("new minus old", lambda obs, case: obs["got"] == obs["right"],
             "`{case}` returned {got}; H_max goes from {old} to {new}, a change of {right}.",
             lambda obs, case: {"got": obs["got"], "right": obs["right"], "old": obs["old"], "new": obs["new"]}),
    ),
    mistakes=(
        Mistake("a number typed in", "your function returns the worked example's change whatever it is given: "
                "compute it from its arguments.", lambda obs, case: _typed(obs, case, (-600, -1000))),
        Mistake("always down", "H_max goes up when R goes down: compute the change, don't assume its sign.",
                lambda obs, case: obs["right"] > 0 and obs["got"] == -obs["right"]),
        Mistake("the sign", "the sign: more room reserved for the reply leaves *less* for the history, so H_max "
                "goes down when R goes up (and up when R goes down).",
                lambda obs, case: obs["right"] != 0 and obs["got"] == -obs["right"]),
        Mistake("the new H_max", "that is the new H_max; the question asks for the change (new minus old).",
                lambda obs, case: obs["got"] == obs["new"] != obs["right"]),
        Mistake("the old H_max", "that is the old H_max; the question asks for the change (new minus old).",
                lambda obs, case: obs["got"] == obs["old"] != obs["right"]),
    ),
    praise="the change is new minus old: H_max shrinks token for token as R grows (the lesson's 5892 -> 5292 for "
           "R = 1800, the question's 12084 -> 11084 for R = 3000), grows as R shrinks, and stays when R does.",
    seeds=1,  # three scenarios drawn now, after the two worked examples
)
Q2.register(ex05)


def _ex05_reference(messages, fact_id, max_tokens):
    from course_utils.window.growth import replay_growth

    sent_lists = []

    def policy(history):
        sent = ex04_trim(history, max_tokens)
        sent_lists.append(sent)
        return sent

    report = replay_growth(messages, "approximate", policy=policy)
    fact_index = next(i for i, m in enumerate(messages) if m.id == fact_id)
    forgotten = None
    for row, sent in zip(report.rows, sent_lists):
        if row.ai_index > fact_index and fact_id not in {m.id for m in sent}:
            forgotten = row.call
            break
    return report.total_sent_tokens, forgotten, report, sent_lists


def _fresh_seeds(rng: random.Random | None, count: int = 2) -> list[int]:
    """Seeds made at check time (a fresh random source unless one is given): a remembered answer does not fit."""
    source = rng or random.Random(random.SystemRandom().randrange(2 ** 32))
    return [source.randrange(1000, 1_000_000) for _n in range(count)]


def _ex05_q3_cases(rng: random.Random | None = None):
    """long_chat at caps below and far over what it needs, and conversations generated now (two seeds)."""
    from course_utils.core.samples import load_conversation

    chat = load_conversation("long_chat")
    cases = [
        ("long_chat", chat, "lc-02", 1000),
        ("long_chat", chat, "lc-10", 2000),
        ("long_chat", chat, "lc-02", 5000),
        (_("the first 31 messages of long_chat"), chat[:31], "lc-08", 400),
    ]
    seeds = _fresh_seeds(rng)
    for seed, tools, cap in zip(seeds * 2, (False, True, True, False), (250, 250, 400, 180)):
        messages = random_conversation(seed, turns=9, system=True, tools=tools)
        humans = [m.id for m in messages if isinstance(m, HumanMessage)]
        cases.append((_("a generated conversation of {counts}").format(counts=counts_of(messages)), messages,
                      humans[1], cap))
    return cases


def _q3_prepare(q, answers):
    (fn,) = answers
    return (q.need_function(fn, "cost_and_forgetting"),)


def _q3_cases(rng: random.Random) -> list[Case]:
    return [Case(_("{what}, fact {fact_id!r}, max_tokens={cap}").format(what=what, fact_id=fact_id, cap=cap),
                 {"messages": messages, "fact_id": fact_id, "cap": cap})
            for what, messages, fact_id, cap in _ex05_q3_cases(rng)]


def _q3_run(q, answers, case):
    """The learner's pair on one case, beside the replay's; stops when the answer's shape is wrong."""
    (fn,) = answers
    about = case.label
    given = list(case["messages"])
    before = snapshot(given)
    got = q.call(fn, given, case["fact_id"], case["cap"], about=about)
    if snapshot(given) != before:
        q.stop(q.wrong(_("for {about}: your function changed the conversation it was given.").format(about=about)))
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        q.stop(q.wrong(_("return a pair `(total_sent, forgotten_at)`; for {about} you returned {value}.").format(
            about=about, value=describe(got))))
    if isinstance(got[0], bool) or not isinstance(got[0], int):
        q.stop(q.wrong(_("`total_sent` should be an int, got {value} for {about}.").format(
            value=describe(got[0]), about=about)))
    total, forgotten, report, _sent = _ex05_reference(case["messages"], case["fact_id"], case["cap"])
    return {"total": got[0], "forgotten": got[1], "ref_total": total, "ref_forgotten": forgotten, "report": report}


def _replayed_total(case, **trim) -> int:
    from course_utils.window.growth import replay_growth

    if not trim:
        return replay_growth(case["messages"], "approximate").total_sent_tokens
    return replay_growth(case["messages"], "approximate", policy=lambda h: trim_messages(
        h, max_tokens=case["cap"], token_counter="approximate", strategy="last", **trim)).total_sent_tokens


def _total_right(obs) -> bool:
    return obs["total"] == obs["ref_total"]


def _forgotten_slip(obs, offset: int) -> bool:
    return _total_right(obs) and obs["ref_forgotten"] is not None and obs["forgotten"] == obs["ref_forgotten"] + offset


Q3 = CodeQuestion(
    "what a threshold costs and forgets",
    ("cost_and_forgetting",),
    hints=(
        "Let `replay_growth` do the replay: pass `policy=lambda h: trim_messages(h, max_tokens=max_tokens, "
        "token_counter=\"approximate\", strategy=\"last\", start_on=\"human\", include_system=True)`; "
        "`report.total_sent_tokens` is the cost.",
        "For forgetting, go through `report.rows`: for the calls whose history contains the fact "
        "(`row.ai_index` after it), trim `messages[:row.ai_index]` and look for the fact's id.",
    ),
    prepare=_q3_prepare,
    cases=_q3_cases,
    run=_q3_run,
    rules=(
        Rule("the total", lambda obs, case: _total_right(obs),
             "{case}: the total sent should be {total}, you returned {got}.",
             lambda obs, case: {"total": obs["ref_total"], "got": obs["total"]}),
        Rule("the call that forgets", lambda obs, case: obs["forgotten"] == obs["ref_forgotten"],
             "{case}: {fact_id!r} is first missing from call {forgotten}, you said {value}.",
             lambda obs, case: {"fact_id": case["fact_id"], "forgotten": obs["ref_forgotten"],
                                "value": describe(obs["forgotten"])}),
    ),
    mistakes=(
        Mistake("everything", "your total is what sending everything costs; with the cap each call sends only the "
                "trimmed list.", lambda obs, case: obs["total"] == _replayed_total(case)),
        Mistake("no system prompt", "your total leaves out the system prompt: trim with include_system=True, as "
                "the question says.", lambda obs, case: obs["total"] == _replayed_total(case, start_on="human")),
        Mistake("one call", "that total is one call; add up what every call sends.",
                lambda obs, case: not _total_right(obs) and obs["total"] in (
                    obs["report"].rows[-1].history_tokens, obs["report"].rows[-1].sent_tokens)),
        Mistake("off by one", "off by one: calls are numbered from 1, and the first call without the fact is the "
                "one to return.", lambda obs, case: _forgotten_slip(obs, -1)),
        Mistake("a position", "that is the position of the AIMessage; return the call number, `row.call`.",
                lambda obs, case: _total_right(obs) and obs["ref_forgotten"] is not None
                and obs["forgotten"] == obs["report"].rows[obs["ref_forgotten"] - 1].ai_index),
        Mistake("never forgotten", "the fact is dropped at a call, but you say it never is. Look in what each call "
                "*sends* (the trimmed list), not in the stored history.",
                lambda obs, case: _total_right(obs) and obs["forgotten"] is None and obs["ref_forgotten"] is not None),
        Mistake("always sent", "every call still sends the fact: return None for `forgotten_at`.",
                lambda obs, case: _total_right(obs) and obs["ref_forgotten"] is None and obs["forgotten"] is not None),
    ),
    praise="cost and forgetting match a replay with the trimming policy, on long_chat at three caps "
           "and on generated conversations. A lower cap costs less and forgets sooner.",
)
Q3.register(ex05)


EX05_Q4 = {"limit": 8192, "system": 1100, "user": 300, "longest_reply": 700, "counter_error": 0.05}
EX05_Q4_KEYS = ("reserve", "margin", "include_system", "max_tokens", "start_on")

def ex05_tool_tokens() -> int:
    """The agent's tool schemas (lesson 06's three trip tools), counted as the course counts them:
    ``count_tokens_approximately([], tools=...)``. They are sent on every call, outside ``state["messages"]``."""
    from langchain_core.messages.utils import count_tokens_approximately

    from course_utils.agentic.agent_tools import TRIP_TOOLS

    return count_tokens_approximately([], tools=TRIP_TOOLS)


@ex05.question(
    "choose thresholds for an agent",
    "q4.check(plan, reasons, own_words)",
    hints=(
        "R must cover the longest reply you expect; M must cover the counter's error (5% of the window). "
        "The cap depends on the list you trim: the history alone has room H_max = L - S - U - R - M - T; the "
        "whole list, with the system prompt and the new input in it, has H_max + S + U = L - R - M - T, where T "
        "is the tool schemas: bind_tools sends them outside the messages, so trim_messages never counts them.",
        "A tool-using agent has ToolMessages in its history: which start_on avoids the orphan trap?",
    ),
)
def _ex05_q4(q, plan, reasons, own_words_text):
    written = own_words(q, own_words_text, EX05_Q4_REASONS)
    return with_own_words(q, _ex05_q4_marks(q, plan, reasons), written, EX05_Q4_REASONS)


_ex05_q4.spec = Statements.holder(EX05_Q4_REASONS)  # the statements and model answer, for the review queue

@dataclass(frozen=True)
class PlanSlip:
    """A known slip in question 4's plan: ``test(n)`` on the plan's numbers recognises it; ``message`` says it.

    ``whole_list`` limits it to a plan that trims the whole list (True), the history alone (False) or either
    (None). ``message`` is formatted with the numbers (L, S, U, R, M, T, cap, h_max, whole, right, ...).
    """

    name: str
    test: Callable[[Mapping[str, int]], bool]
    message: str
    whole_list: bool | None = None

    def spots(self, n: Mapping[str, Any]) -> bool:
        return (self.whole_list is None or self.whole_list == n["whole_list"]) and bool(self.test(n))


#: The reserve and margin the question's numbers allow, in order.
EX05_Q4_SIZES = (
    PlanSlip("reserve under the longest reply", lambda n: n["R"] < n["longest"],
             "reserve={R} is less than the longest reply ({longest}): those answers would be cut off or the call "
             "refused."),
    PlanSlip("reserve far over it", lambda n: n["R"] > 2 * n["longest"],
             "reserve={R} is more than twice the longest reply ({longest}): every token reserved and never used "
             "is taken from the history."),
    PlanSlip("margin under the counter's error", lambda n: n["M"] < n["low"],
             "margin={M} does not cover the counter's error: 5% of {L} is {low} tokens."),
    PlanSlip("margin far over it", lambda n: n["M"] > n["L"] // 5,
             "margin={M} is over 20% of the window: that much unused room costs history for no gain."),
)
#: The known wrong caps, in order; the first that recognises the plan explains it.
EX05_Q4_CAPS = (
    PlanSlip("tool schemas left out", lambda n: n["cap"] in (n["h_max"] + n["T"], n["whole"] + n["T"]),
             "max_tokens={cap} leaves out the tool schemas ({T} tokens, counted with "
             "`count_tokens_approximately([], tools=TRIP_TOOLS)`): bind_tools sends them with every call "
             "outside state[\"messages\"], so trim_messages never counts them. Subtract them from the "
             "cap: {right}."),
    PlanSlip("the whole window", lambda n: n["cap"] == n["L"],
             "max_tokens={cap} is the whole window; the list you trim gets only what R and M (and, "
             "for the history alone, S and U) leave."),
    PlanSlip("H_max for the whole list", lambda n: n["cap"] == n["h_max"],
             "max_tokens={cap} is H_max, the room for the history alone. With include_system=True "
             "the list you trim also holds the system prompt ({S}) and the new input ({U}), so its "
             "cap is H_max + S + U = L - R - M - T = {whole}; with H_max the history gets {SU} "
             "tokens less than it may use.", whole_list=True),
    PlanSlip("no margin, whole list", lambda n: n["cap"] == n["L"] - n["R"] - n["T"],
             "max_tokens={cap} is L - R - T, without the margin: use L - R - M - T = {whole}.", whole_list=True),
    PlanSlip("over, whole list", lambda n: n["cap"] > n["whole"],
             "max_tokens={cap} is more than L - R - M - T = {L} - {R} - {M} - {T} = {whole}: a full list "
             "would push the call over the window, into the room kept for the reply.", whole_list=True),
    PlanSlip("under, whole list", lambda n: n["cap"] < n["whole"],
             "max_tokens={cap} is below L - R - M - T = {whole} with your own R and M: the model "
             "forgets sooner than it has to. The list holds S and U too, so use L - R - M - T.", whole_list=True),
    PlanSlip("the whole list's cap for the history", lambda n: n["cap"] == n["whole"],
             "max_tokens={cap} is L - R - M - T, the cap for the whole list with the system prompt and "
             "the new input in it. With include_system=False you trim the history alone, so its cap "
             "is H_max = L - S - U - R - M - T = {h_max}: {cap} would let the history take the room of "
             "S and U and push the call over the window.", whole_list=False),
    PlanSlip("no margin, history", lambda n: n["cap"] == n["L"] - n["S"] - n["U"] - n["R"] - n["T"],
             "max_tokens={cap} is B, without the margin: use H_max = L - S - U - R - M - T = {h_max}.",
             whole_list=False),
    PlanSlip("over, history", lambda n: n["cap"] > n["h_max"],
             "max_tokens={cap} is more than H_max = {L} - {S} - {U} - {R} - {M} - {T} = {h_max}: a full "
             "history would push the call over the window.", whole_list=False),
    PlanSlip("under, history", lambda n: n["cap"] < n["h_max"],
             "max_tokens={cap} is below H_max = {h_max} with your own R and M: the model forgets "
             "sooner than it has to. Use H_max.", whole_list=False),
)


def _ex05_q4_plan(q, plan):
    """The plan's numbers, or stop with what is wrong about its shape."""
    q.need(plan, "plan")
    if not isinstance(plan, Mapping):
        q.stop(q.wrong(_("`plan` should be a dict with {keys}, got {value}.").format(
            keys=', '.join(EX05_Q4_KEYS), value=describe(plan))))
    missing = [k for k in EX05_Q4_KEYS if k not in plan]
    if missing:
        which = (_(" (`include_system` says which list you trim: True for the whole list, False for the history "
                   "alone)") if "include_system" in missing else "")
        q.stop(q.wrong(_("`plan` is missing {missing}{which}.").format(missing=missing, which=which)))
    for key in EX05_Q4_KEYS:
        if plan[key] is Ellipsis:
            q.stop(q.not_attempted(_("`plan[{key!r}]` is still `...`: fill it in.").format(key=key)))
    R, M, cap = (q.as_int(plan[k], f"plan[{k!r}]") for k in ("reserve", "margin", "max_tokens"))
    if not isinstance(plan["include_system"], bool):
        q.stop(q.wrong(_("`plan['include_system']` should be True (you trim the whole list: system prompt, "
                         "history and new input) or False (you trim the history alone), got {value}.").format(
            value=describe(plan["include_system"]))))
    L, S, U, longest, error = EX05_Q4.values()
    return {"L": L, "S": S, "U": U, "longest": longest, "low": int(L * error + 0.999), "R": R, "M": M, "cap": cap,
            "whole_list": plan["include_system"]}


def _ex05_q4_marks(q, plan, reasons):
    from course_utils.window.budget import history_budget

    n = _ex05_q4_plan(q, plan)
    for slip in EX05_Q4_SIZES:
        if slip.spots(n):
            return q.wrong(_(slip.message).format(**n))
    n["T"] = T = ex05_tool_tokens()
    n["h_max"] = h_max = history_budget(n["L"], n["S"], n["U"], n["R"], margin=n["M"]) - T
    n["whole"] = whole = h_max + n["S"] + n["U"]  # = L - R - M - T: the cap of a list that also holds S and U
    n["right"], n["SU"] = (whole if n["whole_list"] else h_max), n["S"] + n["U"]
    for slip in EX05_Q4_CAPS:
        if slip.spots(n):
            return q.wrong(_(slip.message).format(**n))
    R, M, longest, cap, whole_list = n["R"], n["M"], n["longest"], n["cap"], n["whole_list"]
    start_on = plan["start_on"]
    if start_on not in ("human", HumanMessage, ("human",), ["human"]):
        return q.wrong(_("start_on={start_on!r}: an agent's history holds ToolMessages; trimmed on a budget it can "
                         "start with one whose tool call was cut. start_on=\"human\" avoids that.").format(
            start_on=start_on))
    q.need(reasons, "reasons")
    wrong = grade_statements(q, reasons, EX05_Q4_REASONS)
    if wrong is not None:
        return wrong
    from course_utils.core.samples import load_conversation

    agent = load_conversation("agent_tools")
    if whole_list:
        kept = trim_messages(agent, **safe_trim_kwargs(cap, "approximate"))
        how = _("max_tokens = L - R - M - T = {whole} (H_max = {h_max}, plus S and U, which are in the list), so a "
                "full list still fits. With it the whole agent_tools conversation ({count} messages, system "
                "prompt included)").format(whole=whole, h_max=h_max, count=len(kept))
    else:
        kept = trim_messages(agent[1:], max_tokens=cap, token_counter="approximate", strategy="last",
                             start_on="human")
        how = _("max_tokens = H_max = {h_max}, so a full history still fits. With it the whole agent_tools "
                "history ({count} messages)").format(h_max=h_max, count=len(kept))
    return q.correct(_("R = {R} covers replies up to {longest}, M = {M} covers the 5% counting error, and {how} "
                       "is sent without an orphaned ToolMessage.").format(R=R, longest=longest, M=M, how=how))


# --- question 5: what a prompt cache serves (lesson 05b, sections 2 and 3) -----------------------------


def _ex05_cache_records(calls):
    from course_utils.window.costs import Call, message_key
    from course_utils.window.tokens import approximate_counter

    return [
        Call("turn", tuple(message_key(m) for m in sent), tuple(approximate_counter([m]) for m in sent), 0)
        for sent in calls
    ]


def _ex05_cache_reference(calls, minimum):
    """Tokens a prompt cache serves over ``calls`` (lists of messages) with a minimum prefix, by ``costs.cache_tokens``."""
    from course_utils.window.costs import cache_tokens

    records = _ex05_cache_records(calls)
    return sum(cache_tokens(call, records[:i], minimum).read for i, call in enumerate(records))


def _ex05_cache_mistakes(calls, minimum):
    """What common slips give: only the previous call, shared messages anywhere, whole calls, no minimum,
    and the minimum applied to the whole call instead of the shared prefix."""
    from course_utils.window.costs import cached_prefix_tokens
    from course_utils.window.tokens import approximate_counter

    def key(m):
        return (m.type, m.text)

    previous_only = anywhere = whole = 0
    for i, sent in enumerate(calls):
        if i == 0:
            continue
        before = calls[i - 1]
        n = 0
        while n < min(len(sent), len(before)) and key(sent[n]) == key(before[n]):
            n += 1
        prefix = sum(approximate_counter([m]) for m in sent[:n])
        previous_only += prefix if prefix >= minimum else 0
        seen = {key(m) for earlier in calls[:i] for m in earlier}
        shared = sum(approximate_counter([m]) for m in sent if key(m) in seen)
        anywhere += shared if shared >= minimum else 0
        if any(key(sent[0]) == key(e[0]) for e in calls[:i] if e and sent):
            whole += sum(approximate_counter([m]) for m in sent)
    records = _ex05_cache_records(calls)
    no_minimum = sum(cached_prefix_tokens(call, records[:i]) for i, call in enumerate(records))
    whole_call = sum(cached_prefix_tokens(call, records[:i]) for i, call in enumerate(records)
                     if call.input_tokens >= minimum)
    return {"previous_only": previous_only, "anywhere": anywhere, "whole": whole,
            "no_minimum": no_minimum, "whole_call": whole_call}


def _ex05_q5_cases(rng: random.Random | None = None):
    from langchain_core.messages import HumanMessage as _Human

    from course_utils.checks.kinds import random_conversation
    from course_utils.window.models import model_info
    from course_utils.agentic.retention import compare_strategies

    cases = []
    runs = compare_strategies("spread_chat", [3072], ["trim", "trim_chunked"], token_counter="approximate")
    for name in ("GPT-6.2 Sol", "Claude Haiku 4.5"):
        minimum = model_info(name).caching.min_prefix_tokens
        for run in runs:
            cases.append((_("spread_chat, {strategy} at 3072 tokens, minimum {minimum:,} ({name})").format(
                strategy=run.strategy, minimum=minimum, name=name),
                          [list(sent) for sent in run.sent], minimum))
    messages = random_conversation(_fresh_seeds(rng, 1)[0], turns=6, system=True, tools=False)
    humans = [i for i, m in enumerate(messages) if isinstance(m, _Human)]
    grown = [messages[: i + 1] for i in humans]
    cases.append((_("a generated conversation sent whole every turn, no minimum"), grown, 0))
    # A minimum between the calls' sizes: some shared prefixes pass it, some do not.
    records = _ex05_cache_records(grown)
    middle = sorted(c.input_tokens for c in records)[len(records) // 2]
    cases.append((_("the same calls, minimum {middle}").format(middle=middle), grown, middle))
    # The minimum on both sides of one shared prefix: equal to it (served) and one token over (not served).
    from course_utils.window.costs import cached_prefix_tokens

    prefixes = sorted({cached_prefix_tokens(call, records[:i]) for i, call in enumerate(records)} - {0})
    if prefixes:
        shared = prefixes[len(prefixes) // 2]
        for minimum in (shared, shared + 1):
            cases.append((_("the same calls, minimum {middle}").format(middle=minimum), grown, minimum))
    # A call that repeats an older call's start, not the previous one's.
    a, b = humans[1], humans[2]
    cases.append((_("calls that go back to an older start"), [messages[: a + 1], [messages[0], *messages[b:b + 1]],
                                                                messages[: a + 2]], 0))
    return cases


def _q5_prepare(q, answers):
    (fn,) = answers
    return (q.need_function(fn, "cached_tokens"),)


def _q5_run(q, answers, case):
    """Call the learner's function on the case's calls; what it returned and what a cache serves."""
    (fn,) = answers
    given = [list(sent) for sent in case["calls"]]
    got = q.call(fn, given, case["minimum"], about=case.label)
    if got is None:
        q.stop(q.wrong(_("`cached_tokens` returned None for {about}: return the number of tokens, an int.").format(
            about=case.label)))
    return {"got": q.as_int(got, _("what cached_tokens returned")),
            "expected": _ex05_cache_reference(case["calls"], case["minimum"])}


def _slip(name: str) -> Callable[[Any, Case], bool]:
    """A mistake's test: the learner's number is what the slip ``name`` gives on this case."""
    return lambda obs, case: obs["got"] == _ex05_cache_mistakes(case["calls"], case["minimum"])[name]


Q5 = CodeQuestion(
    "what a prompt cache serves",
    ("cached_tokens",),
    hints=(
        "For each call, walk its messages from the first one while they are the same as an earlier call's "
        "messages at the same positions; stop at the first difference. Those leading messages are the shared "
        "prefix; the cache serves it only if it has at least `minimum` tokens.",
        "Compare with *every* earlier call and keep the longest match; count each matching message with "
        "`approximate_counter([message])`; add the prefix's tokens only when that sum is >= `minimum` (the "
        "prefix, not the whole call); the first call has nothing before it.",
    ),
    prepare=_q5_prepare,
    cases=lambda rng: [Case(about, {"calls": calls, "minimum": minimum})
                       for about, calls, minimum in _ex05_q5_cases(rng)],
    run=_q5_run,
    rules=(
        Rule("the cache rule", lambda obs, case: obs["got"] == obs["expected"],
             "{case}: a cache serves {expected} tokens, you returned {got}.",
             lambda obs, case: {"expected": obs["expected"], "got": obs["got"]}),
    ),
    mistakes=(
        Mistake("no minimum", "you ignored the minimum. A provider caches nothing shorter than its minimum prefix: "
                "a shared prefix under the minimum is not served.", _slip("no_minimum")),
        Mistake("the minimum on the whole call", "you compared the whole call with the minimum. It is the shared "
                "*prefix* that must reach the minimum to be served.", _slip("whole_call")),
        Mistake("shared anywhere", "you counted every message seen before, wherever it is. A cache serves only a "
                "*prefix*: once one message differs, everything after it is new.", _slip("anywhere")),
        Mistake("whole calls", "you counted whole calls. Only the leading messages an earlier call also started "
                "with are cached.", _slip("whole")),
        Mistake("the previous call only", "you compared with the previous call only. A cache keeps every earlier "
                "prefix: take the longest match with any earlier call.", _slip("previous_only")),
    ),
    praise="your count matches the cache rule, minimum included, on sliding and chunked trimming and "
           "on generated calls. Run the next cell to compare the two trims for two models.",
)
Q5.register(ex05)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex05.q1``, ``ex05.questions``), as the package's ``ex05`` does."""
    return getattr(ex05, name)
