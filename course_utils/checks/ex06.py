"""Exercise 06: an agent's context (``exercises/06_..._exercise.ipynb``, after ``notebooks/06_agent_context.ipynb``).

The notebook binds its questions with ``from course_utils.checks import ex06``.
Every check runs LangChain's real ``create_agent`` with the offline model and
the lesson's offline tools, or calls the learner's middleware on agent
histories generated inside the check.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, ToolMessage, trim_messages
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from course_utils.checks.questions import Case, ChoiceQuestion, CodeQuestion, Rule
from course_utils.checks.reason_lists import EX06_Q3
from course_utils.checks.kinds import counts_of, snapshot, random_conversation
from course_utils.checks.machinery import Exercise, describe, ltr, quote
from course_utils.checks.spies import watching
from course_utils.core.i18n import _, pgettext
from course_utils.window.sequences import orphaned_tool_messages
from course_utils.window.tokens import exact_counter

ex06 = Exercise("06", "Agent context", "06_agent_context")

#: Question 1: the window of the lesson's agent, the budget per call, and the facts it must keep.
EX06_WINDOW = 2048
EX06_BUDGET = 1300
EX06_FACTS = 2
#: Question 2: the trim budget of the hook (exact counter) and the generated histories.
EX06_HOOK_TOKENS = 300
EX06_SEEDS = (601, 602, 603, 604, 605, 606)


def _trip_run(middleware, name="your middleware"):
    from langchain.agents import create_agent

    from course_utils.agentic.agent_tools import TRIP_TOOLS
    from course_utils.agentic.agents import TRIP_SYSTEM_PROMPT, compare_runs, run_task
    from course_utils.model.chat import OfflineChatModel

    model = OfflineChatModel(context_window=EX06_WINDOW)
    agent = create_agent(model, tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT, middleware=list(middleware))
    run = run_task(agent, name=name)
    return run, compare_runs([run])[0]


def _counts_approximately(middleware) -> bool:
    """Whether a middleware counts with LangChain's default approximate counter."""
    from langchain_core.messages.utils import count_tokens_approximately

    counter = getattr(middleware, "token_counter", None)
    if counter is None:
        return hasattr(middleware, "edits")  # ContextEditingMiddleware without a counter: approximate
    return getattr(counter, "func", counter) is count_tokens_approximately


def _q1_prepare(q, answers):
    """``middleware`` as a list of middleware, or stop with what is wrong about its shape."""
    from langchain.agents.middleware import AgentMiddleware

    (middleware,) = answers
    q.need(middleware, "middleware")
    if isinstance(middleware, AgentMiddleware):
        middleware = [middleware]
    if isinstance(middleware, (str, bytes)) or not isinstance(middleware, Sequence):
        q.stop(q.wrong(_("`middleware` should be a list of middleware, e.g. `[SummarizationMiddleware(...)]`, "
                         "got {describe}.").format(describe=describe(middleware))))
    for i, item in enumerate(middleware):
        if item is Ellipsis:
            q.stop(q.not_attempted(_("`middleware[{i}]` is still `...`: put a middleware there.").format(i=i)))
        if not isinstance(item, AgentMiddleware):
            q.stop(q.wrong(_("`middleware[{i}]` should be a middleware (SummarizationMiddleware(...), "
                             "ContextEditingMiddleware(...), a @before_model hook ...), got {describe}.").format(
                                 i=i, describe=describe(item))))
    return (list(middleware),)


def _q1_run(q, answers, case):
    """The lesson's task with the learner's middleware: the run, its row, and what the model was sent unasked."""
    (middleware,) = answers
    run, row = q.call(_trip_run, middleware, about=case.label)
    if row.turns_failed:
        turn = run.failed_turns[0]
        shown, whole = quote(turn.error)
        q.stop(q.wrong(_("turn {number} failed: {shown}").format(number=turn.number, shown=ltr(shown)), details=whole))
    return {"run": run, "row": row, "invented": invented_facts(run), "middleware": middleware}


def _over_budget(obs, case) -> dict:
    run, row, middleware = obs["run"], obs["row"], obs["middleware"]
    advice = (_("lower the trigger (or the trim's max_tokens)") if middleware else
              _("with no middleware every call is sent the whole history"))
    if any(_counts_approximately(m) for m in middleware):
        advice += _("; and count as the budget does: your middleware uses the default approximate counter, "
                    "pass token_counter=exact_counter")
    worst = max(range(len(run.agent_calls)), key=lambda i: _call_tokens(run, i)) + 1
    return {"worst": worst, "tokens": row.largest_call, "budget": EX06_BUDGET, "advice": advice}


Q1 = CodeQuestion(
    "configure a middleware to meet a token budget",
    ("middleware",),
    hints=(
        "Section 8 of the lesson compares the strategies on this very task: look at the 'largest call' and "
        "'facts answerable' columns. Clearing meets a budget but forgets; summarising keeps more.",
        "Count as the budget does: pass `token_counter=exact_counter`. The largest call is the trigger plus the "
        "system prompt and the tool schemas (about 250 tokens), so the trigger must be well under 1300.",
    ),
    prepare=_q1_prepare,
    cases=lambda rng: [Case(_("the lesson's task"))],
    run=_q1_run,
    rules=(
        Rule("facts only from the run", lambda obs, case: not obs["invented"],
             "the model was sent {fact!r} in a {kind} message that no tool, model reply or summary of the run "
             "produced: your middleware writes the facts itself. Keep what the run said; don't add answers.",
             lambda obs, case: {"fact": obs["invented"][0][0], "kind": obs["invented"][0][1]}),
        Rule("no orphaned tool result", lambda obs, case: not obs["row"].orphaned_tool_results,
             "{count} tool results were sent without their tool call: trim with start_on=\"human\" and "
             "end_on=(\"human\", \"tool\").", lambda obs, case: {"count": obs["row"].orphaned_tool_results}),
        Rule("every call within the budget", lambda obs, case: obs["row"].largest_call <= EX06_BUDGET,
             "call {worst} was sent {tokens} tokens, over the budget of {budget}: {advice}.", _over_budget),
        Rule("enough facts kept", lambda obs, case: obs["row"].facts_answered >= EX06_FACTS,
             "every call is within {budget} tokens (largest {largest}), but the agent answers only {answered} of "
             "{probes} probes (not: {missed!r} ...). Keep more: clearing and tight trims forget; a summary, or a "
             "larger trim, keeps more.",
             lambda obs, case: {"budget": EX06_BUDGET, "largest": obs["row"].largest_call,
                                "answered": obs["row"].facts_answered, "probes": len(obs["run"].probes),
                                "missed": next(p.question for p in obs["run"].probes if not p.answered)}),
    ),
    praise="every call was sent at most 1300 tokens (exact counter), no turn failed, no tool result was sent "
           "without its call, no fact reached the model that the run did not produce, and at least 2 of the 4 "
           "facts are still answerable.",
    seeds=1,  # the lesson's task is one fixed run; the other questions draw their cases
)
Q1.register(ex06)


def _tool_output(call: dict) -> str | None:
    """What the lesson's tool returns for a tool call the model made (None for a tool it does not have)."""
    from course_utils.agentic.agent_tools import TRIP_TOOLS

    tools = {t.name: t for t in TRIP_TOOLS}
    tool = tools.get(call.get("name"))
    return None if tool is None else str(tool.invoke(call.get("args", {})))


def invented_facts(run) -> list[tuple[str, str]]:
    """(fact, message type) for every probe answer the model was sent that nothing in the run produced.

    A fact may reach the model only in a tool result the model asked for (its text taken from what the tool
    returned), in a model reply, or in a summary the model wrote. A note a hook writes itself is invented.
    """
    from course_utils.agentic.agents import TRIP_PROBES

    replies = [c.reply for c in run.calls if c.reply is not None]
    reply_texts = {r.text for r in replies}
    summaries = [c.reply.text for c in run.calls if c.kind == "summary" and c.reply is not None]
    asked = {tc["id"]: tc for r in replies for tc in (r.tool_calls or [])}
    outputs: dict[str, str | None] = {}
    found = []
    for call in run.calls:
        if call.kind == "summary":  # a summary call is sent the history to summarise, inside its prompt
            continue
        for message in call.messages:
            text = message.text
            for _question, fact, _turn in TRIP_PROBES:
                if fact not in text:
                    continue
                if isinstance(message, ToolMessage) and message.tool_call_id in asked:
                    if message.tool_call_id not in outputs:
                        outputs[message.tool_call_id] = _tool_output(asked[message.tool_call_id])
                    real = outputs[message.tool_call_id] or ""
                    if all(line.strip() in real for line in text.splitlines() if fact in line):
                        continue
                elif isinstance(message, AIMessage) and text in reply_texts:
                    continue
                elif any(fact in summary and summary in text for summary in summaries):
                    continue
                found.append((fact, message.type))
    return found


def _call_tokens(run, index: int) -> int:
    from course_utils.agentic.agents import call_tokens

    return call_tokens(run.agent_calls[index])


# --- question 2: a trimming hook that never orphans a tool result ------------------------------


def _agent_histories(rng: random.Random | None = None) -> list[tuple[str, list[BaseMessage]]]:
    """Agent states as a before_model hook sees them: no system message, ending on a request or on tool results.

    Generated from seeded conversations with tool calls, cut just before a
    model call: after a human message, or after the results of a tool call;
    the lesson's seeds and seeds drawn now. Then current turns just under,
    just over and far over the budget.
    """
    source = rng or random.Random(random.SystemRandom().randrange(2 ** 32))
    cases = []
    for seed in (*EX06_SEEDS[:3], *(source.randrange(1000, 1_000_000) for _n in range(3))):
        messages = random_conversation(seed, turns=8, system=False, tools=True)
        ends = [i + 1 for i, m in enumerate(messages)
                if isinstance(m, HumanMessage) or (isinstance(m, ToolMessage) and
                                                    (i + 1 == len(messages) or not isinstance(messages[i + 1], ToolMessage)))]
        rng = random.Random(seed)
        for end in sorted(rng.sample(ends, min(3, len(ends)))):
            state = messages[:end]
            cases.append((_("a generated agent history of {counts} (seed {seed})").format(
                counts=counts_of(state), seed=seed), state))
    # One whose last turn's tool results alone are over the budget.
    big = [HumanMessage("Search the web for everything about Porto.", id="big-h"),
           AIMessage("", tool_calls=[{"name": "web_search", "args": {"query": "Porto"}, "id": "big-c",
                                      "type": "tool_call"}], id="big-a"),
           ToolMessage("\n".join(f"Porto market {i}: opening hours and prices." for i in range(1, 61)),
                       tool_call_id="big-c", id="big-t")]
    cases.append((_("a history whose last tool result alone is over the budget"), big))
    earlier = random_conversation(source.randrange(1000, 1_000_000), turns=3, system=False, tools=False)
    for size, over in (("just under", False), ("just over", True)):
        turn = _turn_near_budget(source, over)
        cases.append((_("a history whose current turn is {tokens} tokens ({size} {budget})").format(
            tokens=exact_counter(turn), size=_(size), budget=EX06_HOOK_TOKENS), [*earlier, *turn]))
    return cases


def _turn_near_budget(rng: random.Random, over: bool) -> list[BaseMessage]:
    """A request, its tool call and a result whose lines make the turn just under or just over the budget."""
    tag = rng.randrange(1000, 10_000)
    lines: list[str] = []

    def turn(count):
        return [HumanMessage(f"Search the web for market {tag}.", id=f"near-h-{tag}"),
                AIMessage("", tool_calls=[{"name": "web_search", "args": {"query": f"market {tag}"},
                                           "id": f"near-c-{tag}", "type": "tool_call"}], id=f"near-a-{tag}"),
                ToolMessage("\n".join(lines[:count]), tool_call_id=f"near-c-{tag}", id=f"near-t-{tag}")]

    while exact_counter(turn(len(lines))) <= EX06_HOOK_TOKENS:
        lines.append(f"stall {len(lines) + 1}: {rng.choice(['fish', 'bread', 'cheese', 'fruit'])}, "
                     f"{rng.randrange(2, 40)} euros")
    return turn(len(lines) if over else len(lines) - 1)


def _decorated_function(hook):
    """The function ``@before_model`` wrapped (held in its method's closure), or None."""
    method = type(hook).__dict__.get("before_model")
    for cell in getattr(method, "__closure__", None) or ():
        if inspect.isfunction(cell.cell_contents):
            return cell.cell_contents
    return None


def _hook_result(q, hook, state_messages, about):
    """What the hook keeps of a state: its update's messages after RemoveMessage(REMOVE_ALL_MESSAGES).

    The hook runs watched (:func:`~course_utils.checks.spies.watching`): one
    that counts with the approximate counter stops here, since the question
    asks for ``exact_counter``.
    """
    def trim_history(state):  # named so a message says `trim_history` returned ...
        return hook.before_model(state, None)

    with watching(_decorated_function(hook) or trim_history) as seen:
        result = q.call(trim_history, {"messages": list(state_messages)}, about=about)
    if seen.approximate:
        q.stop(q.wrong(_("for {about}: your hook counts with the approximate counter; the question asks for "
                         "`token_counter=exact_counter`, the count the budget of {budget} tokens is in.").format(
                             about=about, budget=EX06_HOOK_TOKENS)))
    if result is None:
        return list(state_messages)
    if not isinstance(result, dict) or "messages" not in result:
        q.stop(q.wrong(_("for {about}: a before_model hook returns None or a state update "
                         "`{{\"messages\": [...]}}`, yours returned {describe}.").format(
                             about=about, describe=describe(result))))
    update = list(result["messages"])
    if not update or not (isinstance(update[0], RemoveMessage) and update[0].id == REMOVE_ALL_MESSAGES):
        q.stop(q.wrong(_("for {about}: your update does not start with RemoveMessage(id=REMOVE_ALL_MESSAGES). "
                         "add_messages merges an update into the state by id, so without it nothing is removed "
                         "and every call is still sent the whole history.").format(about=about)))
    return update[1:]


def _q2_prepare(q, answers):
    from langchain.agents.middleware import AgentMiddleware

    (trim_history,) = answers
    q.need(trim_history, "trim_history")
    if not isinstance(trim_history, AgentMiddleware) or "before_model" not in type(trim_history).__dict__:
        q.stop(q.wrong(_("`trim_history` should be the hook made by decorating your function with "
                         "`@before_model`, got {describe}.").format(describe=describe(trim_history))))
    written = _decorated_function(trim_history)
    if written is not None:
        q.need_function(written, "trim_history")  # a body that is still `...` is not attempted yet
    return answers


def _q2_cases(rng: random.Random) -> list[Case]:
    """The generated agent histories, then the lesson's task (the hook in the lesson's agent)."""
    cases = [Case(about, {"state": state}) for about, state in _agent_histories(rng)]
    return [*cases, Case(_("the lesson's task"), {"trip": True})]


def _q2_run(q, answers, case):
    """What the hook keeps of one history (and that history's current turn); or the lesson's agent run."""
    (trim_history,) = answers
    if case.data.get("trip"):
        _run, row = q.call(_trip_run, [trim_history], about=case.label)
        return {"trip": row}
    state = case["state"]
    given = list(state)
    before = snapshot(given)
    kept = _hook_result(q, trim_history, given, case.label)
    start = max(i for i, m in enumerate(state) if isinstance(m, HumanMessage))
    return {"kept": kept, "ids": [m.id for m in state], "kept_ids": [getattr(m, "id", None) for m in kept],
            "changed": snapshot(given) != before, "orphans": orphaned_tool_messages(kept), "turn": state[start:],
            "request": state[start].id, "state": state}


def _on_histories(test):
    """A rule about one history; the lesson's-task case passes it (its own rule judges the run)."""
    return lambda obs, case: "trip" in obs or bool(test(obs))


def _in_order(obs) -> bool:
    ids, kept = obs["ids"], obs["kept_ids"]
    return all(i in ids for i in kept) and kept == sorted(kept, key=ids.index)


def _expected_ids(obs) -> list:
    return [m.id for m in trim_messages(obs["state"], max_tokens=EX06_HOOK_TOKENS, token_counter=exact_counter,
                                        strategy="last", start_on="human", end_on=("human", "tool"))]


def _about(obs, case) -> dict:
    return {"about": case.label, "budget": EX06_HOOK_TOKENS}


Q2 = CodeQuestion(
    "a @before_model hook that never orphans a tool result",
    ("trim_history",),
    hints=(
        "Trim `state[\"messages\"]` with trim_messages(max_tokens=300, token_counter=exact_counter, "
        "strategy=\"last\", start_on=..., end_on=...) and return "
        "{\"messages\": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}.",
        "start_on=\"human\" keeps a tool result from being first without its call; end_on=(\"human\", \"tool\") "
        "lets the history end on a request or on tool results, where the model is called.",
        "When the current turn's tool results alone are over 300 tokens, the trim keeps nothing: keep the turn "
        "anyway, with its tool results shortened. `fit_turn(state[\"messages\"], 300, token_counter=exact_counter)` "
        "does that (lesson 06b, section 1).",
    ),
    prepare=_q2_prepare,
    cases=_q2_cases,
    run=_q2_run,
    rules=(
        Rule("a new list", _on_histories(lambda obs: not obs["changed"]),
             "for {about}: your hook changed the messages of the state in place; build a new list.", _about),
        Rule("the state's messages in order", _on_histories(_in_order),
             "for {about}: keep messages of the state, in their order (you returned {describe}).",
             lambda obs, case: {**_about(obs, case), "describe": describe(obs["kept_ids"])}),
        Rule("no orphan first", _on_histories(lambda obs: not (obs["orphans"] and obs["kept"][0].id == obs["orphans"][0].id)),
             "for {about}: the kept history starts with a tool result ({id}) without the AIMessage that called it; a "
             "provider refuses that. Use start_on=\"human\".",
             lambda obs, case: {**_about(obs, case), "id": obs["orphans"][0].id}),
        Rule("no orphan", _on_histories(lambda obs: not obs["orphans"]),
             "for {about}: the kept history holds a tool result ({id}) without the AIMessage that called it; a "
             "provider refuses that. Use start_on=\"human\".",
             lambda obs, case: {**_about(obs, case), "id": obs["orphans"][0].id}),
        Rule("within the budget", _on_histories(lambda obs: not obs["kept"] or exact_counter(obs["kept"]) <= EX06_HOOK_TOKENS),
             "for {about}: the kept history is {tokens} tokens (exact counter), over {budget}: trim with "
             "max_tokens={budget} and token_counter=exact_counter.",
             lambda obs, case: {**_about(obs, case), "tokens": exact_counter(obs["kept"])}),
        Rule("ends where the model is called",
             _on_histories(lambda obs: not obs["kept"] or isinstance(obs["kept"][-1], (HumanMessage, ToolMessage))),
             "for {about}: the kept history ends on {kind!r}; the model is called after a request or tool results: "
             "use end_on=(\"human\", \"tool\").", lambda obs, case: {**_about(obs, case), "kind": obs["kept"][-1].type}),
        Rule("a turn that fits keeps its request",
             _on_histories(lambda obs: obs["request"] in obs["kept_ids"] or exact_counter(obs["turn"]) > EX06_HOOK_TOKENS),
             "for {about}: the current turn ({count} messages, {tokens} tokens) fits in {budget} tokens but you "
             "dropped its request.",
             lambda obs, case: {**_about(obs, case), "count": len(obs["turn"]), "tokens": exact_counter(obs["turn"])}),
        Rule("the current turn is kept", _on_histories(lambda obs: obs["request"] in obs["kept_ids"]),
             "for {about}: the current turn alone is {tokens} tokens, over {budget}, and your hook keeps {kept}: the "
             "model would be sent no request to answer. Keep the current turn: when the trim keeps nothing, keep the "
             "whole turn and shorten its tool results (lesson 06b, section 1: `fit_turn(state[\"messages\"], "
             "{budget}, token_counter=exact_counter)`).",
             lambda obs, case: {**_about(obs, case), "tokens": exact_counter(obs["turn"]),
                                "kept": pgettext("exercise 06", "nothing") if not obs["kept"] else
                                pgettext("exercise 06", "none of it")}),
        Rule("the newest that fit", _on_histories(lambda obs: exact_counter(obs["turn"]) > EX06_HOOK_TOKENS
                                                  or obs["kept_ids"] == _expected_ids(obs)),
             "for {about}: you kept {kept}; the newest messages that fit in {budget} tokens counted with "
             "exact_counter, starting on a request and ending on a request or tool results, are {expected}.",
             lambda obs, case: {**_about(obs, case), "kept": describe(obs["kept_ids"]),
                                "expected": describe(_expected_ids(obs))}),
        Rule("the lesson's agent", lambda obs, case: "trip" not in obs or not (
            obs["trip"].turns_failed or obs["trip"].orphaned_tool_results),
             "in the lesson's agent, {failed} turns failed and {orphans} orphaned tool results were sent.",
             lambda obs, case: {"failed": obs["trip"].turns_failed, "orphans": obs["trip"].orphaned_tool_results}),
    ),
    praise="on agent histories generated now (ending on requests and on tool results; current turns just under, "
           "just over and far over 300 tokens) your hook kept at most 300 tokens (exact counter), always the current "
           "turn, and never a tool result without its call; in the lesson's agent no model call was refused.",
    seeds=2,
)
Q2.register(ex06)


# --- question 3: choose a strategy for a described agent ---------------------------------------

ChoiceQuestion(
    "choose a strategy for an agent",
    hints=(
        "Which later steps need which tool results? And must the stored history stay whole?",
        "Old file reads can be fetched again; test results cannot be re-read for free. One middleware clears "
        "old results only in what is sent, and can leave some tools alone.",
    ),
    options={
        "a": "Send everything: the model's window is 200,000 tokens.",
        "b": "SummarizationMiddleware with LangChain's default summary prompt and keep=(\"messages\", 20).",
        "c": "ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=30000, keep=3, exclude_tools=[\"run_tests\"])]).",
        "d": "A @before_model hook that trims with trim_messages(max_tokens=30000, start_on=\"human\") and "
             "replaces the state with RemoveMessage(id=REMOVE_ALL_MESSAGES).",
    },
    answer="c",
    feedback={
        "a": "it fits, but every call pays again for every file read, and answer quality falls as the input "
             "fills with old files (lost in the middle, context rot).",
        "b": "a summary of 20,000-token files is lossy and costs a summary call each time; the exact test results "
             "may not survive it, and the stored history is rewritten, so the review loses the raw output.",
        "d": "a trim rewrites the stored history, which must stay whole for review, and drops the old test "
             "results along with the files.",
    },
    praise="old file reads are cleared in what is sent (they can be read again), the test results stay because "
           "run_tests is excluded, and the stored history keeps everything for the review.",
    statements=EX06_Q3,
).register(ex06)


def __getattr__(name: str):
    """The module answers its exercise's names (``ex06.q1``, ``ex06.questions``), as the package's ``ex06`` does."""
    return getattr(ex06, name)
