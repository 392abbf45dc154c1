"""Exercise 07, question 4: decide from the token accounting whether a sub-agent pays (lesson 07b).

Registered as q4 of exercise 07 in :mod:`course_utils.checks.ex07` with

    ex07.question(TITLE, USAGE, hints=HINTS)(check_subagent_decision)

The learner runs ``compare_isolation`` on the task of :func:`decision_task`
(lesson 07b's last three research requests, ``RESEARCH_TASK[1:]``), adds up
every call of parent and child after each request, and answers
``q4.check(pays_from, why)``: ``pays_from`` is the first number of requests
after which parent + sub-agent has cost fewer tokens in total than one agent
(0 if it never has within the task); ``why`` says why, and is judged by
:data:`SUBAGENT_DECISION` (:mod:`course_utils.checks.reasons`): a right reason
says that the sub-agent adds calls (or tokens) to every request, *and* that
the single agent sends its earlier pages again on every later call. The
expected number is computed in the check from a fresh run, never stored.

>>> from course_utils.checks.reasons import judge
>>> judge(SUBAGENT_DECISION, "The sub-agent adds extra calls to every request, but the single agent re-sends "
...       "all the earlier pages on each later call, so from the third request it costs more.").status
'correct'
>>> judge(SUBAGENT_DECISION, "The parent's window is smaller, so it is cheaper.").status
'wrong'
"""

from __future__ import annotations

from typing import Any

from course_utils.checks.kinds import grade_number, need_reason
from course_utils.checks.machinery import CheckResult, Question
from course_utils.checks.reasons import Claim, Relation, Reversal, Term
from course_utils.core.i18n import _

TITLE = "decide whether a sub-agent pays, from the token accounting"
USAGE = "q4.check(pays_from, why)"
HINTS = (
    "Lesson 07b, section 1: `compare_isolation(model, RESEARCH_TASK[1:])` runs both; `cumulative_tokens(run)` gives the "
    "tokens of every call, parent and child, after each request.",
    "Compare the two lists request by request: the first request after which the sub-agent's total is the lower "
    "one is `pays_from` (0 if there is none). For the reason: what does the sub-agent add to every request, and "
    "what does the single agent send again on every later call?",
)

def decision_task() -> tuple[str, ...]:
    """The task of the question: lesson 07b's last three research requests (imported when called)."""
    from course_utils.agentic.subagents import RESEARCH_TASK

    return tuple(RESEARCH_TASK[1:])


def decision_pays_from() -> int:
    """The answer, computed now: the first number of requests after which isolation cost less, 0 if never."""
    from course_utils.model.chat import OfflineChatModel
    from course_utils.agentic.subagents import break_even, compare_isolation

    comparison = compare_isolation(OfflineChatModel(context_window=100_000), decision_task())
    return break_even(comparison.single, comparison.isolated) or 0


# --- the reason ------------------------------------------------------------------------------

EXTRA = Term("extra_calls", predicate=True, opposite="no_extra_calls",
             en=("extra call", "extra model call", "extra parent call", "more calls", "more model calls",
                 "additional call", "additional model call", "twice as many", "double the calls", "doubles the calls",
                 "doubles the number of calls", "two more calls", "overhead", "its own system prompt",
                 "its own prompt", "own tool schema", "own schemas", "another parent call", "fixed cost",
                 "extra tokens", "extra cost", "costs more per request", "more per request", "adds calls",
                 "adds a parent call", "adds the child's calls", "adds its own calls", "child's calls cost",
                 "child's calls are paid", "pays for the child", "child's own calls"),
             fa=("فراخوانی بیشتر", "فراخوانی اضافه", "فراخوانی‌های بیشتر", "فراخوانی های بیشتر", "دو برابر فراخوانی",
                 "سربار", "هزینه اضافه", "پرامپت سیستم خودش", "توکن اضافه"),
             zh=("更多调用", "额外的调用", "额外调用", "多一次调用", "调用次数翻倍", "两倍的调用", "开销", "自己的系统提示",
                 "额外的令牌", "额外的token", "额外成本"))
NO_EXTRA = Term("no_extra_calls", predicate=True, opposite="extra_calls",
                en=("costs nothing", "cost nothing", "are free", "is free", "for free", "free of charge",
                    "no overhead", "don't count", "do not count", "doesn't count", "does not count", "not counted"),
                fa=("رایگان", "هزینه‌ای ندارد", "هزینه ای ندارد", "بی هزینه", "حساب نمی"),
                zh=("免费", "不算", "不花钱", "不计入", "没有开销"))
RESEND = Term("resend", predicate=True, opposite="no_resend",
              en=("re-send", "resend", "sends again", "sent again", "send again", "sends them again",
                  "sends every page", "sends all the pages", "every page so far", "all the pages", "all the earlier",
                  "every earlier page", "old pages", "earlier pages", "previous pages", "earlier results",
                  "old results", "previous results", "pile up", "piles up", "accumulat", "grows with every",
                  "keeps growing", "window grows", "history grows", "carries every", "carries all",
                  "keeps every page", "keeps all the pages", "repeats the pages", "repeated on every"),
              fa=("دوباره می فرست", "دوباره می‌فرست", "دوباره فرستاده", "دوباره ارسال", "همه صفحه", "صفحه های قبلی",
                  "صفحه‌های قبلی", "انباشته", "بزرگ تر می شود", "بزرگتر می شود"),
              zh=("重新发送", "再次发送", "又发送", "所有页面", "之前的页面", "以前的页面", "累积", "越来越大", "越来越长",
                  "都要再发"))
NO_RESEND = Term("no_resend", predicate=True, opposite="resend",
                 en=("sends each page once", "each page is sent once", "sends only the new page",
                     "only sends the new page", "pages are sent only once"),
                 fa=("فقط یک بار می فرست", "فقط یک بار می‌فرست"),
                 zh=("只发送一次", "只发一次"))

SUBAGENT_DECISION = Claim(
    "07 sub-agent",
    relations=(
        Relation("overhead", ((EXTRA,),), {
            "en": "say what the sub-agent adds to every request, even the first",
            "fa": "بگویید زیرعامل به هر درخواست، حتی اولی، چه چیزی اضافه می‌کند",
            "zh": "说明子代理给每个请求（包括第一个）增加了什么",
        }),
        Relation("resend", ((RESEND,),), {
            "en": "say what the single agent does with the pages it has read, on every later call",
            "fa": "بگویید عامل تنها در هر فراخوانی بعدی با صفحه‌هایی که خوانده چه می‌کند",
            "zh": "说明单个代理在之后的每次调用中如何处理它读过的页面",
        }),
    ),
    reversed=(
        Reversal(((NO_EXTRA,),), {"en": "that the sub-agent's calls cost nothing",
                                  "fa": "که فراخوانی‌های زیرعامل هزینه‌ای ندارند",
                                  "zh": "子代理的调用不花成本"}),
        Reversal(((NO_RESEND,),), {"en": "that the single agent sends each page only once",
                                   "fa": "که عامل تنها هر صفحه را فقط یک بار می‌فرستد",
                                   "zh": "单个代理每个页面只发送一次"}),
    ),
)


def check_subagent_decision(q: Question, pays_from: Any, why: Any) -> CheckResult:
    """The checker: ``pays_from`` against a fresh run of :func:`decision_task`, then ``why`` against the claim."""
    expected = decision_pays_from()
    requests = len(decision_task())
    known = {
        1: "after one request the sub-agent costs more: the parent's window is smaller, but the child's calls "
           "are paid for too. Add them.",
        requests: _("{requests} is the number of requests in the task; look for the first one after which the "
                    "sub-agent's running total is the lower one.").format(requests=requests),
    }
    known.pop(expected, None)
    result = grade_number(q, pays_from, "pays_from", expected, known,
                          "Add up every call's tokens, parent and child, after each request (`cumulative_tokens`), "
                          "and find the first request after which the sub-agent's total is lower (0 if never).",
                          "")
    if not result.correct:
        return result
    need_reason(q, why, "why", SUBAGENT_DECISION)
    return q.correct(_("Right: from request {expected} on, parent + sub-agent has cost fewer tokens than one agent. "
                       "The sub-agent costs more on every request; it pays only once the single agent re-sends "
                       "enough old pages.").format(expected=expected))
