"""Exercise 02: token budgets (``exercises/02_..._exercise.ipynb``, after ``notebooks/02_token_budgets.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex02``.
"""

from __future__ import annotations

import random

from course_utils.checks.questions import ChoiceQuestion
from course_utils.checks.reason_lists import EX02_Q4
from course_utils.checks.kinds import grade_number
from course_utils.core.i18n import _, pgettext
from course_utils.checks.machinery import learner_line, describe, ltr, Exercise

ex02 = Exercise("02", "Token budgets", "02_token_budgets")

EX02_Q1 = {"limit": 8192, "system": 1200, "user": 450, "reserve": 1024}


@ex02.question(
    "compute B",
    "q1.check(B)",
    hints=(
        "B = L - S - U - R: start from the limit and take off each fixed part.",
        "8192 - 1200 = 6992; then take off U and R.",
    ),
)
def _ex02_q1(q, B):
    L, S, U, R = EX02_Q1.values()
    expected = L - S - U - R
    known = {
        L - U - R: _("you forgot to take off the system prompt S (1200)."),
        L - S - R: _("you forgot to take off the user's new input U (450)."),
        L - S - U: _("you forgot to take off the reply reserve R (1024): the reply shares the same window."),
        S + U + R: _("that is what the fixed parts use (S + U + R). B is what is left of L for the history."),
        L + S + U + R: _("the parts are taken *off* the limit, not added to it."),
        -expected: _("you subtracted the other way round: B = L - S - U - R."),
    }
    return grade_number(q, B, "B", expected, known, _("Take S, U and R off L one at a time."),
                        _("8192 - 1200 = 6992; 6992 - 450 = 6542; 6542 - 1024 = {expected}. "
                          "B = {expected} tokens for the history.").format(expected=expected))


def _ex02_cases():
    cases = [
        (4096, 350, 180, 700),  # the lesson's 2866
        (8192, 1200, 450, 1024),
        (1000, 300, 200, 499),  # exactly one token left
        (2048, 900, 700, 512),  # 64 over: no room
        (1000, 300, 200, 500),  # exactly zero left: no room either
    ]
    rng = random.Random(random.SystemRandom().randrange(2 ** 31))  # made at check time, new on every run
    for _ in range(2):  # fixed parts just under, exactly at and just over the limit, on a random model
        limit = rng.choice((2048, 4096, 8192, 16384, 32768, 128000))
        system, user = rng.randint(0, limit // 3), rng.randint(0, limit // 3)
        reserve = limit - system - user
        cases += [(limit, system, user, reserve - rng.randint(1, 40)), (limit, system, user, reserve - 1),
                  (limit, system, user, reserve), (limit, system, user, reserve + rng.randint(1, 40))]
    for _ in range(6):
        limit = rng.choice((2048, 4096, 8192, 16384, 32768, 128000))
        parts = [rng.randint(0, limit // 3) for _ in range(3)]
        cases.append((limit, *parts))
    cases.append((4096, 4000, 100, 50))
    return cases


@ex02.question(
    "budget(limit, system, user, reserve)",
    "q2.check(budget)",
    hints=(
        "Return `limit - system - user - reserve` when it is more than zero.",
        "When the fixed parts leave nothing (the result would be 0 or less), "
        "`raise ValueError(...)` with a message that says so: a budget of 0 is no room at all.",
    ),
)
def _ex02_q2(q, budget):
    from course_utils.window.budget import history_budget

    fn = q.need_function(budget, "budget")
    results = {}
    for L, S, U, R in _ex02_cases():
        about = f"budget({L}, {S}, {U}, {R})"
        try:
            expected = history_budget(L, S, U, R)
        except ValueError:
            expected = None  # must raise ValueError
        try:
            got = fn(L, S, U, R)
        except ValueError as exc:
            if expected is not None:
                return q.wrong(_("`{about}` raised ValueError ({exc}), but it leaves {expected} "
                                 "tokens for the history: only raise when nothing is left.").format(about=about, exc=ltr(str(exc)), expected=expected))
            if not str(exc).strip():
                return q.wrong(_("`{about}` raised ValueError with no message: say what is wrong, "
                                 "e.g. the sum of the parts and the limit.").format(about=about))
            results[(L, S, U, R)] = "raised"
            continue
        except NotImplementedError:
            return q.not_attempted(_("`budget` still raises NotImplementedError: write its body."))
        except Exception as exc:  # noqa: BLE001
            return q.error(_("`{about}` raised {error}: {exc}{learner_line}. Raise ValueError "
                             "(only) when there is no room.").format(about=about, error=type(exc).__name__, exc=ltr(str(exc)), learner_line=learner_line(exc)))
        if got is Ellipsis:
            return q.not_attempted(_("`budget` returned `...`: write its body."))
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return q.wrong(_("`{about}` returned {describe}; return the number of tokens left (an "
                             "int).").format(about=about, describe=describe(got)))
        if expected is None:
            left = L - S - U - R
            if got == 0 and left == 0:
                return q.wrong(_("off by one: `{about}` leaves exactly 0 tokens for the history "
                                 "and you returned 0. Zero is no room either: raise ValueError "
                                 "when the result would be 0 or less.").format(about=about))
            if got == 0:
                return q.wrong(_("`{about}` returned 0, but the fixed parts are {value} tokens "
                                 "over the limit. Returning 0 hides the problem: raise ValueError "
                                 "instead.").format(about=about, value=-left))
            return q.wrong(_("`{about}` returned {got}, but a budget of {left} means there is no "
                             "room for any history: raise ValueError instead of returning it.").format(about=about, got=got, left=left))
        if got != expected:
            for part, name in ((S, "the system prompt"), (U, "the user input"), (R, "the reply reserve")):
                if got == expected + part and part:
                    return q.wrong(_("`{about}` returned {got}, which is {part} too many: you "
                                     "forgot to take off {name}.").format(about=about, got=got, part=part, name=pgettext("exercise 02", name)))
            return q.wrong(_("`{about}` returned {got}; B = {l} - {s} - {u} - {r} = {expected}.").format(about=about, got=got, l=L, s=S, u=U, r=R, expected=expected))
    return q.correct(_("right on the lesson's example, on random models and parts, and it raises "
                       "ValueError when nothing is left (including the edge case where exactly 0 "
                       "tokens are left)."))


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


@ex02.question(
    "no room left",
    "q3.check(problem, shortfall)",
    hints=(
        "Wrap the call in `try: ... except ValueError as err: problem = err`.",
        "The shortfall is how far the fixed parts go over the limit: (S + U + R) - L.",
    ),
)
def _ex02_q3(q, problem, shortfall):
    L, S, U, R = EX02_Q3.values()
    q.need(problem, "problem")
    if isinstance(problem, (int, float)) and not isinstance(problem, bool):
        return q.wrong(_("`problem` should be the ValueError you caught (`except ValueError as "
                         "err: problem = err`), not the number {problem}.").format(problem=problem))
    if isinstance(problem, type) and issubclass(problem, BaseException):
        return q.wrong(_("`problem` is the exception *class*; store the error you caught: `except "
                         "ValueError as err: problem = err`."))
    if not isinstance(problem, ValueError):
        return q.wrong(_("`problem` should be the ValueError that `history_budget` raised, got "
                         "{describe}.").format(describe=describe(problem)))
    if not _raised_by_history_budget(problem, L, {"system": S, "user": U, "reserve": R}):
        return q.wrong(_("`problem` is a ValueError, but not the one `history_budget({l}, {s}, "
                         "{u}, {r})` raises: {describe}.").format(l=L, s=S, u=U, r=R, describe=describe(str(problem))))
    expected = S + U + R - L
    known = {
        -expected: _("the sign: the parts are 64 tokens *over* the limit, so the shortfall is positive."),
        S + U + R: _("that is what the fixed parts add up to; the shortfall is how far that goes over L."),
        0: _("there is a shortfall: the fixed parts alone are more than the limit."),
        L - S - U: _("that would be the room left without the reply reserve, but the reply needs its reserve."),
    }
    return grade_number(q, shortfall, "shortfall", expected, known, _("shortfall = (S + U + R) - L."),
                        _("900 + 700 + 512 = 2112 > 2048: the fixed parts are {expected} tokens over before a "
                          "single message of history. `history_budget` refuses with: {problem}").format(
                              expected=expected, problem=problem))


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
