"""Lesson 06: the offline model drives a real create_agent, and middleware manages its context.

Everything runs LangChain's own create_agent, SummarizationMiddleware,
ContextEditingMiddleware and before_model with the offline model and the
offline tools; what each model call received is recorded by a callback.
"""

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import (
    ClearToolUsesEdit,
    ContextEditingMiddleware,
    SummarizationMiddleware,
    before_model,
)
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, trim_messages
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from course_utils.agentic.agent_tools import TRIP_TOOLS, file_text, forecast_text, get_weather, search_text, web_search
from course_utils.agentic.agents import (
    AGENT_SUMMARY_PROMPT,
    ROLES,
    TRIP_PROBES,
    TRIP_SYSTEM_PROMPT,
    TRIP_TASK,
    call_rows,
    call_tokens,
    compare_runs,
    findings_summary,
    fit_turn,
    message_statuses,
    orphans_received,
    run_task,
    tokens_by_role,
    tool_schemas_message,
)
from course_utils.pictures.agent_views import call_html
from course_utils.model.chat import InvalidToolSequenceError, OfflineChatModel
from course_utils.window.tokens import exact_counter, shared_counter
from course_utils.model.tool_arguments import places_in
from course_utils.model.tool_calling import plan_tool_calls, recall_reply
from course_utils.window.sequences import orphaned_tool_messages

WINDOW = 2048


def trip_agent(model, middleware=()):
    return create_agent(model, tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT, middleware=list(middleware))


def run(middleware_for=lambda model: (), window=WINDOW, name="run"):
    model = OfflineChatModel(context_window=window)
    return run_task(trip_agent(model, middleware_for(model)), name=name), model


# --- the offline model drives an agent --------------------------------------------------


def test_create_agent_calls_a_tool_and_answers_from_its_result():
    agent = create_agent(OfflineChatModel(), tools=[get_weather])
    state = agent.invoke({"messages": [HumanMessage("What is the weather in Porto today?")]})
    messages = state["messages"]
    calls = [m for m in messages if isinstance(m, AIMessage) and m.tool_calls]
    results = [m for m in messages if isinstance(m, ToolMessage)]
    assert len(calls) == 1 and calls[0].tool_calls[0]["args"]["city"] == "Porto"
    assert len(results) == 1 and results[0].text.startswith("Porto, Saturday")
    answer = messages[-1]
    assert isinstance(answer, AIMessage) and not answer.tool_calls
    # The answer quotes a line of the tool result it was sent.
    assert any(line in answer.text for line in results[0].text.splitlines())


def test_a_request_naming_several_places_gets_several_calls_in_one_turn():
    reply = OfflineChatModel().bind_tools(TRIP_TOOLS).invoke("What is the weather in Porto and Lisbon on Saturday?")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Porto", "day": "Saturday"}),
        ("get_weather", {"city": "Lisbon", "day": "Saturday"}),
    ]
    assert len({c["id"] for c in reply.tool_calls}) == 2, "each call has its own id"


def test_a_request_naming_several_tools_calls_each():
    calls = plan_tool_calls(
        "Search the web for trains to Porto and read the file trip_notes.md",
        [t for t in OfflineChatModel().bind_tools(TRIP_TOOLS).kwargs["tools"]],
    )
    assert [c["name"] for c in calls] == ["web_search", "read_file"]
    assert calls[1]["args"] == {"path": "trip_notes.md"}


def test_a_tool_matches_by_its_description_but_not_by_one_stray_word():
    tool = {"type": "function", "function": {"name": "lookup", "description": "Exchange rates between currencies.",
            "parameters": {"type": "object", "properties": {}}}}
    assert plan_tool_calls("What are the exchange rates for euros?", [tool]) == [{"name": "lookup", "args": {}}]
    assert plan_tool_calls("What is the exchange like?", [tool]) == []


def test_places_leave_out_days():
    assert places_in("What is the weather in Porto today?") == ["Porto"]
    assert places_in("weather for New York, Boston and Lisbon") == ["New York", "Boston", "Lisbon"]


def test_it_answers_only_from_what_it_was_sent():
    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Porto"}, "id": "c1"}])
    result = ToolMessage(forecast_text("Porto"), tool_call_id="c1", name="get_weather")
    question = HumanMessage("How strong will the wind be in Porto on Saturday?")
    model = OfflineChatModel()
    seen = model.invoke([HumanMessage("Weather in Porto?"), call, result, AIMessage("Done."), question]).text
    assert "24 km/h" in seen
    cleared = result.model_copy(update={"content": "[cleared]"})
    unseen = model.invoke([HumanMessage("Weather in Porto?"), call, cleared, AIMessage("Done."), question]).text
    assert "24 km/h" not in unseen and "I only know what you've told me" in unseen
    assert recall_reply("anything?", [HumanMessage("hi")]) is None, "a plain chat is left to the chat rules"


def test_profile_gives_the_window_so_fraction_triggers_work():
    model = OfflineChatModel(context_window=WINDOW)
    assert model.profile["max_input_tokens"] == WINDOW
    middleware = SummarizationMiddleware(model, trigger=("fraction", 0.5), keep=("messages", 4), token_counter=exact_counter)
    result = run_task(trip_agent(model, [middleware]))
    assert result.summary_calls, "the fraction trigger fired"
    first = result.summary_calls[0]
    # It fired on the first turn whose stored history reached half the window.
    before = [c for c in result.agent_calls if c.number < first.number]
    assert all(exact_counter([m for m in c.messages if not isinstance(m, SystemMessage)]) < WINDOW // 2 for c in before)


def test_it_still_refuses_over_long_input_and_orphaned_tool_results():
    with pytest.raises(ValueError, match="maximum context length"):
        OfflineChatModel(context_window=50).invoke(file_text("trip_notes.md"))
    orphan = ToolMessage("sunny", tool_call_id="gone")
    with pytest.raises(InvalidToolSequenceError):
        OfflineChatModel().invoke([HumanMessage("hi"), orphan])


# --- the offline tools ---------------------------------------------------------------------


def test_tools_are_deterministic_and_some_results_are_large():
    assert web_search.invoke({"query": "food markets in Porto"}) == search_text("food markets in Porto")
    assert exact_counter([HumanMessage(search_text("food markets in Porto"))]) > 400
    assert exact_counter([HumanMessage(file_text("trip_notes.md"))]) > 200
    assert forecast_text("Atlantis").lower() == forecast_text("atlantis").lower(), "a stable forecast for any place"
    assert "Files in the trip folder" in file_text("nope.txt")
    with pytest.raises(ValueError, match="query"):
        search_text("")


# --- middleware on the lesson's task ---------------------------------------------------------


@pytest.fixture(scope="module")
def runs():
    everything, _ = run(window=100_000, name="everything")
    summarised, _ = run(
        lambda m: [SummarizationMiddleware(m, trigger=("tokens", 1200), keep=("messages", 4), token_counter=exact_counter,
                                           summary_prompt=AGENT_SUMMARY_PROMPT)], name="summarise")
    cleared, _ = run(lambda m: [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=1200, keep=1)],
                                                         token_counter=exact_counter)], name="clear")
    return {"everything": everything, "summarise": summarised, "clear": cleared}


def test_summarization_and_clear_tool_uses_each_reduce_the_tokens_sent(runs):
    rows = {row.strategy: row for row in compare_runs(runs.values())}
    full = rows["everything"]
    assert full.turns_failed == 0 and full.facts_answered == len(TRIP_PROBES)
    for name in ("summarise", "clear"):
        assert rows[name].turns_failed == 0
        assert rows[name].tokens_sent < full.tokens_sent, name
        assert rows[name].largest_call < full.largest_call, name
    assert rows["summarise"].summary_tokens > 0 and rows["clear"].summary_tokens == 0


def test_sending_everything_fails_once_the_window_is_full():
    failing, _ = run(window=WINDOW)
    assert [t.number for t in failing.failed_turns] == [len(TRIP_TASK)]
    assert "maximum context length" in failing.failed_turns[0].error


def test_what_each_strategy_still_knows(runs):
    # ClearToolUsesEdit keeps only the newest result; the model can no longer quote the others.
    cleared = runs["clear"]
    assert cleared.probes[-1].answered and not cleared.probes[0].answered
    assert any(s == "cleared" for row in message_statuses(cleared)[1] for s in row)
    _, grid = message_statuses(runs["summarise"])
    assert any("summarised" in row and "summary" in row for row in grid)


def test_the_recorder_sees_exactly_what_the_model_received():
    model = OfflineChatModel(context_window=100_000)
    result = run_task(trip_agent(model), TRIP_TASK[:2], probes=())
    assert [call.messages for call in result.agent_calls] == model.calls
    rows = call_rows(result)
    # The model counts a call as its messages plus one system message of schemas, primed once.
    schemas = tool_schemas_message(TRIP_TOOLS)
    assert [r.tokens for r in rows] == [exact_counter([*sent, schemas]) for sent in model.calls]
    exact = shared_counter("cl100k_base")  # the ExactTokenCounter behind exact_counter
    assert all(r.parts["tool schemas"] == exact.count_message(schemas) for r in rows), "the recorder saw the bound tools"
    assert all(r.parts["reply priming"] == exact.reply_tokens > 0 for r in rows), "primed once per call, not per message"
    assert rows[-1].parts["tool results"] > rows[-1].parts["human"], "tool results dominate"
    assert set(rows[0].parts) == set(ROLES)


def lesson_strategies():
    """Every strategy lesson 06 runs on its task, configured as the lesson configures it."""
    from langchain.agents.middleware import wrap_model_call
    from langgraph.prebuilt import create_react_agent

    from course_utils.agentic.agents import findings_summary

    def summarise(trigger, keep, **kwargs):
        return lambda m: [SummarizationMiddleware(m, trigger=trigger, keep=keep, token_counter=exact_counter, **kwargs)]

    @wrap_model_call
    def trim_request(request, handler):
        return handler(request.override(messages=trim_messages(request.messages, max_tokens=1000, **SAFE)))

    def prebuilt(model):
        with pytest.warns(Warning):  # deprecated in LangGraph 1.0, as the lesson shows
            return create_react_agent(model, TRIP_TOOLS, prompt=TRIP_SYSTEM_PROMPT, pre_model_hook=lambda state: {
                "llm_input_messages": trim_messages(state["messages"], max_tokens=1000, **SAFE)})

    return {
        "send everything": (WINDOW, lambda m: ()),
        "send everything (window 100,000)": (100_000, lambda m: ()),
        "summarise 1200 keep 4": (WINDOW, summarise(("tokens", 1200), ("messages", 4), summary_prompt=AGENT_SUMMARY_PROMPT)),
        "summarise fraction 0.6": (WINDOW, summarise(("fraction", 0.6), ("messages", 4), summary_prompt=AGENT_SUMMARY_PROMPT)),
        "summarise 1200 keep 600 tokens": (WINDOW, summarise(("tokens", 1200), ("tokens", 600), summary_prompt=AGENT_SUMMARY_PROMPT)),
        "summarise 500 keep 1": (WINDOW, summarise(("tokens", 500), ("messages", 1), summary_prompt=AGENT_SUMMARY_PROMPT)),
        "findings summary": (WINDOW, summarise(("tokens", 1200), ("messages", 4), summarizer=findings_summary)),
        "clear tool uses": (WINDOW, lambda m: [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=1200, keep=1)],
                                                                        token_counter=exact_counter)]),
        "before_model trim": (WINDOW, lambda m: [hook_middleware(lambda ms: trim_messages(ms, max_tokens=1000, **SAFE))]),
        "wrap_model_call trim": (WINDOW, lambda m: [trim_request]),
        "prebuilt pre_model_hook": (WINDOW, prebuilt),
    }


@pytest.mark.parametrize("name", list(lesson_strategies()))
def test_every_view_of_a_call_gives_the_input_count_the_model_reported(name):
    # The per-role parts, the call's total and the comparison table all count a call as the model does:
    # what it reported (usage_metadata, or the count in its refusal), for every call of the run.
    window, build = lesson_strategies()[name]
    model = OfflineChatModel(context_window=window)
    built = build(model)
    agent = built if hasattr(built, "invoke") else trip_agent(model, built)
    result = run_task(agent, name=name)
    assert result.calls and all(call.input_tokens is not None for call in result.calls), "the model reported every call"
    for call in result.calls:
        parts = tokens_by_role(call.messages, exact_counter, call.tools)
        assert sum(parts.values()) == call_tokens(call) == call.input_tokens, (name, call.number, call.kind, parts)
    rows = call_rows(result)
    assert [row.tokens for row in rows] == [call.input_tokens for call in result.agent_calls]
    (compared,) = compare_runs([result])
    assert compared.tokens_sent == sum(call.input_tokens for call in result.agent_calls)
    assert compared.summary_tokens == sum(call.input_tokens for call in result.summary_calls)
    for number, call in enumerate(result.agent_calls, start=1):
        assert f": {call.input_tokens:,} input tokens (the model reported {call.input_tokens:,})" in call_html(result, number)
    if name == "send everything":
        assert result.failed_turns and result.agent_calls[-1].error and result.agent_calls[-1].input_tokens > WINDOW


def hook_middleware(trim):
    @before_model
    def trim_history(state, runtime):
        kept = trim(state["messages"])
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    return trim_history


SAFE = dict(strategy="last", start_on="human", end_on=("human", "tool"), token_counter=exact_counter)


@pytest.mark.parametrize(
    "name, middleware_for",
    [
        ("summarise mid tool loop", lambda m: [SummarizationMiddleware(m, trigger=("tokens", 500), keep=("messages", 1),
                                                                        token_counter=exact_counter)]),
        ("summarise by fraction, keep tokens", lambda m: [SummarizationMiddleware(
            m, trigger=("fraction", 0.5), keep=("tokens", 300), token_counter=exact_counter)]),
        ("clear all but one", lambda m: [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=600, keep=1)],
                                                                 token_counter=exact_counter)]),
        ("trim hook", lambda m: [hook_middleware(lambda ms: trim_messages(ms, max_tokens=900, **SAFE))]),
        ("fit_turn hook", lambda m: [hook_middleware(lambda ms: fit_turn(ms, 700))]),
    ],
)
def test_no_model_call_ever_receives_an_orphaned_tool_result(name, middleware_for):
    result, model = run(middleware_for, name=name)
    assert result.calls and orphans_received(result) == 0, name
    assert all(not orphaned_tool_messages(sent) for sent in model.calls)
    assert not result.failed_turns, [t.error for t in result.failed_turns]


def test_the_orphan_check_catches_a_naive_trim():
    naive = hook_middleware(lambda ms: trim_messages(ms, max_tokens=900, strategy="last", token_counter=exact_counter))
    result, _ = run(lambda m: [naive])
    assert orphans_received(result) > 0
    assert any("tool_call_id" in (t.error or "") for t in result.failed_turns), "the model refused it"


def test_fit_turn_keeps_the_current_turn_when_its_results_alone_exceed_the_budget():
    model = OfflineChatModel(context_window=100_000)
    result = run_task(trip_agent(model), TRIP_TASK[:2], probes=())
    history = [SystemMessage(TRIP_SYSTEM_PROMPT), *result.messages[:-1]]  # ends on the search's tool result
    safe = trim_messages(history, max_tokens=400, include_system=True, **SAFE)
    assert [m.type for m in safe] == ["system"], "start_on='human' leaves only the system message"
    fitted = fit_turn(history, 400)
    assert exact_counter(fitted) <= 400
    assert [m.type for m in fitted[:3]] == ["system", "human", "ai"] and fitted[-1].type == "tool"
    assert fitted[1].text == TRIP_TASK[1] and not orphaned_tool_messages(fitted)
    assert "cut to fit the budget" in fitted[-1].text


def test_findings_summary_keeps_the_figures_of_tool_results():
    result, _ = run(window=100_000)
    summary = findings_summary(result.messages)
    for _question, expected, _turn in TRIP_PROBES:
        assert expected in summary
    assert exact_counter([HumanMessage(summary)]) < exact_counter(result.messages) / 2


# --- bad input ---------------------------------------------------------------------------------


def test_bad_arguments_name_the_parameter():
    agent = trip_agent(OfflineChatModel())
    with pytest.raises(ValueError, match="requests"):
        run_task(agent, "What is the weather in Porto?")
    with pytest.raises(TypeError, match="messages"):
        tokens_by_role("hello")
    with pytest.raises(ValueError, match="max_tokens"):
        fit_turn([HumanMessage("hi")], 0)
    with pytest.raises(ValueError, match="max_lines_per_result"):
        findings_summary([], max_lines_per_result=0)


# --- the lesson's widget, without a browser ---------------------------------------------------------


def test_agent_step_explorer_follows_its_controls(runs):
    from course_utils.pictures.agent_views import agent_step_explorer, call_status_line

    explorer = agent_step_explorer(list(runs.values()))
    assert explorer.strategy.description == "strategy" and explorer.call.description == "model call"
    assert explorer.strategy.value == "everything" and explorer.call.value == 1
    explorer.strategy.value = "clear"
    explorer.call.value = explorer.call.max
    last = runs["clear"].agent_calls[-1]
    assert call_status_line(runs["clear"], explorer.call.max) in explorer.view.value
    assert explorer.view.value.count('data-role="cleared tool results"') == sum(
        1 for m in last.messages if m.type == "tool" and m.text == "[cleared]")
    assert repr(explorer).startswith("AgentStepExplorer('clear', call 8 of 8)")
    with pytest.raises(ValueError, match="different names"):
        agent_step_explorer([runs["clear"], runs["clear"]])
    with pytest.raises(TypeError, match="runs"):
        agent_step_explorer([])


# --- tokens sent are not money: what a prompt cache could read --------------------------------


def _clearing(clear_at_least):
    model = OfflineChatModel(context_window=WINDOW)
    edit = ClearToolUsesEdit(trigger=1200, keep=1, clear_at_least=clear_at_least)
    return run_task(trip_agent(model, [ContextEditingMiddleware(edits=[edit], token_counter=exact_counter)]),
                    name=f"clear_at_least {clear_at_least}")


def test_prefix_reuse_of_an_append_only_history_is_every_previous_call():
    from course_utils.agentic.agents import prefix_reuse

    run = run_task(trip_agent(OfflineChatModel(context_window=100_000)), name="send everything")
    reuse = prefix_reuse(run)
    assert reuse.rewrites == 0
    assert reuse.tokens_sent == sum(call_tokens(c) for c in run.agent_calls)
    # Computed independently: each call can reuse the whole previous call's input, minus its reply priming.
    priming = shared_counter("cl100k_base").reply_tokens
    expected = sum(call_tokens(previous) - priming for previous in run.agent_calls[:-1])
    assert reuse.cacheable_tokens == expected
    assert reuse.uncached_tokens == reuse.tokens_sent - expected
    assert prefix_reuse(run, min_cached_tokens=10**6).cacheable_tokens == 0  # below a provider's minimum: nothing


def test_clearing_rewrites_the_prefix_and_clear_at_least_rewrites_it_less_often():
    from course_utils.agentic.agents import prefix_reuse

    everything = prefix_reuse(run_task(trip_agent(OfflineChatModel(context_window=100_000)), name="everything"))
    default, at_least = prefix_reuse(_clearing(0)), prefix_reuse(_clearing(600))
    assert default.tokens_sent < at_least.tokens_sent < everything.tokens_sent  # clearing sends fewer tokens...
    assert default.rewrites > at_least.rewrites > everything.rewrites == 0  # ...and rewrites the prefix
    assert default.uncached_tokens > everything.uncached_tokens  # so fewer tokens sent is not fewer billed in full
    with pytest.raises(TypeError, match="run"):
        prefix_reuse("a run")
    with pytest.raises(ValueError, match="min_cached_tokens"):
        prefix_reuse(_clearing(0), min_cached_tokens=-1)


# --- lesson 06's strategies in one call, for any chat model ------------------------------------


def test_run_strategies_matches_the_lessons_runs_and_takes_any_model():
    from course_utils.agentic.agent_strategies import STRATEGIES, run_strategies

    made = []

    def make_model(window):
        made.append(window)
        return OfflineChatModel(context_window=window)

    names = ["send everything", "clear tool uses (trigger 1200, keep 1)", "prebuilt agent, pre_model_hook (1000)"]
    runs = run_strategies(make_model, names=names)
    assert list(runs) == names and made == [WINDOW] * 3  # one fresh model per run, from the function given
    assert set(names) <= set(STRATEGIES)
    built = {name: lesson_strategies()[key] for name, key in zip(names, ["send everything", "clear tool uses",
                                                                          "prebuilt pre_model_hook"])}
    for name, (window, build) in built.items():
        model = OfflineChatModel(context_window=window)
        made_here = build(model)
        agent = made_here if hasattr(made_here, "invoke") else trip_agent(model, made_here)
        (expected,), (got,) = compare_runs([run_task(agent, name=name)]), compare_runs([runs[name]])
        assert got == expected, name


def test_run_strategies_bad_arguments():
    from course_utils.agentic.agent_strategies import run_strategies

    with pytest.raises(ValueError, match="name must be one of"):
        run_strategies(names=["send nothing"])
    with pytest.raises(TypeError, match="names"):
        run_strategies(names="send everything")
    with pytest.raises(TypeError, match="make_model must return a chat model"):
        run_strategies(lambda window: "gpt", names=["send everything"])
    with pytest.raises(TypeError, match="make_model"):
        run_strategies(42)


# --- what the installed middleware does (lesson 06, section 3; lesson 06b, section 4) -----------------------


def _installed_lines(module):
    """The installed source of a langchain module, as a list of lines (1-based: lines[n - 1] is line n)."""
    from pathlib import Path

    return Path(module.__file__).read_text(encoding="utf-8").splitlines()


def test_clear_tool_uses_trigger_counts_request_messages_only_with_a_custom_counter():
    """langchain/agents/middleware/context_editing.py (langchain 1.5.2), the lines lesson 06 teaches:

    - line 86, ``ClearToolUsesEdit.apply``: ``tokens = count_tokens(messages)``: the trigger counts the list it is given;
    - lines 270 and 272, ``wrap_model_call``: that list is ``request.messages`` (no system message, no tools);
    - lines 235-236, ``_resolve_token_counter``: a custom ``token_counter`` is used as it is, while the
      system prompt and ``request.tools`` are added only for ``token_count_method="model"`` (line 245).

    Read from the installed file: if LangChain changes this, the test fails and the lesson must be re-read.
    """
    from langchain.agents.middleware import context_editing

    lines = _installed_lines(context_editing)
    assert lines[86 - 1].strip() == "tokens = count_tokens(messages)"
    assert lines[270 - 1].strip() == "edited_messages = deepcopy(list(request.messages))"
    assert lines[272 - 1].strip() == "edit.apply(edited_messages, count_tokens=count_tokens)"
    assert lines[235 - 1].strip() == "if self.token_counter is not None:"
    assert lines[236 - 1].strip() == "return self.token_counter"
    assert lines[245 - 1].strip() == "system_msg + list(messages), request.tools"


def test_a_custom_trigger_counter_never_sees_the_system_prompt_and_lets_a_call_over_the_trigger_through():
    """The behaviour itself: the counter is only ever given messages without the system prompt, and a call the
    model counts over the trigger goes out uncleared when its messages alone are under it."""
    seen = []

    def counting(messages):
        seen.append(list(messages))
        return exact_counter(messages)

    middleware = ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=1200, keep=1)], token_counter=counting)
    agent = create_agent(OfflineChatModel(context_window=2048), tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT,
                         middleware=[middleware])
    run = run_task(agent, TRIP_TASK[:3], probes=(), name="clearing")
    assert seen and not any(isinstance(m, SystemMessage) for messages in seen for m in messages)
    uncleared_over = [c for c in run.agent_calls if c.input_tokens > 1200 and not any(
        isinstance(m, ToolMessage) and m.text == "[cleared]" for m in c.messages)]
    assert uncleared_over, "a call over the trigger, as the model counts it, went out uncleared"
    for call in uncleared_over:
        assert exact_counter([m for m in call.messages if not isinstance(m, SystemMessage)]) <= 1200


def test_summarization_catches_overflow_only_in_its_summary_call():
    """langchain/agents/middleware/summarization.py (langchain 1.5.2): ``_create_summary`` catches
    ContextOverflowError at line 941 and retries with ``_overflow_retry_prompt`` (line 942), whose budget is
    half the tokens (line 1001) and at most 40% of the summariser's max_input_tokens (line 1004). The agent's
    own model call is not wrapped: the middleware has no wrap_model_call."""
    from langchain.agents.middleware import AgentMiddleware, summarization

    lines = _installed_lines(summarization)
    assert lines[941 - 1].strip() == "except ContextOverflowError:"
    assert lines[942 - 1].strip() == "retry_prompt = self._overflow_retry_prompt(trimmed_messages)"
    assert lines[1001 - 1].strip() == "budget = tokens // 2"
    assert lines[1004 - 1].strip() == "budget = min(budget, max_input_tokens * 2 // 5)"
    assert SummarizationMiddleware.wrap_model_call is AgentMiddleware.wrap_model_call


def test_a_summary_call_that_overflows_is_retried_shorter_offline():
    model = OfflineChatModel(context_window=2048)
    middleware = SummarizationMiddleware(model, trigger=("tokens", 1200), keep=("messages", 4),
                                         token_counter=exact_counter, summary_prompt=AGENT_SUMMARY_PROMPT,
                                         trim_tokens_to_summarize=None, summarizer=OfflineChatModel(context_window=700))
    agent = create_agent(model, tools=TRIP_TOOLS, system_prompt=TRIP_SYSTEM_PROMPT, middleware=[middleware])
    run = run_task(agent, TRIP_TASK, probes=(), name="small summariser")
    first, retry = run.summary_calls[:2]
    assert first.error.startswith("ContextWindowExceededError") and first.input_tokens > 700
    assert retry.error is None and retry.input_tokens <= 700 * 2 // 5 + 100  # the cut history plus the prompt
    assert "[... middle of conversation omitted ...]" in retry.messages[0].text
    assert not run.failed_turns


def test_lesson06_saved_tools_are_the_packages_tools():
    """Lesson 06 writes its tools and prompt in a #@save cell; the package keeps twins (agentic, a lower layer than
    lessons, cannot import them, and tool_catalogue, subagents and the checks use them): the two never differ."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from course_utils.lessons import lesson06

    assert [convert_to_openai_tool(t) for t in lesson06.TOOLS] == [convert_to_openai_tool(t) for t in TRIP_TOOLS]
    arguments = {"get_weather": {"city": "Porto"}, "web_search": {"query": "trains Lisbon Porto"},
                 "read_file": {"path": "trip_notes.md"}}
    for saved, package in zip(lesson06.TOOLS, TRIP_TOOLS):
        assert saved.invoke(arguments[saved.name]) == package.invoke(arguments[package.name])
    assert lesson06.SYSTEM_PROMPT == TRIP_SYSTEM_PROMPT
    assert lesson06.SUMMARY_PROMPT == AGENT_SUMMARY_PROMPT
