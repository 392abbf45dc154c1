"""Tests for the replay primitives of course_utils.agentic.retention: fact questions, turns and argument checks.

The strategies themselves (recall, billed calls, water marks) are tested in tests/test_costs.py.
"""

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from course_utils.agentic.retention import FactQuestion, QUESTIONS_BY_FACT, compare_strategies, fact_questions
from course_utils.core.samples import load_conversation, load_sample


def test_fact_questions_come_from_the_sample():
    questions = fact_questions("long_chat")
    assert [q.expected for q in questions] == [f["value"] for f in load_sample("long_chat").facts]
    assert questions[0] == FactQuestion("name", "What's my name?", "Sara")
    assert [q.question for q in fact_questions("spread_chat")] == [
        QUESTIONS_BY_FACT[f["fact"]] for f in load_sample("spread_chat").facts
    ]


def test_a_list_of_messages_with_questions():
    messages = [
        SystemMessage("Be brief."),
        HumanMessage("hi! I'm bob"),
        AIMessage("Hi Bob!"),
        HumanMessage("i like the celtics!"),
        AIMessage("Great team."),
    ]
    runs = compare_strategies(messages, [1000], ["trim", "summarise"], [("what's my name?", "Bob")], token_counter="dummy")
    # The dummy counter charges 10 tokens a message: [system, human], then [system, human, ai, human].
    assert [(r.strategy, [c.input_tokens for c in r.calls if c.kind == "turn"], r.facts_remembered) for r in runs] == [
        ("trim", [20, 40], 1),
        ("summarise", [20, 40], 1),
    ]
    assert runs[0].answers[0].correct and runs[0].answers[0].fact == "Bob"  # a (question, expected) pair


def test_bad_replay_input_names_the_parameter():
    with pytest.raises(TypeError, match="thresholds must be a non-empty list"):
        compare_strategies("spread_chat", [])
    with pytest.raises(ValueError, match=r"thresholds\[1\] must be >= 1"):
        compare_strategies("spread_chat", [512, 0])
    with pytest.raises(ValueError, match="strategies must not repeat"):
        compare_strategies("spread_chat", [512], ["trim", "trim"])
    with pytest.raises(TypeError, match="strategies must be a non-empty list"):
        compare_strategies("spread_chat", [512], "trim")
    with pytest.raises(ValueError, match="questions must be given"):
        compare_strategies(load_conversation("bob"), [512])
    with pytest.raises(TypeError, match=r"questions\[0\] must be a FactQuestion"):
        compare_strategies("spread_chat", [512], questions=[42])
    with pytest.raises(ValueError, match=r"questions\[0\] must have a non-empty question"):
        compare_strategies("spread_chat", [512], questions=[("  ", "Sara")])
    with pytest.raises(ValueError, match="conversation has no human message"):
        compare_strategies([SystemMessage("x")], [512], questions=[("q?", "a")])
    with pytest.raises(ValueError, match="conversation must start with a human message"):
        compare_strategies([AIMessage("hello")], [512], questions=[("q?", "a")])
    with pytest.raises(ValueError, match="thresholds: 20 is too small for turn 1"):
        compare_strategies("spread_chat", [20], ["trim"])
    with pytest.raises(ValueError, match="keep_last must be >= 0"):
        compare_strategies("spread_chat", [512], keep_last=-1)
    with pytest.raises(TypeError, match="conversation must be a sample name or a Conversation"):
        fact_questions(42)


@pytest.mark.parametrize("keep_last", [0, 1, 2, 3, 4, 5])
def test_summarising_an_agent_keeps_each_tool_result_with_its_call(keep_last):
    # A plain slice of the last keep_last messages would start on a ToolMessage for some
    # keep_last, and the offline model refuses such a call (InvalidToolSequenceError).
    [run] = compare_strategies(load_conversation("agent_tools"), thresholds=(300,), strategies=("summarise",),
                               questions=[("What is my name?", "x")], token_counter="approximate",
                               keep_last=keep_last)
    assert run.summaries > 0 and run.calls
