"""Exercise 08: context management on the provider's side (``exercises/08_..._exercise.ipynb``, after lesson 08).

The notebook binds its questions with ``from course_utils.checks import ex08``.

- Question 1 (code, :data:`Q1`): the learner writes ``compacting_model(budget, step)``, a ``ChatAnthropic``
  with Anthropic's server-side compaction (``compact_20260112``) set so that no pass of a long agent reads
  ``budget`` tokens or more, compacting as late as that allows. The check builds the model for budgets and
  turn sizes made at check time (a trigger just at or over the provider's minimum of 50,000 tokens, just under
  it, and far over it; two seeds), reads the real request ``langchain-anthropic`` builds (recorded by
  :class:`~course_utils.model.provider_emulation.RecordingTransport`, never sent), and runs LangChain's
  ``create_agent`` with it against the emulated server until it has compacted: every pass, the compaction pass
  included, must read fewer than ``budget`` tokens, and the compaction block must go back to the server.
- Question 2 (structured): client- or server-side for stated requirements (audit, erasure, cost): a choice and
  the statements that justify it, graded exactly; the learner's own words go to the teacher.
- Question 3 (money, :mod:`course_utils.checks.state_costs`): server-held state against a resent history.
"""

from __future__ import annotations

import random
from typing import Any

from langchain_core.messages import HumanMessage

from course_utils.checks.machinery import Exercise, describe
from course_utils.checks.questions import Case, ChoiceQuestion, CodeQuestion, Kind, Mistake, Rule, Statement, Statements
from course_utils.checks.state_costs import SERVER_STATE
from course_utils.core.i18n import _
from course_utils.model.provider_emulation import COMPACT_MIN_TRIGGER

ex08 = Exercise("08", "Context management on the provider's side", "08_provider_side_context")

#: Question 1: the model, the edit and its beta header the question names (Anthropic's compaction page, 2026-12-04).
EX08_MODEL = "Claude Sonnet 5.5"
COMPACT_EDIT = "compact_20260112"
COMPACT_BETA = "compact-2026-01-12"
#: What the agent's tool adds besides its result: the tool call and two messages' framing stay under this.
_FRAMING = 300
#: The most requests a run makes before the check gives up waiting for a compaction.
_MAX_REQUESTS = 40


# --- question 1: server-side compaction under a budget -------------------------------------------


def _q1_prepare(q, answers):
    (compacting_model,) = answers
    q.need_function(compacting_model, "compacting_model")
    return answers


def _q1_label(size: str, budget: int, step: int) -> str:
    """The case's label in the course's language (each size its own sentence, so a translation can reorder it)."""
    labels = {
        "just under": _("a budget of {budget:,} tokens with turns of up to {step:,} (the latest safe trigger is just "
                        "under the minimum)"),
        "at": _("a budget of {budget:,} tokens with turns of up to {step:,} (the latest safe trigger is the minimum)"),
        "just over": _("a budget of {budget:,} tokens with turns of up to {step:,} (the latest safe trigger is just "
                       "over the minimum)"),
        "far over": _("a budget of {budget:,} tokens with turns of up to {step:,} (the latest safe trigger is far "
                      "over the minimum)"),
    }
    return labels[size].format(budget=budget, step=step)


def _q1_cases(rng: random.Random) -> list[Case]:
    """The latest safe trigger just under the minimum (to be refused), at it (the request only), just over and far over."""
    cases = []
    for size, trigger, step, run in (
        ("just under", COMPACT_MIN_TRIGGER - rng.randrange(1, 600), rng.randrange(6_000, 10_000), False),
        ("at", COMPACT_MIN_TRIGGER, rng.randrange(6_000, 10_000), False),
        ("just over", COMPACT_MIN_TRIGGER + rng.randrange(1, 600), rng.randrange(6_000, 10_000), True),
        ("far over", rng.randrange(68_000, 80_000), rng.randrange(14_000, 20_000), True),
    ):
        budget = trigger + step
        cases.append(Case(_q1_label(size, budget, step),
                          {"budget": budget, "step": step, "trigger": trigger, "valid": trigger >= COMPACT_MIN_TRIGGER,
                           "run": run, "seed": rng.randrange(2 ** 32), "thread": f"thread-{rng.randrange(1000, 10_000)}"}))
    return cases


def _build(q, fn, case):
    """The learner's model for the case, or ("refused", the ValueError); other errors stop the check."""

    def attempt(budget, step):
        try:
            return "model", fn(budget, step)
        except ValueError as exc:
            return "refused", exc

    attempt.__name__ = getattr(fn, "__name__", "compacting_model")
    outcome, value = q.call(attempt, case["budget"], case["step"], about=case.label)
    if outcome == "model" and value is Ellipsis:
        q.stop(q.not_attempted(_("`{name}` returned `...`: write its body.").format(name=attempt.__name__)))
    return outcome, value


def log_text(rng: random.Random, target: int) -> tuple[str, int]:
    """Log lines of at most ``target`` exact tokens (a tool result the check makes), and their count."""
    from course_utils.window.tokens import count_text_tokens

    def line():
        return (f"2026-12-{rng.randrange(1, 29):02d} {rng.randrange(24):02d}:{rng.randrange(60):02d} INFO order "
                f"{rng.randrange(1000, 10_000)} shipped to warehouse {rng.randrange(1, 60)}\n")

    lines = [line() for _ in range(target // 14 + 1)]
    text = "".join(lines)
    count = count_text_tokens(text)
    while count > target:
        lines = lines[:-max(1, (count - target) // 12)]
        text = "".join(lines)
        count = count_text_tokens(text)
    return text, count


def _has_compaction(body: dict) -> bool:
    return any(isinstance(block, dict) and block.get("type") == "compaction"
               for message in body.get("messages", []) if isinstance(message.get("content"), list)
               for block in message["content"])


def _q1_run(q, answers, case):
    """Build the model; for a valid budget, run an agent reading logs against the emulated server until it compacts."""
    from langchain.agents import create_agent
    from langchain_anthropic import ChatAnthropic
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    from course_utils.model.provider_emulation import AnthropicServer, RecordingTransport, offline_anthropic

    (compacting_model,) = answers
    outcome, value = _build(q, compacting_model, case)
    obs = {"refused": value if outcome == "refused" else None, "error": None, "body": None, "betas": "",
           "edits": [], "passes": [], "sent_back": None, "growth": 0, "drifted": []}
    if outcome == "refused" or not case["valid"]:
        obs["returned"] = describe(value) if outcome == "model" else None
        return obs
    if not isinstance(value, ChatAnthropic):
        q.stop(q.wrong(_("`compacting_model` should return a `ChatAnthropic`, but it returned {value} for {case}.")
                       .format(value=describe(value), case=case.label)))
    server = AnthropicServer()
    transport = RecordingTransport(server)
    chat = offline_anthropic(value, transport)
    rng = random.Random(case["seed"])

    @tool
    def read_log(day: str) -> str:
        """Read the server log of one day."""
        text, _count = log_text(rng, rng.randrange(case["step"] * 3 // 4, case["step"] - _FRAMING))
        return text

    agent = create_agent(chat, tools=[read_log], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": case["thread"]}}
    for request in range(1, _MAX_REQUESTS + 1):
        try:
            agent.invoke({"messages": [HumanMessage(f"Read the log of day {request}.")]}, config)
        except Exception as exc:  # noqa: BLE001 - what the SDK or the emulated server refused, said to the learner
            obs["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        if request == 1 and transport.requests:
            first = transport.requests[0]
            edits = (first.body.get("context_management") or {}).get("edits")
            obs.update(body=first.body, betas=first.beta or "", edits=edits if isinstance(edits, list) else [])
        if obs["error"] or request == 1 and not (case["run"] and _compaction_ok(obs, case)):
            break
        summaries = [i for i, p in enumerate(server.passes) if p.kind == "summary"]
        if summaries and len(server.passes) >= summaries[0] + 3:
            break
    obs["passes"] = [(p.kind, p.input_tokens) for p in server.passes]
    turns = [p.input_tokens for p in server.passes if p.kind == "turn"]
    obs["growth"] = max((b - a for a, b in zip(turns, turns[1:])), default=0)
    after = [i for i, r in enumerate(transport.requests) if i and _has_compaction(r.body)]
    compacted_at = next((i for i, p in enumerate(server.passes) if p.kind == "summary"), None)
    obs["sent_back"] = bool(after) if compacted_at is not None else None
    first_edit = _edit(obs)
    obs["drifted"] = [i + 1 for i, r in enumerate(transport.requests)
                      if COMPACT_BETA not in (r.beta or "").split(",") or r.body.get("model") != obs["body"].get("model")
                      or first_edit not in ((r.body.get("context_management") or {}).get("edits") or [])]
    return obs


def stated_model_id() -> str:
    """The API name of the question's model, from models.json, which must list the compaction edit for it."""
    from course_utils.window.models import model_info

    info = model_info(EX08_MODEL)
    if COMPACT_EDIT not in (info.context_management_edits or []):  # pragma: no cover - a data error, not a learner's
        raise ValueError(f"models.json: {EX08_MODEL} does not list {COMPACT_EDIT} in context_management_edits")
    return info.model_id


def _edit(obs) -> dict | None:
    return next((e for e in obs["edits"] if isinstance(e, dict) and e.get("type") == COMPACT_EDIT), None)


def _trigger(obs) -> Any:
    edit = _edit(obs)
    return None if edit is None else (edit.get("trigger") or {}).get("value", None)


def _compaction_ok(obs, case) -> bool:
    edit = _edit(obs)
    return (edit is not None and COMPACT_BETA in obs["betas"].split(",")
            and (edit.get("trigger") or {}).get("type") == "input_tokens" and _trigger(obs) == case["trigger"])


def _valid(case) -> bool:
    return case["valid"]


def _read_max(obs) -> int:
    return max((tokens for _kind, tokens in obs["passes"]), default=0)


Q1 = CodeQuestion(
    "server-side compaction under a budget",
    ("compacting_model",),
    hints=(
        "Return `ChatAnthropic(model=\"claude-sonnet-5-5\", api_key=\"offline\", betas=[\"compact-2026-01-12\"], "
        "context_management={\"edits\": [{\"type\": \"compact_20260112\", \"trigger\": {\"type\": \"input_tokens\", "
        "\"value\": trigger}}]})`. Which trigger?",
        "The server compacts a request whose input reaches the trigger, and the compaction pass reads all of it. The "
        "request before held at most trigger - 1 tokens, and one turn adds at most `step`: so trigger - 1 + step must "
        "stay under `budget`. The largest such trigger is `budget - step`; below 50,000 raise ValueError naming "
        "`budget`.",
    ),
    prepare=_q1_prepare,
    cases=_q1_cases,
    run=_q1_run,
    rules=(
        Rule("refuses", lambda obs, case: case["valid"] or isinstance(obs["refused"], ValueError),
             "{case}: the trigger would be {trigger:,}, under the provider's minimum of 50,000 tokens, and your "
             "function returned {returned}: raise ValueError naming `budget` instead, before any request is sent.",
             lambda obs, case: {"trigger": case["trigger"], "returned": obs.get("returned")}),
        Rule("names budget", lambda obs, case: case["valid"] or "budget" in str(obs["refused"]),
             "{case}: your ValueError says {message!r}: name the parameter (`budget`) and say how to fix it.",
             lambda obs, case: {"message": str(obs["refused"])[:160]}),
        Rule("accepts", lambda obs, case: not case["valid"] or obs["refused"] is None,
             "{case}: your function raised ValueError ({message}), but a trigger of {trigger:,} is allowed: the "
             "minimum is 50,000 tokens, inclusive.",
             lambda obs, case: {"message": str(obs["refused"])[:160], "trigger": case["trigger"]}),
        Rule("sent", lambda obs, case: not case["valid"] or not obs["error"] or obs["passes"],
             "{case}: the request was refused before the server answered: {error}",
             lambda obs, case: {"error": obs["error"]}),
        Rule("model", lambda obs, case: not case["valid"] or (obs["body"] or {}).get("model") == stated_model_id(),
             "{case}: the request names the model {model!r}: the agent runs on Claude Sonnet 5.5, "
             "`claude-sonnet-5-5` (models.json lists compaction for it).",
             lambda obs, case: {"model": (obs["body"] or {}).get("model")}),
        Rule("edit", lambda obs, case: not case["valid"] or _edit(obs) is not None,
             "{case}: the request's context_management holds {edits}: server-side compaction is the edit "
             "`compact_20260112`.", lambda obs, case: {"edits": obs["edits"] or None}),
        Rule("beta", lambda obs, case: not case["valid"] or COMPACT_BETA in obs["betas"].split(","),
             "{case}: the request's beta header is {beta!r}: compaction needs `compact-2026-01-12`.",
             lambda obs, case: {"beta": obs["betas"]}),
        Rule("input tokens", lambda obs, case: not case["valid"] or (_edit(obs).get("trigger") or {}).get("type")
             == "input_tokens",
             "{case}: the trigger is {trigger}: the provider counts it in input tokens, "
             "`{{\"type\": \"input_tokens\", \"value\": ...}}`.",
             lambda obs, case: {"trigger": _edit(obs).get("trigger")}),
        Rule("as late as safe", lambda obs, case: not case["valid"] or _trigger(obs) == case["trigger"],
             "{case}: your trigger is {got}; it is not the latest one that keeps every pass under the budget.",
             lambda obs, case: {"got": _trigger(obs)}),
        Rule("every request", lambda obs, case: not case["run"] or not obs["drifted"],
             "{case}: request {number} of the run did not carry the same model, compaction edit and beta header as "
             "the first: every request must.", lambda obs, case: {"number": obs["drifted"][0]}),
        Rule("no error", lambda obs, case: not case["valid"] or not obs["error"],
             "{case}: the run stopped with {error}", lambda obs, case: {"error": obs["error"]}),
        Rule("under budget", lambda obs, case: not case["valid"] or _read_max(obs) < case["budget"],
             "{case}: a pass read {read:,} tokens, not under the budget.", lambda obs, case: {"read": _read_max(obs)}),
        Rule("compacted", lambda obs, case: not case["run"] or obs["sent_back"] is not None,
             "{case}: the agent made {count} requests and the server never compacted.",
             lambda obs, case: {"count": len(obs["passes"])}),
        Rule("sent back", lambda obs, case: not case["run"] or obs["sent_back"],
             "{case}: after the server compacted, no request sent the compaction block back: the client must."),
    ),
    mistakes=(
        Mistake("no beta header",
                "the Anthropic SDK refused `context_management` without the beta: pass "
                "`betas=[\"compact-2026-01-12\"]` to ChatAnthropic.",
                lambda obs, case: "context_management" in (obs["error"] or "") and "TypeError" in obs["error"]),
        Mistake("no trigger",
                "your compaction edit has no trigger, so the server waits for its default of 150,000 input tokens: "
                "set `trigger` from `budget` and `step`.",
                lambda obs, case: _valid(case) and _edit(obs) is not None and not _edit(obs).get("trigger")),
        Mistake("too late",
                "the compaction pass reads the whole input: a request just under your trigger plus one turn of "
                "`step` tokens is not under the budget. Take a turn off the budget.",
                lambda obs, case: _valid(case) and isinstance(_trigger(obs), int) and _trigger(obs) > case["trigger"]),
        Mistake("too early",
                "your trigger compacts earlier than the budget needs: each compaction is a billed summary pass and "
                "loses detail, so set the trigger as late as keeps every pass under the budget.",
                lambda obs, case: _valid(case) and isinstance(_trigger(obs), int) and _trigger(obs) < case["trigger"]),
        Mistake("refuses the minimum",
                "the provider's minimum trigger is 50,000 tokens inclusive: refuse only a trigger under 50,000.",
                lambda obs, case: _valid(case) and obs["refused"] is not None and case["trigger"] == COMPACT_MIN_TRIGGER),
    ),
    praise="your model's requests carry the compaction edit and its beta header with the latest safe trigger; every "
           "pass of the agent, the compaction pass included, read fewer tokens than the budget, the compaction "
           "block went back to the server, and a budget under the minimum was refused by name (random budgets and "
           "turns, two seeds).",
)
Q1.register(ex08)


# --- question 2: client- or server-side for stated requirements ---------------------------------

ChoiceQuestion(
    "client-side or server-side for a clinic's assistant",
    hints=(
        "For each design ask: who holds the conversation, who writes what the model is given, and what each call "
        "is billed.",
        "An OpenAI compaction item is encrypted, and a thread held by previous_response_id or a Conversation lives "
        "in the provider's store, outside your checkpointer.",
    ),
    options={
        "a": "OpenAI's Responses API with previous_response_id and store=True, with server-side compaction "
             "(compact_threshold): the server holds the thread and compacts it.",
        "b": "The thread in the clinic's own checkpointer (store=False); SummarizationMiddleware summarises old turns "
             "with a call the clinic makes; prompt caching on.",
        "c": "Resend the whole history on every call, with prompt caching, and never summarise.",
        "d": "An OpenAI Conversation holds the thread, with truncation=\"auto\" dropping the oldest items when the "
             "window is full.",
    },
    answer="b",
    feedback={
        "a": "the thread lives in the provider's store, not your checkpointer, so erasing it means deleting every "
             "stored response there; the compaction item is encrypted, so you cannot show what the model was given; "
             "and every stored item is billed again on each call.",
        "c": "audit and erasure are yours, but each call's input grows with the session: 60 turns are all billed on "
             "every call, and the window fills.",
        "d": "the server decides what it drops and holds the thread, so you can neither show what each call was "
             "given nor erase it by deleting your own copy.",
    },
    praise="the clinic writes every summary itself and keeps the thread in its own checkpointer: it can show what "
           "each call was given, erase a thread by deleting it, and each call's input stays bounded.",
    statements=Statements(
        (
            Statement("A summary written by a call the clinic makes, kept in its own checkpointer, shows exactly "
                      "what each later call was given.", Kind.JUSTIFIES),
            Statement("A thread kept only in the clinic's checkpointer is erased by deleting it there; a server-held "
                      "thread must also be deleted from the provider's store.", Kind.JUSTIFIES),
            Statement("Summarising old turns bounds each call's input, while server-held state bills every stored "
                      "token again on each call.", Kind.JUSTIFIES),
            Statement("An OpenAI compaction item can be read word for word, so the clinic can show what the model "
                      "was given.", Kind.REVERSED),
            Statement("With previous_response_id only the new message is billed.", Kind.REVERSED),
            Statement("Deleting the thread from the clinic's checkpointer also deletes the responses stored at the "
                      "provider.", Kind.SWAPPED),
            Statement("previous_response_id sends fewer bytes over the network on each request.", Kind.IRRELEVANT),
            Statement("SummarizationMiddleware is part of LangChain 1.x.", Kind.IRRELEVANT),
        ),
        model_answer="Only the client-side design keeps everything the model is given in the clinic's hands: the "
                     "summaries are written by calls the clinic makes and stored in its checkpointer, so each call "
                     "can be shown to an auditor and a thread is erased by deleting it there. Summarising also "
                     "bounds each call's input, whereas a server-held thread is billed in full on every call and its "
                     "compaction is an encrypted item the clinic cannot read.",
        rubric="Full marks: audit (the clinic writes and keeps what each call is given), erasure (the thread is only "
               "in the clinic's store) and cost (bounded input; server-held state billed in full). Half: two of the "
               "three. None: picks server-held state for cost, or says a compaction item can be audited.",
    ),
).register(ex08)

# --- question 3: server-held state or a resent history, in money (lives in state_costs) ------------

SERVER_STATE.register(ex08)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex08.q1``, ``ex08.questions``), as the package's ``ex08`` does."""
    return getattr(ex08, name)
