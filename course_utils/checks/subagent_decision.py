"""Exercise 07, question 4: from which request does a sub-agent pay, in money (lesson 07b).

The learner writes a function ``pays_from(comparison, prices, caching)``: it
prices every model call of both runs of an :class:`~course_utils.agentic.subagents.IsolationComparison`
with :func:`course_utils.window.costs.bill` (``billed_calls`` turns a run's
calls into the provider's view: the tool schemas first, then each message),
request by request, and returns the first number of requests after which
parent + sub-agent has cost **fewer dollars** in total than the single agent
(0 if it never has within the run). The check runs it on the task the
question states (lesson 07b's four requests at GPT-6.2 Sol's prices, with and
without caching) and on scenarios made at check time that the learner never
saw (other orders and lengths of the task, other prices), and compares with
the reference, :func:`reference_pays_from`. A typed number cannot pass: the
scenarios' answers differ. The reason is picked from statements (exact); the
learner's own words go to the teacher.

>>> from course_utils.window.costs import Call, Prices
>>> first_cheaper([[Call("turn", ("a",), (100,), 10)]], [[Call("turn", ("b",), (50,), 10)]], Prices(1.0, 1.0), False)
1
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Any

from course_utils.checks.machinery import CheckResult, Question, describe
from course_utils.checks.questions import (
    Kind,
    Statement,
    Statements,
    judge_function_and_reasons,
    register_function_question,
)
from course_utils.core.i18n import _
from course_utils.window.costs import Call, Prices, bill, message_key, pair_overhead

TITLE = "from which request does a sub-agent pay, in money"
#: The model whose prices the question states (models.json), and the two caching assumptions it asks about.
STATED_MODEL = "GPT-6.2 Sol"
HINTS = (
    "For each k = 1, 2, ...: `bill([c for turn, c in billed_calls(run) if turn <= k], prices, caching=caching).cost` "
    "is what the first k requests cost; do that for `comparison.single` and `comparison.isolated`.",
    "Return the first k at which the isolated run's cost is the lower one, or 0 if there is none; compare dollars "
    "(`.cost`), not tokens, and pass `caching` on to `bill`.",
)


def billed_calls(run: Any) -> list[tuple[int, Call]]:
    """Every model call of an accounted run as (request number, :class:`~course_utils.window.costs.Call`).

    A call's input is what the model reported: its tool schemas first (keyed by
    their content, so only the same tools match in the cache), then one part
    per message, as :func:`course_utils.window.costs.call_record` splits it.
    """
    from course_utils.window.tokens import exact_counter

    overhead = pair_overhead(exact_counter)
    out = []
    for labelled in run.calls:
        messages = list(labelled.call.messages)
        parts = [max(0, exact_counter([m]) - overhead) for m in messages]
        keys = [message_key(m) for m in messages]
        rest = exact_counter(messages) - sum(parts)
        if rest > 0:
            keys.append("list-overhead")
            parts.append(rest)
        schemas = labelled.input_tokens - exact_counter(messages)
        if schemas > 0:
            digest = hashlib.sha1(json.dumps(labelled.call.tools, sort_keys=True, default=str).encode()).hexdigest()
            keys.insert(0, f"tools-{digest[:12]}")
            parts.insert(0, schemas)
        out.append((labelled.turn or 0, Call("turn", tuple(keys), tuple(parts), labelled.output_tokens)))
    return out


def first_cheaper(single: Sequence[Sequence[Call]], isolated: Sequence[Sequence[Call]], prices: Prices,
                  caching: bool) -> int:
    """The first k (1-based) at which the isolated calls of requests 1..k cost less than the single's; 0 if never.

    ``single[k]`` and ``isolated[k]`` are the calls of request k + 1.
    """
    done_single: list[Call] = []
    done_isolated: list[Call] = []
    for k, (alone, split) in enumerate(zip(single, isolated), start=1):
        done_single += alone
        done_isolated += split
        if bill(done_isolated, prices, caching=caching).cost < bill(done_single, prices, caching=caching).cost:
            return k
    return 0


def _by_request(run: Any) -> list[list[Call]]:
    calls = billed_calls(run)
    return [[c for turn, c in calls if turn == k] for k in range(1, len(run.requests) + 1)]


def reference_pays_from(comparison: Any, prices: Prices, caching: bool) -> int:
    """The answer for one scenario, computed now."""
    return first_cheaper(_by_request(comparison.single), _by_request(comparison.isolated), prices, caching)


def tokens_pays_from(comparison: Any) -> int:
    """The known mistake: the same question in tokens (lesson 07b's first answer), 0 if never."""
    from course_utils.agentic.subagents import break_even

    return break_even(comparison.single, comparison.isolated) or 0


# --- the scenarios --------------------------------------------------------------------------------

#: Prices of unseen scenarios (US dollars per million tokens): input-heavy with no caching, and a cheap cache
#: read with no write premium. Made up on purpose: the function must work for any prices.
OTHER_PRICES = (Prices(input=5.0, output=1.0), Prices(input=1.0, output=8.0, cached_input=0.5))


def stated_prices() -> Prices:
    from course_utils.window.models import model_info

    return model_info(STATED_MODEL).prices


def _comparison(requests: Sequence[str]):
    from course_utils.agentic.subagents import compare_isolation
    from course_utils.model.chat import OfflineChatModel

    return compare_isolation(OfflineChatModel(context_window=100_000), tuple(requests))


def unseen_tasks(rng: random.Random) -> list[tuple[str, ...]]:
    """Two orders and lengths of lesson 07b's requests the question does not name."""
    from course_utils.agentic.subagents import RESEARCH_TASK

    task = list(RESEARCH_TASK)
    longer = task + rng.sample(task, 2)
    shuffled = rng.sample(task, len(task)) + rng.sample(task, 1)
    return [tuple(longer), tuple(shuffled)]


def _call_learner(q: Question, fn: Any, comparison: Any, prices: Prices, caching: bool, about: str) -> int:
    value = q.call(fn, comparison, prices, caching, about=about)
    if isinstance(value, bool) or not isinstance(value, int):
        q.stop(q.wrong(_("`pays_from` should return a whole number of requests (0 if never), but it returned {value} "
                         "for {about}.").format(value=describe(value), about=about)))
    return value


def check_pays_from(q: Question, fn: Any, rng: random.Random | None = None) -> CheckResult | None:
    """None when ``fn`` agrees with the reference on the stated task and on unseen ones; else "not quite"."""
    from course_utils.agentic.subagents import RESEARCH_TASK

    q.need(fn, "pays_from")
    if not callable(fn):
        return q.wrong(_("`pays_from` should be a function `pays_from(comparison, prices, caching)`: the question "
                         "asks you to compute the request, so the check can run it on other tasks; got {value}.")
                       .format(value=describe(fn)))
    q.need_function(fn, "pays_from")
    rng = rng or random.Random(random.SystemRandom().randrange(2 ** 32))
    scenarios = [(tuple(RESEARCH_TASK), stated_prices(), caching) for caching in (False, True)]
    first, second = unseen_tasks(rng)
    # The first unseen scenario's prices make isolation pay early, caching or not: a function that only tells
    # caching on from off cannot match it. The second is drawn from every price list.
    scenarios.append((first, OTHER_PRICES[0], rng.choice((False, True))))
    scenarios.append((second, rng.choice((stated_prices(), *OTHER_PRICES)), rng.choice((False, True))))
    comparisons: dict[tuple, Any] = {}
    for task, prices, caching in scenarios:
        if task not in comparisons:
            comparisons[task] = _comparison(task)
        comparison = comparisons[task]
        about = _("{count} requests at {input} / {output} dollars per million tokens in / out, caching {on}").format(
            count=len(task), input=prices.input, output=prices.output, on=_("on") if caching else _("off"))
        got = _call_learner(q, fn, comparison, prices, caching, about)
        expected = reference_pays_from(comparison, prices, caching)
        if got == expected:
            continue
        if got == tokens_pays_from(comparison):
            return q.wrong(_("for {about}, your function answered {got}, the request from which the sub-agent costs "
                             "fewer *tokens*; the question asks for dollars: price each run with `bill(...).cost`.")
                           .format(about=about, got=got))
        if got == reference_pays_from(comparison, prices, not caching):
            return q.wrong(_("for {about}, your function answered {got}, the answer with caching {other}: pass "
                             "`caching` on to `bill`.").format(about=about, got=got,
                                                                other=_("off") if caching else _("on")))
        return q.wrong(_("for {about}, your function answered {got}; pricing every call of both runs with `bill` "
                         "gives another request. Add up each run's calls up to request k, then compare the costs.")
                       .format(about=about, got=got))
    return None


STATEMENTS = Statements(
    (
        Statement("The sub-agent adds its own model calls, each with its own system prompt and tool schemas, to "
                  "every request, even the first.", Kind.JUSTIFIES),
        Statement("The single agent sends every page it has read again on each later call, so its cost per request "
                  "grows.", Kind.JUSTIFIES),
        Statement("With caching, the pages the single agent sends again are read from the cache at a fraction of "
                  "the input price, so its growing cost grows much more slowly.", Kind.JUSTIFIES),
        Statement("The parent sends every page again on each later call, while the single agent sees only short "
                  "answers.", Kind.SWAPPED),
        Statement("The sub-agent's calls cost nothing, because only the parent's window is billed.", Kind.REVERSED),
        Statement("Caching makes the single agent's re-sent pages cost more than the sub-agent's fresh ones.",
                  Kind.REVERSED),
        Statement("The sub-agent keeps the parent's window small, so the parent can run longer before it is full.",
                  Kind.IRRELEVANT),
        Statement("Output tokens cost more per token than input tokens.", Kind.IRRELEVANT),
    ),
    model_answer="Isolation adds the child's calls, with their own prompt and schemas, to every request, so it starts "
                 "behind; the single agent catches up only because it sends all earlier pages again on every later "
                 "call. Without caching that re-sending costs the full input price and overtakes the overhead after "
                 "a few requests; with caching the re-sent prefix costs a tenth or less, so within a short task the "
                 "overhead is never paid back.",
    rubric="Full marks: names the sub-agent's overhead on every request, the single agent's re-sending of earlier "
           "pages, and what caching does to that re-sending (in money). Half: two of the three. None: compares "
           "window sizes only, or tokens instead of money.",
)


def check_subagent_decision(q: Question, pays_from: Any, reasons: Any, own: Any) -> CheckResult:
    """The checker: the function on every scenario, then the statements; the own words go to the teacher."""
    return judge_function_and_reasons(q, check_pays_from, pays_from, reasons, own, STATEMENTS, _(
        "Right: your function gives the stated task's answers and those of tasks and prices you never saw, and "
        "your reasons are the ones that justify it."))


class _PaysFrom:
    """Registers question 4 (see :data:`PAYS_FROM`)."""

    statements = STATEMENTS

    def register(self, exercise):
        return register_function_question(exercise, self, TITLE, "pays_from", HINTS, check_subagent_decision)


PAYS_FROM = _PaysFrom()
