"""Isolation and tool selection (lesson 07b): every model call of parent, child and selector is accounted for."""

import pytest
from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.messages import HumanMessage

from course_utils.agentic.call_accounting import AgentCallRecorder, run_requests, tally
from course_utils.model.chat import OfflineChatModel
from course_utils.model.choice_replies import choice_call, choose, options_of
from course_utils.agentic.subagents import (
    CHILD_NAME, DETAIL_EXPECTED, DETAIL_QUESTION, PARENT_NAME, RESEARCH_TASK, ask_after, break_even,
    build_isolated, build_single, compare_isolation, cumulative_tokens,
)
from course_utils.agentic.tool_catalogue import CATALOGUE
from course_utils.agentic.tool_selection import (
    SELECTION_TASK, TWO_TOOL_REQUEST, build_tool_agent, schema_rows, schema_tokens, selection_summary,
)


def _models():
    return OfflineChatModel(model_name="offline-parent", context_window=100_000), \
        OfflineChatModel(model_name="offline-child", context_window=100_000)


def test_accounting_equals_the_sum_of_usage_metadata_of_parent_and_child():
    parent, child = _models()
    usage = UsageMetadataCallbackHandler()  # LangChain's own sum of usage_metadata, per model name
    recorder = AgentCallRecorder()
    agent = build_isolated(parent, child)
    agent.invoke({"messages": [HumanMessage(RESEARCH_TASK[0])]}, {"callbacks": [recorder, usage]})
    tallies = {t.agent: t for t in tally(recorder.labelled)}
    assert set(tallies) == {PARENT_NAME, CHILD_NAME}
    assert tallies[PARENT_NAME].calls == len(parent.calls) == 2
    assert tallies[CHILD_NAME].calls == len(child.calls) == 2
    for name, model in ((PARENT_NAME, "offline-parent"), (CHILD_NAME, "offline-child")):
        assert tallies[name].input_tokens == usage.usage_metadata[model]["input_tokens"]
        assert tallies[name].output_tokens == usage.usage_metadata[model]["output_tokens"]
    assert sum(t.total_tokens for t in tallies.values()) == sum(u["total_tokens"] for u in usage.usage_metadata.values())


def test_run_requests_counts_every_call_of_every_turn():
    parent, child = _models()
    run = run_requests(build_isolated(parent, child), RESEARCH_TASK[:2], name="iso")
    assert run.total_calls == len(parent.calls) + len(child.calls) == 8
    assert run.tokens_after(2) == run.total_tokens > run.tokens_after(1) > 0
    assert all(c.turn in (1, 2) for c in run.calls)


def test_isolation_shrinks_the_parent_window_and_pays_only_after_some_requests():
    comparison = compare_isolation(OfflineChatModel(context_window=100_000))
    single_window, parent_window = comparison.parent_window()
    assert parent_window < single_window / 2
    assert comparison.isolated.total_calls == 2 * comparison.single.total_calls
    # one request: the sub-agent costs more; over the task it costs less
    assert cumulative_tokens(comparison.isolated)[0] > cumulative_tokens(comparison.single)[0]
    turns = break_even(comparison.single, comparison.isolated)
    assert turns is not None and 1 < turns <= len(RESEARCH_TASK)
    assert comparison.isolated.answers[0].count("08:00") and comparison.single.answers[0].count("08:00")


def test_the_parent_never_saw_what_the_child_read():
    model = OfflineChatModel(context_window=100_000)
    comparison = compare_isolation(model, RESEARCH_TASK[:1])
    assert DETAIL_EXPECTED in ask_after(build_single(model), comparison.single, DETAIL_QUESTION)
    assert DETAIL_EXPECTED not in ask_after(build_isolated(model), comparison.isolated, DETAIL_QUESTION)


def test_break_even_is_none_when_isolation_never_pays():
    comparison = compare_isolation(OfflineChatModel(context_window=100_000), RESEARCH_TASK[:1])
    assert break_even(comparison.single, comparison.isolated) is None


def test_tally_refuses_bad_input():
    with pytest.raises(ValueError, match="by"):
        tally([], by="model")
    with pytest.raises(TypeError, match="LabelledCall"):
        tally(["call"])
    with pytest.raises(ValueError, match="requests"):
        run_requests(object(), "one request")


# --- the offline selector ----------------------------------------------------------


def _choices(*pairs):
    items = {"anyOf": [{"const": n, "description": d, "type": "string"} for n, d in pairs]}
    return {"type": "function", "function": {"name": "Pick", "description": "Select.", "parameters": {
        "type": "object", "required": ["tools"], "properties": {"tools": {"type": "array", "items": items}}}}}


def test_choose_orders_by_match_and_leaves_out_what_is_not_asked():
    options = [("add", "Add two numbers."), ("get_weather", "Weather for a city."), ("send_email", "Send an email.")]
    assert choose("Rain or sunny in Porto, and what is 2 plus 3?", options) == ["get_weather", "add"]
    assert choose("Will it rain in Porto, and what is 2 plus 3?", options) == ["add", "get_weather"]  # a tie: order listed
    assert choose("Book me a table", options) == []


def test_choice_call_only_for_a_forced_single_list_of_choices():
    schema = _choices(("add", "Add two numbers."), ("multiply", "Multiply two numbers."))
    asked = [HumanMessage("What is 4 times 5?")]
    assert choice_call(asked, [schema], "any") == {"name": "Pick", "args": {"tools": ["multiply"]}}
    assert choice_call(asked, [schema], "Pick") == {"name": "Pick", "args": {"tools": ["multiply"]}}
    assert choice_call(asked, [schema], None) is None
    assert choice_call(asked, [schema, schema], "any") is None
    plain = {"type": "function", "function": {"name": "add", "parameters": {"type": "object", "properties": {
        "a": {"type": "number"}}}}}
    assert choice_call(asked, [plain], "any") is None
    assert options_of({"type": "array", "items": {"enum": ["x", "y"]}}) == [("x", ""), ("y", "")]


def test_with_structured_output_answers_the_tool_selector_schema():
    from langchain.agents.middleware.tool_selection import _create_tool_selection_response

    schema = _create_tool_selection_response(CATALOGUE).json_schema()
    model = OfflineChatModel().with_structured_output(schema)
    assert model.invoke([HumanMessage("Which trains go from Lisbon to Porto?")]) == {"tools": ["train_times"]}


# --- tool selection ------------------------------------------------------------------


def test_schema_tokens_are_what_the_model_counts():
    model = OfflineChatModel()
    bare = model.get_num_tokens_from_messages([HumanMessage("hi")])
    assert model.get_num_tokens_from_messages([HumanMessage("hi")], CATALOGUE) - bare == schema_tokens(CATALOGUE)
    assert schema_tokens([]) == 0
    with pytest.raises(TypeError, match="tools"):
        schema_tokens("get_weather")


def test_selection_cuts_schema_tokens_per_call_but_adds_selector_calls():
    model = OfflineChatModel(context_window=100_000)
    plain = run_requests(build_tool_agent(model), SELECTION_TASK, name="all")
    chosen = run_requests(build_tool_agent(model, select=True), SELECTION_TASK, name="selected")
    before, after = selection_summary(plain), selection_summary(chosen)
    assert before.schema_tokens_per_agent_call == schema_tokens(CATALOGUE)
    assert after.schema_tokens_per_agent_call < before.schema_tokens_per_agent_call / 3
    assert after.selection_calls == after.agent_calls == before.agent_calls
    assert chosen.answers == plain.answers
    rows = schema_rows(chosen)
    assert [r.purpose for r in rows[:2]] == ["selection", "agent"] and rows[1].tools == ("get_weather",)
    assert sum(r.input_tokens for r in rows) == sum(c.input_tokens for c in chosen.calls)


def test_a_tool_left_out_by_the_selector_leaves_part_of_the_request_unanswered():
    model = OfflineChatModel(context_window=100_000)
    three = run_requests(build_tool_agent(model, select=True, max_tools=3), [TWO_TOOL_REQUEST])
    one = run_requests(build_tool_agent(model, select=True, max_tools=1), [TWO_TOOL_REQUEST])
    assert "165" in three.answers[0] and "165" not in one.answers[0]
    assert schema_rows(one)[1].tools == ("get_weather",)


# --- the pictures ------------------------------------------------------------------------


def test_figures_state_their_point_from_the_numbers_they_draw():
    from course_utils.pictures.isolation_views import schema_figure, totals_figure, windows_figure

    comparison = compare_isolation(OfflineChatModel(context_window=100_000), RESEARCH_TASK[:3])
    single, parent = comparison.parent_window()
    windows = windows_figure(comparison)
    assert f"{single} tokens" in windows.alt_text and f"largest was {parent}" in windows.alt_text
    totals = totals_figure(comparison)
    turns = break_even(comparison.single, comparison.isolated)
    assert f"from request {turns} on" in totals.alt_text
    model = OfflineChatModel(context_window=100_000)
    before = schema_rows(run_requests(build_tool_agent(model), SELECTION_TASK[:1]))
    after = schema_rows(run_requests(build_tool_agent(model, select=True), SELECTION_TASK[:1]))
    figure = schema_figure(before, after)
    assert f"carried {schema_tokens(CATALOGUE)} schema tokens" in figure.alt_text
    with pytest.raises(TypeError, match="before"):
        schema_figure([], after)
    with pytest.raises(TypeError, match="comparison"):
        windows_figure("runs")


# --- what lesson 07b writes in its cells, and what it prices -------------------------------------


def test_the_lessons_sub_agent_runs_as_the_packages_does():
    from course_utils.lessons.lesson07b import research_agents, single_agent

    def model():  # a fresh one each time: the offline model numbers its tool-call ids per instance
        return OfflineChatModel(context_window=100_000)

    package = compare_isolation(model(), RESEARCH_TASK[:2])
    lesson_isolated = run_requests(research_agents(model()), RESEARCH_TASK[:2], name="lesson")
    lesson_single = run_requests(single_agent(model()), RESEARCH_TASK[:2], name="lesson")
    assert [c.agent for c in lesson_isolated.calls] == [c.agent for c in package.isolated.calls]
    assert lesson_isolated.total_tokens == package.isolated.total_tokens
    assert lesson_isolated.answers == package.isolated.answers
    assert lesson_single.total_tokens == package.single.total_tokens


def test_billable_calls_add_up_to_what_the_models_reported_and_key_schemas_by_tool_set():
    from course_utils.agentic.subagents import billable_calls

    run = compare_isolation(OfflineChatModel(context_window=100_000), RESEARCH_TASK[:2]).isolated
    billed = billable_calls(run.calls)
    assert [c.input_tokens for c in billed] == [c.input_tokens for c in run.calls]
    assert [c.output_tokens for c in billed] == [c.output_tokens for c in run.calls]
    assert {c.message_keys[0] for c in billed} == {"tools:research", "tools:web_search"}
    with pytest.raises(TypeError, match="calls"):
        billable_calls("run")


def test_with_caching_the_child_reads_nothing_because_its_calls_are_under_the_minimum():
    from course_utils.agentic.subagents import billable_calls
    from course_utils.window.costs import Prices, bill

    prices = Prices(input=2.0, output=10.0, cached_input=0.1, cache_write=2.5, min_cached_tokens=1024)
    comparison = compare_isolation(OfflineChatModel(context_window=100_000))
    child = [c for c in comparison.isolated.calls if c.agent == CHILD_NAME]
    assert max(c.input_tokens for c in child) < prices.min_cached_tokens
    assert bill(billable_calls(child), prices).cached_tokens == 0
    single = billable_calls(comparison.single.calls)
    assert bill(single, prices).cached_tokens > 0
    assert bill(single, prices).cost < bill(single, prices, caching=False).cost


def test_the_selector_is_sent_its_own_prompt_and_the_last_user_message_only():
    import inspect
    import re

    from langchain.agents.middleware import tool_selection as source

    # langchain 1.5.2, langchain/agents/middleware/tool_selection.py: _prepare_selection_request sets
    # system_message = self.system_prompt (line 258) and finds the last HumanMessage (lines 268-276);
    # wrap_model_call sends exactly these two (lines 403-406).
    text = inspect.getsource(source.LLMToolSelectorMiddleware)
    assert "system_message = self.system_prompt" in text
    assert re.search(r'messages: list\[BaseMessage \| dict\[str, Any\]\] = \[\s*'
                     r'\{"role": "system", "content": selection_request\.system_message\},\s*'
                     r'selection_request\.last_user_message,\s*\]', text)
    model = OfflineChatModel(context_window=100_000)
    run = run_requests(build_tool_agent(model, select=True), SELECTION_TASK[:2])
    sent = [c.call.messages for c in run.calls if c.purpose == "selection"][-1]
    assert [m.type for m in sent] == ["system", "human"]
    assert sent[0].text.startswith(source.DEFAULT_SYSTEM_PROMPT) and "travel assistant" not in sent[0].text
    assert sent[1].text == SELECTION_TASK[1], "the last user message, not the conversation"
