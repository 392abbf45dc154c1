"""Exercise 02: token budgets (``exercises/02_..._exercise.ipynb``, after ``notebooks/02_token_budgets.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex02``.

Every question is data (:mod:`course_utils.checks.questions`): question 1 asks for the history budget as a
function, ``room(limit, system, user, reserve)``, run on the question's model (8192, 1200, 450, 1024: 5518
tokens) and on models and parts drawn when the check runs; question 2 adds the refusal; question 3 keeps the
error ``history_budget`` raises for the question's parts and asks for the shortfall as a function, run on the
question's parts (64 over) and on parts drawn just under, at, just over and far over a random limit.
"""

from __future__ import annotations

import functools
import random

from course_utils.checks.questions import Case, ChoiceQuestion, CodeQuestion, Mistake, Rule
from course_utils.checks.reason_lists import EX02_Q4
from course_utils.core.i18n import _
from course_utils.checks.machinery import describe, ltr, Exercise

ex02 = Exercise("02", "Token budgets", "02_token_budgets")

EX02_Q1 = {"limit": 8192, "system": 1200, "user": 450, "reserve": 1024}
#: Context windows the generated models draw from.
EX02_WINDOWS = (2048, 4096, 8192, 16384, 32768, 128000)


def _call_text(name: str, parts: tuple[int, ...]) -> str:
    """``name(4096, 350, 180, 700)``, left to right in a right-to-left line."""
    return ltr(f"{name}({', '.join(str(p) for p in parts)})")


def _parts_case(name: str, parts: tuple[int, ...], **data) -> Case:
    return Case(_call_text(name, parts), {"parts": parts, **data})


def _whole_number(q, fn, parts, about, name):
    """The learner's function on ``parts``: a whole number, or stop saying what came back."""
    got = q.call(fn, *parts, about=about)
    if isinstance(got, bool) or not isinstance(got, (int, float)) or (isinstance(got, float) and not got.is_integer()):
        q.stop(q.wrong(_("`{about}` returned {value}; `{name}` should return a whole number of tokens.").format(
            about=about, value=describe(got), name=name)))
    return int(got)


# --- question 1: the history budget as a function --------------------------------------------------------


def _q1_cases(rng: random.Random) -> list[Case]:
    """The question's model first, then models and parts drawn now, each leaving some room for the history."""
    cases = [_parts_case("room", tuple(EX02_Q1.values()))]
    for n in range(3):  # the first on another window than the question's, so its 8192 cannot be assumed
        limit = rng.choice([w for w in EX02_WINDOWS if w != EX02_Q1["limit"]] if n == 0 else EX02_WINDOWS)
        system, user = rng.randint(1, limit // 4), rng.randint(1, limit // 4)
        reserve = rng.randint(1, limit // 4)
        cases.append(_parts_case("room", (limit, system, user, reserve)))
    return cases


def _q1_prepare(q, answers):
    (fn,) = answers
    q.need(fn, "room")
    if not callable(fn):
        q.stop(q.wrong(_("`room` should be a function `room(limit, system, user, reserve)`: the check runs it on "
                         "other models too, so a number typed by hand cannot pass; got {value}.").format(
                             value=describe(fn))))
    return (q.need_function(fn, "room"),)


def _q1_run(q, answers, case):
    (fn,) = answers
    limit, system, user, reserve = case["parts"]
    return {"got": _whole_number(q, fn, case["parts"], case.label, "room"),
            "right": limit - system - user - reserve}


def _q1_slip(part_index: int):
    """The answer that forgets one part (1: the system prompt, 2: the user input, 3: the reply reserve)."""
    return lambda obs, case: obs["got"] == obs["right"] + case["parts"][part_index] != obs["right"]


Q1 = CodeQuestion(
    "compute B",
    ("room",),
    hints=(
        "B = L - S - U - R: start from the limit and take off each fixed part.",
        "`return limit - system - user - reserve`. For the question's model: 8192 - 1200 = 6992; then take off "
        "U and R.",
    ),
    prepare=_q1_prepare,
    cases=_q1_cases,
    run=_q1_run,
    rules=(
        Rule("B = L - S - U - R", lambda obs, case: obs["got"] == obs["right"],
             "`{case}` returned {got}; B = L - S - U - R = {right}.",
             lambda obs, case: {"got": obs["got"], "right": obs["right"]}),
    ),
    mistakes=(
        Mistake("no system prompt", "you forgot to take off the system prompt S.", _q1_slip(1)),
        Mistake("no user input", "you forgot to take off the user's new input U.", _q1_slip(2)),
        Mistake("no reserve", "you forgot to take off the reply reserve R: the reply shares the same window.",
                _q1_slip(3)),
        Mistake("the fixed parts", "that is what the fixed parts use (S + U + R). B is what is left of L for the "
                "history.", lambda obs, case: obs["got"] == sum(case["parts"][1:])),
        Mistake("added", "the parts are taken *off* the limit, not added to it.",
                lambda obs, case: obs["got"] == sum(case["parts"])),
        Mistake("the other way round", "you subtracted the other way round: B = L - S - U - R.",
                lambda obs, case: obs["got"] == -obs["right"]),
    ),
    praise="B = L - S - U - R on the question's model (8192 - 1200 - 450 - 1024 = 5518 tokens for the history) "
           "and on models and parts drawn when the check ran.",
    seeds=1,  # three models drawn now, after the question's
)
Q1.register(ex02)


# --- question 2: the budget that refuses when nothing is left ---------------------------------------------


def _q2_cases(rng: random.Random) -> list[Case]:
    """The lesson's example, edges (one left, zero left, over), and parts drawn now around a random limit."""
    fixed = [
        (4096, 350, 180, 700),  # the lesson's 2866
        (8192, 1200, 450, 1024),
        (1000, 300, 200, 499),  # exactly one token left
        (2048, 900, 700, 512),  # 64 over: no room
        (1000, 300, 200, 500),  # exactly zero left: no room either
    ]
    drawn = []
    for _n in range(2):  # fixed parts just under, exactly at and just over the limit, on a random model
        limit = rng.choice(EX02_WINDOWS)
        system, user = rng.randint(0, limit // 3), rng.randint(0, limit // 3)
        reserve = limit - system - user
        drawn += [(limit, system, user, reserve - rng.randint(2, 40)), (limit, system, user, reserve - 1),
                  (limit, system, user, reserve), (limit, system, user, reserve + rng.randint(1, 40))]
    for _n in range(3):
        limit = rng.choice(EX02_WINDOWS)
        drawn.append((limit, *(rng.randint(0, limit // 3) for _k in range(3))))
    drawn.append((4096, 4000, 100, 50))  # far over
    return [_parts_case("budget", parts) for parts in (*fixed, *drawn)]


def _q2_prepare(q, answers):
    (fn,) = answers
    return (q.need_function(fn, "budget"),)


def _value_or_refusal(fn):
    """``fn`` returning its ValueError instead of raising it (any other exception is still raised).

    It carries ``fn``'s own name, so a message about an error names the learner's function.
    """

    @functools.wraps(fn)
    def attempt(*args):
        try:
            return fn(*args)
        except ValueError as exc:
            return exc

    return attempt


def _q2_run(q, answers, case):
    from course_utils.window.budget import history_budget

    (fn,) = answers
    try:
        right = history_budget(*case["parts"])
    except ValueError:
        right = None  # no room: it must raise ValueError
    got = q.call(_value_or_refusal(fn), *case["parts"], about=case.label)
    raised = isinstance(got, ValueError)
    if not raised and (isinstance(got, bool) or not isinstance(got, (int, float))):
        q.stop(q.wrong(_("`{about}` returned {value}; return the number of tokens left (an int).").format(
            about=case.label, value=describe(got))))
    limit, system, user, reserve = case["parts"]
    return {"raised": raised, "message": str(got).strip() if raised else "", "got": None if raised else got,
            "right": right, "left": limit - system - user - reserve}


Q2 = CodeQuestion(
    "budget(limit, system, user, reserve)",
    ("budget",),
    hints=(
        "Return `limit - system - user - reserve` when it is more than zero.",
        "When the fixed parts leave nothing (the result would be 0 or less), "
        "`raise ValueError(...)` with a message that says so: a budget of 0 is no room at all.",
    ),
    prepare=_q2_prepare,
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("raise only when nothing is left", lambda obs, case: not (obs["raised"] and obs["right"] is not None),
             "`{case}` raised ValueError ({message}), but it leaves {right} tokens for the history: only raise when "
             "nothing is left.", lambda obs, case: {"message": ltr(obs["message"]), "right": obs["right"]}),
        Rule("raise when nothing is left", lambda obs, case: obs["raised"] or obs["right"] is not None,
             "`{case}` returned {got}, but a budget of {left} means there is no room for any history: raise "
             "ValueError instead of returning it.", lambda obs, case: {"got": obs["got"], "left": obs["left"]}),
        Rule("say what is wrong", lambda obs, case: not obs["raised"] or obs["message"],
             "`{case}` raised ValueError with no message: say what is wrong, e.g. the sum of the parts and the "
             "limit."),
        Rule("B = L - S - U - R", lambda obs, case: obs["raised"] or obs["got"] == obs["right"],
             "`{case}` returned {got}; B = L - S - U - R = {right}.",
             lambda obs, case: {"got": obs["got"], "right": obs["right"]}),
    ),
    mistakes=(
        Mistake("zero is returned", "off by one: these parts leave exactly 0 tokens for the history and you "
                "returned 0. Zero is no room either: raise ValueError when the result would be 0 or less.",
                lambda obs, case: obs["left"] == 0 and obs["got"] == 0),
        Mistake("clamped to zero", "the fixed parts are over the limit and you returned 0. Returning 0 hides the "
                "problem: raise ValueError instead.", lambda obs, case: obs["left"] < 0 and obs["got"] == 0),
        Mistake("no system prompt", "you forgot to take off the system prompt.",
                lambda obs, case: obs["got"] == obs["left"] + case["parts"][1] != obs["left"]),
        Mistake("no user input", "you forgot to take off the user input.",
                lambda obs, case: obs["got"] == obs["left"] + case["parts"][2] != obs["left"]),
        Mistake("no reserve", "you forgot to take off the reply reserve.",
                lambda obs, case: obs["got"] == obs["left"] + case["parts"][3] != obs["left"]),
    ),
    praise="right on the lesson's example, on random models and parts, and it raises ValueError when nothing is "
           "left (including the edge case where exactly 0 tokens are left).",
    seeds=1,  # eleven models and parts drawn now, around the limit and far from it
)
Q2.register(ex02)


# --- question 3: the error history_budget raises, and the shortfall as a function ---------------------------


def _raised_by_history_budget(error: BaseException, limit: int, parts: dict[str, int]) -> bool:
    """True when ``error`` was raised inside ``history_budget`` called with ``limit`` and ``parts`` (its traceback).

    An error typed by hand (``ValueError("no room")``), or raised by the learner's own code with the same words,
    has no such frame; the caught error does, in whichever language the package spoke when it was raised.
    """
    import course_utils.window.budget as budget

    frame = error.__traceback__
    while frame is not None:
        local = frame.tb_frame.f_locals
        if (frame.tb_frame.f_code.co_filename == budget.__file__ and frame.tb_frame.f_code.co_name == "history_budget"
                and local.get("limit") == limit and all(local.get(k) == v for k, v in parts.items())):
            return True
        frame = frame.tb_next
    return False


EX02_Q3 = {"limit": 2048, "system": 900, "user": 700, "reserve": 512}


def _q3_problem(q, problem):
    """Stop unless ``problem`` is the ValueError ``history_budget`` raised for the question's parts."""
    L, S, U, R = EX02_Q3.values()
    q.need(problem, "problem")
    if isinstance(problem, (int, float)) and not isinstance(problem, bool):
        q.stop(q.wrong(_("`problem` should be the ValueError you caught (`except ValueError as err: problem = "
                         "err`), not the number {problem}.").format(problem=problem)))
    if isinstance(problem, type) and issubclass(problem, BaseException):
        q.stop(q.wrong(_("`problem` is the exception *class*; store the error you caught: `except ValueError as "
                         "err: problem = err`.")))
    if not isinstance(problem, ValueError):
        q.stop(q.wrong(_("`problem` should be the ValueError that `history_budget` raised, got {describe}.").format(
            describe=describe(problem))))
    if not _raised_by_history_budget(problem, L, {"system": S, "user": U, "reserve": R}):
        q.stop(q.wrong(_("`problem` is a ValueError, but not the one `history_budget({l}, {s}, {u}, {r})` raises: "
                         "{describe}.").format(l=L, s=S, u=U, r=R, describe=describe(str(problem)))))


def _q3_prepare(q, answers):
    problem, fn = answers
    _q3_problem(q, problem)
    q.need(fn, "shortfall")
    if not callable(fn):
        q.stop(q.wrong(_("`shortfall` should be a function `shortfall(limit, system, user, reserve)`: the check "
                         "runs it on other parts too, so a number typed by hand cannot pass; got {value}.").format(
                             value=describe(fn))))
    return problem, q.need_function(fn, "shortfall")


def _q3_cases(rng: random.Random) -> list[Case]:
    """The question's parts, then parts drawn now just under, at, just over and far over a random limit."""
    cases = [_parts_case("shortfall", tuple(EX02_Q3.values()))]
    limit = rng.choice([w for w in EX02_WINDOWS if w != EX02_Q3["limit"]])  # not the question's 2048
    system, user = rng.randint(1, limit // 3), rng.randint(1, limit // 3)
    reserve = limit - system - user  # exactly at the limit
    for extra in (-rng.randint(1, 60), 0, 1, rng.randint(2, 200), rng.randint(limit // 2, limit)):
        cases.append(_parts_case("shortfall", (limit, system, user, reserve + extra)))
    return cases


def _q3_run(q, answers, case):
    _problem, fn = answers
    limit, system, user, reserve = case["parts"]
    return {"got": _whole_number(q, fn, case["parts"], case.label, "shortfall"),
            "over": system + user + reserve - limit}


Q3 = CodeQuestion(
    "no room left",
    ("problem", "shortfall"),
    hints=(
        "Wrap the call in `try: ... except ValueError as err: problem = err`.",
        "The shortfall is how far the fixed parts go over the limit: (S + U + R) - L, and 0 when they fit.",
    ),
    prepare=_q3_prepare,
    cases=_q3_cases,
    run=_q3_run,
    rules=(
        Rule("(S + U + R) - L, or 0", lambda obs, case: obs["got"] == max(0, obs["over"]),
             "`{case}` returned {got}; the fixed parts add up to {used} tokens against a limit of {limit}, so the "
             "shortfall is {right}.",
             lambda obs, case: {"got": obs["got"], "used": sum(case["parts"][1:]), "limit": case["parts"][0],
                                "right": max(0, obs["over"])}),
    ),
    mistakes=(
        Mistake("the sign", "the sign: when the fixed parts are over the limit, the shortfall is positive: "
                "(S + U + R) - L.", lambda obs, case: obs["over"] > 0 and obs["got"] == -obs["over"]),
        Mistake("the fixed parts", "that is what the fixed parts add up to; the shortfall is how far that goes "
                "over L.", lambda obs, case: obs["got"] == sum(case["parts"][1:])),
        Mistake("no reserve", "you left out the reply reserve R: the reply needs its room too.",
                lambda obs, case: obs["got"] == max(0, obs["over"] - case["parts"][3]) != max(0, obs["over"])),
        Mistake("room as a negative shortfall", "these parts fit in the window, so nothing is short: return 0 when "
                "they fit.", lambda obs, case: obs["over"] < 0 and obs["got"] == obs["over"]),
        Mistake("never short", "these parts are over the limit, but you returned 0: the shortfall is "
                "(S + U + R) - L.", lambda obs, case: obs["over"] > 0 and obs["got"] == 0),
    ),
    praise="the error is the one `history_budget` raised, and your shortfall is right on the question's parts "
           "(900 + 700 + 512 = 2112 > 2048: 64 tokens over before a single message of history) and on parts "
           "drawn just under, at, just over and far over another limit.",
    seeds=1,  # six parts drawn now around one limit
)
Q3.register(ex02)


EX02_Q4_OPTIONS = {
    "a": "Raise the reply reserve R to 700, so the answer has room.",
    "b": "Trim the conversation history harder with trim_messages.",
    "c": "Cut the pasted document down to the part that matters (say 300 tokens), or summarise it.",
    "d": "Add a safety margin M.",
}


_ex02_q4 = ChoiceQuestion(
    "choose a fix",
    hints=(
        "Which term of B = L - S - U - R can you make smaller without hurting the answer?",
        "Trimming changes the history, which is not one of S, U, R.",
    ),
    options=EX02_Q4_OPTIONS,
    answer="c",
    feedback={
        "a": "R is taken off the limit too, so a bigger R makes the shortfall bigger (128 over).",
        "b": "the history is not one of the fixed parts: with S + U + R over the limit, even an empty "
        "history does not fit. Trimming cannot fix it.",
        "d": "a margin is taken off the limit as well: it makes things worse.",
    },
    statements=EX02_Q4,
    praise="shrinking U is the only option that makes room: 2048 - 900 - 300 - 512 = 336 tokens for the history. "
    "Trimming cannot help when the fixed parts alone are over the limit.",
).register(ex02)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex02.q1``, ``ex02.questions``), as the package's ``ex02`` does."""
    return getattr(ex02, name)
