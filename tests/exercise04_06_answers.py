"""Right, wrong and hostile answers to exercises 04, 05 and 06, as a learner would write them.

Used by tests/test_checks_table_04_06.py. A hostile answer is built to get "Correct" without being right:
a function that remembers the answers of the check's fixed cases, a node that first sends the whole history,
a hook that only trims when a turn is far over the budget.
"""

from __future__ import annotations

from langchain.agents.middleware import before_model
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from course_utils.agentic.agents import fit_turn
from course_utils.agentic.checkpoints import erase_thread
from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT
from course_utils.window.growth import replay_growth
from course_utils.window.sequences import valid_tail
from course_utils.window.tokens import approximate_counter, exact_counter


def _safe(messages, max_tokens, **changes):
    options = dict(max_tokens=max_tokens, token_counter="approximate", strategy="last", start_on="human",
                   include_system=True)
    options.update(changes)
    options = {k: v for k, v in options.items() if v is not None}
    return trim_messages(messages, **options)


# --- 04 q2: trim inside the node -------------------------------------------------------------------

def node(**changes):
    def make_chatbot_node(model, max_tokens=128):
        def chatbot(state):
            return {"messages": [model.invoke(_safe(state["messages"], max_tokens, **changes))]}
        return chatbot
    return make_chatbot_node


node_right = node()
node_first = node(strategy="first", start_on=None, include_system=None)
node_no_system = node(include_system=None)
node_no_start_on = node(start_on=None)


def node_in_place(model, max_tokens=128):
    def chatbot(state):
        state["messages"][:] = _safe(state["messages"], max_tokens)
        return {"messages": [model.invoke(state["messages"])]}
    return chatbot


def node_removes(model, max_tokens=128):
    def chatbot(state):
        sent = _safe(state["messages"], max_tokens)
        kept = {m.id for m in sent}
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"] if m.id not in kept]
                + [model.invoke(sent)]}
    return chatbot


def node_whole_via_batch(model, max_tokens=128):
    """Hostile: the whole history goes to the model through another method first."""
    def chatbot(state):
        model.batch([state["messages"]])
        return {"messages": [model.invoke(_safe(state["messages"], max_tokens))]}
    return chatbot


def node_fixed_caps(model, max_tokens=128):
    """Hostile: a cap read from a table of the check's fixed caps, not the argument."""
    def chatbot(state):
        return {"messages": [model.invoke(_safe(state["messages"], {80: 80, 100: 100}.get(max_tokens, 60)))]}
    return chatbot


def node_whole_first(model, max_tokens=128):
    """Hostile: sends the whole history first, then the trimmed list; the last call alone looks right."""
    def chatbot(state):
        model.invoke(state["messages"])
        return {"messages": [model.invoke(_safe(state["messages"], max_tokens))]}
    return chatbot


def node_constant_cap(cap):
    """Hostile: a cap typed in, not the argument."""
    def make_chatbot_node(model, max_tokens=128):
        return node()(model, cap)
    return make_chatbot_node


def node_twice(model, max_tokens=128):
    """Hostile: the trimmed list, sent twice (every call is billed)."""
    def chatbot(state):
        model.invoke(_safe(state["messages"], max_tokens))
        return {"messages": [model.invoke(_safe(state["messages"], max_tokens))]}
    return chatbot


def node_system_and_last(model, max_tokens=128):
    """Hostile: the system prompt and the last question only: always under the cap, never starts on an AI message."""
    def chatbot(state):
        messages = state["messages"]
        return {"messages": [model.invoke([messages[0], messages[-1]])]}
    return chatbot


# --- 04 q4: store only what you send ----------------------------------------------------------------

def forgetful_right(model, max_tokens=40):
    def chatbot(state):
        trimmed = _safe(state["messages"], max_tokens)
        reply = model.invoke(trimmed)
        kept = {m.id for m in trimmed}
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"] if m.id not in kept] + [reply]}
    return chatbot


def forgetful_merge(model, max_tokens=40):
    def chatbot(state):
        trimmed = _safe(state["messages"], max_tokens)
        return {"messages": trimmed + [model.invoke(trimmed)]}
    return chatbot


def forgetful_everything(model, max_tokens=40):
    """Hostile: removes every message, so the file holds nothing: but the thread no longer stores what was sent."""
    def chatbot(state):
        trimmed = _safe(state["messages"], max_tokens)
        reply = model.invoke(trimmed)
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), reply]}
    return chatbot


def erase_right(graph, thread_id):
    config = {"configurable": {"thread_id": thread_id}}
    values = graph.get_state(config).values
    erase_thread(graph.checkpointer, thread_id)
    graph.update_state(config, values, as_node="chatbot")


def erase_nothing(graph, thread_id):
    return None


def erase_delete_only(graph, thread_id):
    config = {"configurable": {"thread_id": thread_id}}
    values = graph.get_state(config).values
    graph.checkpointer.delete_thread(thread_id)
    graph.update_state(config, values, as_node="chatbot")


def erase_typed_thread(graph, thread_id):
    """Hostile: erases the thread id it once saw, not the one it is given."""
    erase_right(graph, "check")


def erase_not_written_back(graph, thread_id):
    erase_thread(graph.checkpointer, thread_id)


def forgetful_whole_first(model, max_tokens=40):
    """Hostile: the whole history goes to the model first; what is stored afterwards is right."""
    node_ = forgetful_right(model, max_tokens)

    def chatbot(state):
        model.invoke(state["messages"])
        return node_(state)
    return chatbot


def forgetful_constant_cap(cap):
    """Hostile: a cap typed in, not the argument."""
    def make_forgetful_node(model, max_tokens=40):
        return forgetful_right(model, cap)
    return make_forgetful_node


def forgetful_keeps_last(model, max_tokens=40):
    """Hostile: stores only the reply: the file holds nothing dropped, but the thread no longer stores what was sent."""
    def chatbot(state):
        trimmed = _safe(state["messages"], max_tokens)
        reply = model.invoke(trimmed)
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"]] + [reply]}
    return chatbot


def erase_every_thread(graph, thread_id):
    """Hostile: erases a thread id typed in, and writes nothing back."""
    erase_thread(graph.checkpointer, "thread-1000")


# --- 04 q5: the summary node ------------------------------------------------------------------------

def summarize(tail="valid", prompt="right", summary="reply", calls=1):
    def make_summarize_node(model, keep_last=2):
        def summarize_conversation(state):
            old = state.get("summary", "")
            text = EXTEND_SUMMARY_PROMPT.format(summary=old) if old and prompt == "right" else CREATE_SUMMARY_PROMPT
            messages = state["messages"]
            response = None
            for _ in range(calls):
                response = model.invoke(messages + [HumanMessage(text)])
            kept = valid_tail(messages, keep_last) if tail == "valid" else messages[-keep_last:]
            older = messages[: len(messages) - len(kept)]
            written = response.content if summary == "reply" else "The user's name is Bob."
            if tail == "keep":
                return {"summary": written, "messages": list(kept)}
            return {"summary": written, "messages": [RemoveMessage(id=m.id) for m in older]}
        return summarize_conversation
    return make_summarize_node


summary_right = summarize()
summary_slice = summarize(tail="slice")
summary_keeps = summarize(tail="keep")
summary_always_create = summarize(prompt="create")
summary_typed = summarize(summary="typed")
summary_twice = summarize(calls=2)


# --- 05 q1, q2: H_max and its change, as functions ---------------------------------------------------

def h_max(limit, system, user, reserve, margin):
    return limit - system - user - reserve - margin


def h_max_budget(limit, system, user, reserve, margin):
    """Right too: the course's own function."""
    from course_utils.window.budget import history_budget

    return history_budget(limit, system, user, reserve, margin=margin)


def h_max_no_margin(limit, system, user, reserve, margin):
    return limit - system - user - reserve


def h_max_margin_added(limit, system, user, reserve, margin):
    return limit - system - user - reserve + margin


def h_max_no_reserve(limit, system, user, reserve, margin):
    return limit - system - user - margin


def h_max_typed(limit, system, user, reserve, margin):
    """Hostile: the question's number, whatever the model."""
    return 12084


def h_max_remembered(limit, system, user, reserve, margin):
    """Hostile: the two worked examples remembered; anything else a guess."""
    return {8192: 5892, 16384: 12084}.get(limit, limit // 2)


def h_max_float(limit, system, user, reserve, margin):
    return h_max(limit, system, user, reserve, margin) + 0.5


def h_max_text(limit, system, user, reserve, margin):
    return str(h_max(limit, system, user, reserve, margin))


def h_max_no_return(limit, system, user, reserve, margin):
    limit - system - user - reserve - margin


def h_max_change(limit, system, user, reserve, margin, new_reserve):
    return h_max(limit, system, user, new_reserve, margin) - h_max(limit, system, user, reserve, margin)


def h_max_change_short(limit, system, user, reserve, margin, new_reserve):
    """Right too: only R changes, so the change is -(new R - old R)."""
    return reserve - new_reserve


def h_max_change_sign(limit, system, user, reserve, margin, new_reserve):
    return new_reserve - reserve


def h_max_change_new(limit, system, user, reserve, margin, new_reserve):
    return h_max(limit, system, user, new_reserve, margin)


def h_max_change_typed(limit, system, user, reserve, margin, new_reserve):
    """Hostile: the question's answer, whatever the change."""
    return -1000


def h_max_change_always_down(limit, system, user, reserve, margin, new_reserve):
    """Hostile: right whenever R grows, which is all the question shows."""
    return -abs(new_reserve - reserve)


def h_max_change_remembered(limit, system, user, reserve, margin, new_reserve):
    """Hostile: the two worked examples remembered."""
    return {1800: -600, 3000: -1000}.get(new_reserve, -1000)


def h_max_change_ratio(limit, system, user, reserve, margin, new_reserve):
    """Hostile: the change as a fraction of the old ceiling."""
    return (new_reserve - reserve) / h_max(limit, system, user, reserve, margin)


# --- 05 q3: cost and forgetting ---------------------------------------------------------------------

def _trim(max_tokens, **changes):
    return lambda history: _safe(history, max_tokens, **changes)


def cost_and_forgetting(messages, fact_id, max_tokens):
    trim = _trim(max_tokens)
    report = replay_growth(messages, "approximate", policy=trim)
    fact_index = [m.id for m in messages].index(fact_id)
    for row in report.rows:
        if row.ai_index > fact_index and fact_id not in [m.id for m in trim(messages[:row.ai_index])]:
            return report.total_sent_tokens, row.call
    return report.total_sent_tokens, None


def cost_everything(messages, fact_id, max_tokens):
    return replay_growth(messages, "approximate").total_sent_tokens, cost_and_forgetting(messages, fact_id,
                                                                                          max_tokens)[1]


def cost_off_by_one(messages, fact_id, max_tokens):
    total, forgotten = cost_and_forgetting(messages, fact_id, max_tokens)
    return total, None if forgotten is None else forgotten - 1


def cost_stored_history(messages, fact_id, max_tokens):
    """Looks for the fact in the stored history, which always holds it."""
    return cost_and_forgetting(messages, fact_id, max_tokens)[0], None


def _remembered(fixed_cases):
    """Hostile: the answers of the check's fixed cases, copied by hand; anything else is a guess."""
    table = {(len(m), f, c): cost_and_forgetting(m, f, c) for _what, m, f, c in fixed_cases}

    def cost_remembered(messages, fact_id, max_tokens):
        return table.get((len(messages), fact_id, max_tokens), (1000, None))
    return cost_remembered


def cost_constant(messages, fact_id, max_tokens):
    return 0, None


# --- 05 q5: what a prompt cache serves ---------------------------------------------------------------

def _prefix(sent, earlier):
    n = 0
    while n < min(len(sent), len(earlier)) and sent[n].type == earlier[n].type and sent[n].text == earlier[n].text:
        n += 1
    return n


def cached(minimum_rule="prefix", compare="every"):
    def cached_tokens(calls, minimum):
        total = 0
        for i, sent in enumerate(calls):
            before = calls[:i] if compare == "every" else calls[max(0, i - 1):i]
            longest = max((_prefix(sent, e) for e in before), default=0)
            prefix = sum(approximate_counter([m]) for m in sent[:longest])
            if minimum_rule == "none" or (minimum_rule == "prefix" and prefix >= minimum) or (
                    minimum_rule == "call" and sum(approximate_counter([m]) for m in sent) >= minimum):
                total += prefix
        return total
    return cached_tokens


cached_right = cached()
cached_no_minimum = cached(minimum_rule="none")
cached_whole_call_minimum = cached(minimum_rule="call")
cached_previous_only = cached(compare="previous")


def cached_float(calls, minimum):
    return float(cached_right(calls, minimum)) + 0.5


def _cached_remembered(fixed_cases):
    table = {(len(calls), sum(len(c) for c in calls), m): cached_right(calls, m) for _a, calls, m in fixed_cases}

    def cached_tokens(calls, minimum):
        return table.get((len(calls), sum(len(c) for c in calls), minimum), 0)
    return cached_tokens


# --- 05 q4: the plan ---------------------------------------------------------------------------------

def plan(**changes):
    from course_utils.agentic.agent_tools import TRIP_TOOLS

    tools = count_tokens_approximately([], tools=TRIP_TOOLS)
    right = {"reserve": 800, "margin": 500, "include_system": True, "max_tokens": 8192 - 800 - 500 - tools,
             "start_on": "human"}
    right.update(changes)
    return right


# --- 06 q2: the trimming hook ------------------------------------------------------------------------

def hook(counter=exact_counter, start_on="human", end_on=("human", "tool"), remove_all=True, fit=True,
         max_tokens=300, fit_over=0):
    @before_model
    def trim_history(state, runtime):
        options = dict(max_tokens=max_tokens, token_counter=counter, strategy="last", start_on=start_on,
                       end_on=end_on)
        kept = trim_messages(state["messages"], **{k: v for k, v in options.items() if v is not None})
        turn = state["messages"][max(i for i, m in enumerate(state["messages"]) if isinstance(m, HumanMessage)):]
        if fit and (not kept or (fit_over and exact_counter(turn) > fit_over)):
            kept = fit_turn(state["messages"], 300, token_counter=exact_counter)
        return {"messages": ([RemoveMessage(id=REMOVE_ALL_MESSAGES)] if remove_all else []) + list(kept)}
    return trim_history


def hook_fit_turn():
    """Right too: fit_turn trims as the question asks and keeps the current turn only when nothing fits."""
    @before_model
    def trim_history(state, runtime):
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES),
                             *fit_turn(state["messages"], 300, token_counter=exact_counter)]}
    return trim_history


def hook_only_turn():
    """Hostile: always keeps just the current turn, shortened to fit: within budget, never orphans, but forgets."""
    @before_model
    def trim_history(state, runtime):
        messages = state["messages"]
        start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES),
                             *fit_turn(messages[start:], 300, token_counter=exact_counter)]}
    return trim_history


def hook_last_human():
    """Hostile: keeps only the last request, which always fits and never orphans anything."""
    @before_model
    def trim_history(state, runtime):
        last = [m for m in state["messages"] if isinstance(m, HumanMessage)][-1:]
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *last]}
    return trim_history


def hook_ends_on_ai():
    @before_model
    def trim_history(state, runtime):
        kept = trim_messages(state["messages"], max_tokens=300, token_counter=exact_counter, strategy="last",
                             start_on="human")
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept, AIMessage("noted")]}
    return trim_history
