"""Exercise 08, question 3: what server-held state costs, in money, against resending the history (lesson 08).

An agent on OpenAI's Responses API can keep its conversation on the server
(``previous_response_id``): each request sends only the new message. The
provider still reads every stored item again on each call and bills it as
input (``OPENAI_PAGES["conversation_state"]``, read 2026-12-04), with its
automatic prefix cache. Resending the history from the client, with
caching, is billed the same way. The learner writes
``state_costs(pattern, prices)``: for a :class:`Pattern` (instructions, then
turns of a new message and a reply, with the pause before each), it returns
``{"server_held": dollars, "resent": dollars}``. The check runs it on the
pattern the question states (GPT-6.2 Sol's prices from ``models.json``) and
on patterns and prices made at check time, and compares with
:func:`reference_costs`, which prices each call with
:func:`course_utils.window.costs.bill`.

>>> pattern = Pattern(2000, (Turn(300, 500), Turn(200, 400, pause=60)))
>>> [call.message_tokens for call in pattern_calls(pattern)]
[(2000, 300), (2000, 300, 500, 200)]
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from course_utils.checks.machinery import CheckResult, Question, describe
from course_utils.checks.questions import Kind, Statement, Statements, judge_function_and_reasons, register_function_question
from course_utils.core.i18n import _
from course_utils.window.costs import Call, Prices, bill

TITLE = "server-held state or a resent history, in money"
#: The model whose prices the question states (models.json).
STATED_MODEL = "GPT-6.2 Sol"
HINTS = (
    "Call k is sent the instructions, every earlier message and reply, and the new message: build one `Call` per "
    "turn (`Call(\"turn\", keys, tokens, reply)`, the same key for the same part on every call) and price the list "
    "with `bill(calls, prices, caching=True, pauses=...)`.",
    "With `previous_response_id` the server reads the stored items again on every call and bills them as input, "
    "with the same prefix cache: the calls it bills are the calls a resending client sends. Return "
    "`{\"server_held\": ..., \"resent\": ...}` in dollars (`.cost`), and pass the pauses on.",
)


@dataclass(frozen=True)
class Turn:
    """One turn of an agent: the new message's tokens, the reply's tokens, and the seconds since the last call."""

    user: int
    reply: int
    pause: float = 0.0


@dataclass(frozen=True)
class Pattern:
    """A call pattern: the instructions' tokens (sent first on every call) and the turns, in order."""

    instructions: int
    turns: tuple[Turn, ...]

    def __post_init__(self):
        if isinstance(self.instructions, bool) or not isinstance(self.instructions, int) or self.instructions < 0:
            raise ValueError(f"instructions must be a number of tokens >= 0, got {self.instructions!r}")
        if not isinstance(self.turns, tuple) or not self.turns or not all(isinstance(t, Turn) for t in self.turns):
            raise TypeError(f"turns must be a non-empty tuple of Turn, got {self.turns!r:.80}")

    @property
    def pauses(self) -> list[float]:
        return [t.pause for t in self.turns]


#: The pattern the question states: a support agent's 12 turns, with a lunch break of 45 minutes before turn 7.
STATED_PATTERN = Pattern(
    2400,
    tuple(Turn(user, reply, pause) for user, reply, pause in (
        (350, 520, 0), (180, 610, 90), (420, 380, 75), (260, 700, 120), (300, 450, 60), (150, 300, 45),
        (500, 640, 2700), (220, 410, 80), (340, 560, 100), (190, 330, 70), (460, 720, 110), (240, 390, 65))),
)


def pattern_calls(pattern: Pattern) -> list[Call]:
    """Every call of the pattern as the provider reads it: instructions, each earlier turn, the new message."""
    calls, keys, tokens = [], ["instructions"], [pattern.instructions]
    for k, turn in enumerate(pattern.turns, start=1):
        keys.append(f"user-{k}")
        tokens.append(turn.user)
        calls.append(Call("turn", tuple(keys), tuple(tokens), turn.reply))
        keys.append(f"reply-{k}")
        tokens.append(turn.reply)
    return calls


def reference_costs(pattern: Pattern, prices: Prices) -> dict[str, float]:
    """The answer for one pattern: both ways bill the same calls, with the prefix cache and the pauses."""
    cost = bill(pattern_calls(pattern), prices, caching=True, pauses=pattern.pauses).cost
    return {"server_held": cost, "resent": cost}


def new_only_cost(pattern: Pattern, prices: Prices) -> float:
    """The known mistake: server-held state billed as if only the instructions and the new message were read."""
    calls = [Call("turn", ("instructions", f"user-{k}"), (pattern.instructions, t.user), t.reply)
             for k, t in enumerate(pattern.turns, start=1)]
    return bill(calls, prices, caching=True, pauses=pattern.pauses).cost


def stated_prices() -> Prices:
    from course_utils.window.models import model_info

    return model_info(STATED_MODEL).prices


#: Prices of unseen scenarios (US dollars per million tokens), made up on purpose: a cache with no write premium and
#: a 5-minute lifetime, and one with a premium and a long lifetime.
OTHER_PRICES = (
    Prices(input=3.0, output=12.0, cached_input=0.3, cache_lifetime_minutes=5),
    Prices(input=1.0, output=4.0, cached_input=0.05, cache_write=1.5, min_cached_tokens=2048,
           cache_lifetime_minutes=60),
)


def unseen_pattern(rng: random.Random) -> Pattern:
    """A pattern the question does not name: 8 to 16 turns, instructions near the cache minimums, some long pauses."""
    turns = []
    for k in range(rng.randrange(8, 17)):
        pause = rng.choice((rng.randrange(20, 200), rng.randrange(20, 200), rng.randrange(400, 4000)))
        turns.append(Turn(rng.randrange(100, 900), rng.randrange(150, 1200), float(pause if k else 0)))
    return Pattern(rng.randrange(600, 3000), tuple(turns))


def _amounts(q: Question, value: Any, about: str) -> dict[str, float]:
    if not isinstance(value, Mapping) or set(value) != {"server_held", "resent"}:
        q.stop(q.wrong(_("`state_costs` should return a dict with the keys \"server_held\" and \"resent\", but it "
                         "returned {value} for {about}.").format(value=describe(value), about=about)))
    for key, amount in value.items():
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not math.isfinite(amount):
            q.stop(q.wrong(_("`state_costs` should give dollars (a number) for \"{key}\", but it gave {value} for "
                             "{about}.").format(key=key, value=describe(amount), about=about)))
    return {key: float(amount) for key, amount in value.items()}


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _explain(q: Question, got: dict[str, float], pattern: Pattern, prices: Prices, about: str) -> CheckResult:
    """"Not quite" for the first amount that is off, naming the known mistake when it is one."""
    calls = pattern_calls(pattern)
    right = reference_costs(pattern, prices)["resent"]
    for key in ("server_held", "resent"):
        value = got[key]
        if _same(value, right):
            continue
        money = _("${value:.6f}").format(value=value)
        if key == "server_held" and _same(value, new_only_cost(pattern, prices)):
            return q.wrong(_("for {about}, your server-held cost ({money}) bills only the instructions and the new "
                             "message: with previous_response_id the server reads every stored item again on each "
                             "call and bills it as input.").format(about=about, money=money))
        if _same(value, bill(calls, prices, caching=False).cost):
            return q.wrong(_("for {about}, your \"{key}\" cost ({money}) bills every input token at the full price: "
                             "the provider's prefix cache serves the part an earlier call began with, on either side "
                             "(`caching=True`).").format(about=about, key=key, money=money))
        if _same(value, bill(calls, prices, caching=True).cost):
            return q.wrong(_("for {about}, your \"{key}\" cost ({money}) leaves out the pauses: a pause longer than "
                             "the cache's lifetime makes the next call write its prefix again (`pauses=`).")
                           .format(about=about, key=key, money=money))
        tokens = bill(calls, prices, caching=True, pauses=pattern.pauses)
        if value in (tokens.input_tokens, tokens.input_tokens + tokens.output_tokens):
            return q.wrong(_("for {about}, your \"{key}\" is a number of tokens ({value:,}); the question asks for "
                             "dollars (`bill(...).cost`).").format(about=about, key=key, value=int(value)))
        return q.wrong(_("for {about}, your \"{key}\" cost is {money}; pricing every call with `bill` gives another "
                         "amount. Each call is sent the instructions, every earlier message and reply, and the new "
                         "message.").format(about=about, key=key, money=money))
    raise AssertionError("_explain called on a right answer")  # pragma: no cover


def check_state_costs(q: Question, fn: Any, rng: random.Random | None = None) -> CheckResult | None:
    """None when ``fn`` agrees with the reference on the stated pattern and on unseen ones; else "not quite"."""
    q.need(fn, "state_costs")
    if not callable(fn):
        return q.wrong(_("`state_costs` should be a function `state_costs(pattern, prices)`: the question asks you to "
                         "compute the costs, so the check can run it on other patterns; got {value}.")
                       .format(value=describe(fn)))
    q.need_function(fn, "state_costs")
    rng = rng or random.Random(random.SystemRandom().randrange(2 ** 32))
    scenarios = [(STATED_PATTERN, stated_prices()), (unseen_pattern(rng), OTHER_PRICES[0]),
                 (unseen_pattern(rng), rng.choice((stated_prices(), OTHER_PRICES[1])))]
    for pattern, prices in scenarios:
        about = _("{count} turns at {input} / {output} dollars per million tokens in / out").format(
            count=len(pattern.turns), input=prices.input, output=prices.output)
        got = _amounts(q, q.call(fn, pattern, prices, about=about), about)
        expected = reference_costs(pattern, prices)
        if not all(_same(got[key], expected[key]) for key in expected):
            return _explain(q, got, pattern, prices, about)
    return None


STATEMENTS = Statements(
    (
        Statement("With previous_response_id the server reads every stored item again on each call and bills it as "
                  "input tokens.", Kind.JUSTIFIES),
        Statement("The stored items are the same on every call, so the provider's prefix cache serves them as it "
                  "serves a history the client sends again.", Kind.JUSTIFIES),
        Statement("A pause longer than the cache's lifetime makes the next call write its prefix again, whichever "
                  "side holds the history.", Kind.JUSTIFIES),
        Statement("With previous_response_id only the new message is billed, because the server already holds the "
                  "rest.", Kind.REVERSED),
        Statement("Stored items cannot be read from the cache, so every stored token costs the full input price.",
                  Kind.REVERSED),
        Statement("A stored response expires after the cache's lifetime, so after a long pause the client must send "
                  "the history again.", Kind.SWAPPED),
        Statement("previous_response_id sends fewer bytes over the network on each request.", Kind.IRRELEVANT),
        Statement("Output tokens cost more per token than input tokens.", Kind.IRRELEVANT),
    ),
    model_answer="Holding the conversation on the server saves sending it, not paying for it: on every call the "
                 "provider reads all stored items again and bills them as input, and its prefix cache treats them "
                 "exactly as it treats a history the client resends. So the two bills are the same, pause for pause: "
                 "a break longer than the cache's lifetime costs a new cache write either way.",
    rubric="Full marks: every stored item is billed again as input, and the cache (and its lifetime) works the same "
           "on both sides, so the money is the same. Half: one of the two. None: says server-held state bills only "
           "the new message, or is cheaper because less is sent.",
)


def check_server_state(q: Question, state_costs: Any, reasons: Any, own: Any) -> CheckResult:
    """The checker: the function on every scenario, then the statements; the own words go to the teacher."""
    return judge_function_and_reasons(q, check_state_costs, state_costs, reasons, own, STATEMENTS, _(
        "Right: your function gives the stated pattern's costs and those of patterns and prices you never saw, "
        "and your reasons are the ones that justify them."))


class _ServerState:
    """Registers question 3 (see :data:`SERVER_STATE`)."""

    statements = STATEMENTS

    def register(self, exercise):
        return register_function_question(exercise, self, TITLE, "state_costs", HINTS, check_server_state)


SERVER_STATE = _ServerState()
