"""Exercise 04's summarisation questions: q4 (store no more than is sent, proved on the SQLite file) and q5 (the summary node).

Each plausible wrong answer is refused with a message that names the
mistake; right answers, written two different ways, pass.
"""

import pytest
from langchain_core.messages import HumanMessage, RemoveMessage, trim_messages
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from course_utils.agentic.checkpoints import erase_thread
from course_utils.checks import ex04
from course_utils.agentic.graphs import CREATE_SUMMARY_PROMPT, EXTEND_SUMMARY_PROMPT, restart_from_summary
from course_utils.window.sequences import valid_tail

q4, q5 = ex04.q4, ex04.q5


pytestmark = pytest.mark.usefixtures("lenient")  # tests/conftest.py: wrong answers are returned, not raised


def forgetful(kind="remove"):
    """A make_forgetful_node: right (two ways) or with one mistake."""

    def make_forgetful_node(model, max_tokens=40):
        def chatbot(state):
            trimmed = trim_messages(state["messages"], max_tokens=max_tokens, token_counter="approximate",
                                    strategy="last", start_on="human", include_system=True)
            reply = model.invoke(trimmed)
            kept = {m.id for m in trimmed}
            dropped = [RemoveMessage(id=m.id) for m in state["messages"] if m.id not in kept]
            if kind == "merged":  # the bug the question shows
                return {"messages": trimmed + [reply]}
            if kind == "remove_all":
                return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *trimmed, reply]}
            if kind == "no_reply":
                return {"messages": dropped}
            if kind == "in_place":
                state["messages"][:] = trimmed
                return {"messages": [reply]}
            if kind == "untrimmed_call":
                reply = model.invoke(state["messages"])
            return {"messages": dropped + [reply]}

        return chatbot

    return make_forgetful_node


def eraser(kind="erase"):
    """An erase_history(graph, thread_id): right (two ways) or with one mistake."""

    def erase_history(graph, thread_id):
        config = {"configurable": {"thread_id": thread_id}}
        if kind == "restart":
            restart_from_summary(graph, thread_id, as_node="chatbot")
            return
        if kind == "nothing":  # RemoveMessage alone: the earlier checkpoints keep what it removed
            return None
        values = graph.get_state(config).values
        if kind == "delete_thread":  # rows deleted, but SQLite's write-ahead log keeps the old pages
            graph.checkpointer.delete_thread(thread_id)
        else:
            erase_thread(graph.checkpointer, thread_id)
        if kind != "no_write_back":
            graph.update_state(config, values, as_node="chatbot")

    return erase_history


def summarizer(kind="right"):
    """A make_summarize_node: right, or with one mistake."""

    def make_summarize_node(model, keep_last=2):
        def summarize_conversation(state):
            summary = state.get("summary", "")
            prompt = EXTEND_SUMMARY_PROMPT.format(summary=summary) if summary else CREATE_SUMMARY_PROMPT
            if kind == "always_create":
                prompt = CREATE_SUMMARY_PROMPT
            messages = state["messages"]
            sent = messages + [HumanMessage(prompt)] if kind != "prompt_only" else [HumanMessage(prompt)]
            response = model.invoke(sent)
            kept = valid_tail(messages, keep_last)
            older = messages[: len(messages) - len(kept)]
            if kind == "plain_slice":  # the how-to's own line: orphans tool results in an agent
                older = messages[:-keep_last]
            if kind == "keep_list":
                return {"summary": response.content, "messages": kept}
            if kind == "old_summary":
                return {"summary": summary, "messages": [RemoveMessage(id=m.id) for m in older]}
            if kind == "remove_all":
                older = messages
            return {"summary": response.content, "messages": [RemoveMessage(id=m.id) for m in older]}

        return summarize_conversation

    return make_summarize_node


@pytest.mark.parametrize("kind, erase", [("remove", "erase"), ("remove_all", "restart")])
def test_q4_right_answers_pass(kind, erase):
    result = q4.check(forgetful(kind), eraser(erase))
    assert result.correct, result.text
    assert "SQLite file" in result.message


@pytest.mark.parametrize(
    "erase, words",
    [
        ("nothing", "checkpoints in the SQLite file still do: RemoveMessage removes"),
        ("delete_thread", "write-ahead log"),
        ("no_write_back", "must write the current state back"),
    ],
)
def test_q4_only_real_erasure_passes(erase, words):
    """A solution that only sends RemoveMessages fails: the check reads the database back."""
    result = q4.check(forgetful("remove"), eraser(erase))
    assert result.status == "wrong" and words in result.message, result.text


@pytest.mark.parametrize(
    "kind, status, words",
    [
        ("merged", "wrong", "nothing was removed. `add_messages` merges"),
        ("no_reply", "wrong", "not the model's reply"),
        ("in_place", "wrong", "in place"),
        ("untrimmed_call", "wrong", "was sent the whole history"),  # the trimmed list, then the whole history
    ],
)
def test_q4_wrong_answers_are_named(kind, status, words):
    result = q4.check(forgetful(kind), eraser())
    assert result.status == status and words in result.message, result.text


def test_q5_right_answer_passes():
    result = q5.check(summarizer())
    assert result.correct, result.text


@pytest.mark.parametrize(
    "kind, words",
    [
        ("always_create", "*extend* it"),
        ("prompt_only", "send the model the state's messages, then the prompt"),
        ("plain_slice", "Keep `valid_tail(messages, keep_last)`"),
        ("keep_list", "`add_messages` merges them into the state by id"),
        ("old_summary", "text of the model's reply"),
        ("remove_all", "should keep `valid_tail(messages, 2)`"),
    ],
)
def test_q5_wrong_answers_are_named(kind, words):
    result = q5.check(summarizer(kind))
    assert result.status == "wrong" and words in result.message, result.text


def test_q5_plain_slice_fails_only_on_a_conversation_with_tool_calls():
    result = q5.check(summarizer("plain_slice"))
    assert "tool result" in result.message and "travel agent" in result.message, result.text


def test_not_attempted():
    assert q4.check(..., eraser()).status == "not attempted"
    assert q4.check(forgetful(), ...).status == "not attempted"
    assert q5.check(...).status == "not attempted"
