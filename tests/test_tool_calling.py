"""The offline model calls tools the way a small real model would, or says it cannot (issue 27).

A table of requests across nine tools of different shapes (two ints, two
floats, an enum, an optional int, two places and an optional day, an id), in
English, Persian and Chinese, each with the calls expected or the honest
"cannot" expected; then references to earlier results, through a real
``create_agent`` and a real LangGraph checkpointer, with and without trimming.
"""

from __future__ import annotations

import sqlite3
from typing import Literal, Optional

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import before_model
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage, trim_messages
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from course_utils.model.chat import OfflineChatModel
from course_utils.window.tokens import exact_counter
from course_utils.model.tool_arguments import mentions, read_arguments
from course_utils.model.tool_calling import plan_turn, request_parts


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


@tool
def subtract(a: int, b: int) -> int:
    """Subtract b from a."""
    return a - b


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"Sunny in {city}, 21 °C."


@tool
def convert_temperature(value: float, to_unit: Literal["celsius", "fahrenheit"]) -> float:
    """Convert a temperature to another unit."""
    return value * 9 / 5 + 32 if to_unit == "fahrenheit" else (value - 32) * 5 / 9


@tool
def search_docs(query: str, max_results: Optional[int] = None) -> str:
    """Search the course documentation."""
    return f"{max_results or 3} pages about {query}."


@tool
def book_flight(origin: str, destination: str, day: Optional[str] = None) -> str:
    """Book a flight between two cities."""
    return f"Booked {origin} -> {destination} ({day or 'any day'})."


@tool
def read_result(result_id: str) -> str:
    """Read back a stored tool result by its id."""
    return f"The stored result {result_id}."


TOOLS = [add, multiply, subtract, divide, get_weather, convert_temperature, search_docs, book_flight, read_result]


def cannot(parameter: str, signature: str) -> tuple[str, str]:
    """An expected honest reply: no call, words naming the parameter and the tool."""
    return (f"`{parameter}`", signature)


#: request -> the calls expected, or cannot(parameter, tool) for an honest reply in words.
TABLE = {
    # the issue's own table
    "Please multiply 6 by 7": [("multiply", {"a": 6.0, "b": 7.0})],
    "add 10, 20": [("add", {"a": 10, "b": 20})],
    "Multiply 2.5 and 4": [("multiply", {"a": 2.5, "b": 4.0})],
    "What is 12 plus 30?": [("add", {"a": 12, "b": 30})],
    "Is it raining in New York City?": [("get_weather", {"city": "New York City"})],
    # numbers in order, by name, with words for operations
    "What's 3 times 4?": [("multiply", {"a": 3.0, "b": 4.0})],
    "multiply a=3, b=4": [("multiply", {"a": 3.0, "b": 4.0})],
    "Add b=4 and a=3": [("add", {"a": 3, "b": 4})],
    "from 12 take 5": [("subtract", {"a": 12, "b": 5})],
    "Subtract 5 from 12": [("subtract", {"a": 12, "b": 5})],
    "What is 12 minus 5?": [("subtract", {"a": 12, "b": 5})],
    "What is 30 divided by 6?": [("divide", {"a": 30.0, "b": 6.0})],
    "Divide 1 by 4": [("divide", {"a": 1.0, "b": 4.0})],
    "What's the sum of 8 and 9?": [("add", {"a": 8, "b": 9})],
    "add seven and eight": [("add", {"a": 7, "b": 8})],
    "What is 2 plus 3 and 4 times 5?": [("add", {"a": 2, "b": 3}), ("multiply", {"a": 4.0, "b": 5.0})],
    # types respected, and honest when it cannot
    "Add 1.5 and 2": cannot("a", "add(a, b)"),
    "add 1, 2 and 3": ("3 numbers", "add(a, b)"),
    "multiply 6": cannot("b", "multiply(a, b)"),
    "multiply that by 3": ("I don't know", "`a`", "multiply(a, b)"),
    # places of several words, and tool choice from the description
    "Will it rain in Porto tomorrow?": [("get_weather", {"city": "Porto"})],
    "What's the weather like in Rio de Janeiro?": [("get_weather", {"city": "Rio de Janeiro"})],
    "weather in paris?": [("get_weather", {"city": "paris"})],
    "What's the weather?": cannot("city", "get_weather(city)"),
    # enums
    "Convert 20 degrees to fahrenheit": [("convert_temperature", {"value": 20.0, "to_unit": "fahrenheit"})],
    "Convert 68 to celsius": [("convert_temperature", {"value": 68.0, "to_unit": "celsius"})],
    "Convert 20 degrees": cannot("to_unit", "convert_temperature(value, to_unit)"),
    # optional parameters left out, or given by a word of their name
    "Search the docs for trim_messages": [("search_docs", {"query": "trim_messages"})],
    "Search the documentation for checkpointers, 3 results": [
        ("search_docs", {"query": "checkpointers", "max_results": 3})
    ],
    'Search the docs for "start_on"': [("search_docs", {"query": "start_on"})],
    "Book a flight from Lisbon to New York on Friday": [
        ("book_flight", {"origin": "Lisbon", "destination": "New York", "day": "Friday"})
    ],
    "Book a flight from Porto to Paris": [("book_flight", {"origin": "Porto", "destination": "Paris"})],
    "Book a flight to Paris": cannot("origin", "book_flight(origin, destination, day)"),
    # ids (lesson 07's read-back tool)
    "Read back the result res-3": [("read_result", {"result_id": "res-3"})],
    "Read the stored result call_abc123": [("read_result", {"result_id": "call_abc123"})],
    "Read back the stored result": cannot("result_id", "read_result(result_id)"),
    "Search the docs for trim_messages and read back the result res-3": [
        ("search_docs", {"query": "trim_messages"}), ("read_result", {"result_id": "res-3"})
    ],
    # no tool asked for
    "Hello there!": [],
    "My favourite colour is green.": [],
    # Persian
    "۶ را در ۷ ضرب کن": [("multiply", {"a": 6.0, "b": 7.0})],
    "۸ ضربدر ۲/۵ چند می‌شود؟": [("multiply", {"a": 8.0, "b": 2.5})],
    "۱۲ به علاوه ۳۰ چند می‌شود؟": [("add", {"a": 12, "b": 30})],
    "۵ را از ۱۲ کم کن": [("subtract", {"a": 12, "b": 5})],
    "هوای تهران چطور است؟": [("get_weather", {"city": "تهران"})],
    "آیا فردا در شیراز باران می‌آید؟": [("get_weather", {"city": "شیراز"})],
    "آن را در ۳ ضرب کن": ("نمی‌دانم", "`a`", "multiply(a, b)"),
    "۶ را ضرب کن": ("`b`", "multiply(a, b)", "نتوانستم"),
    # Chinese
    "6乘以7是多少？": [("multiply", {"a": 6.0, "b": 7.0})],
    "12加30等于多少？": [("add", {"a": 12, "b": 30})],
    "六乘以七": [("multiply", {"a": 6.0, "b": 7.0})],
    "北京的天气怎么样？": [("get_weather", {"city": "北京"})],
    "纽约会下雨吗？": [("get_weather", {"city": "纽约"})],
    "北京和上海的天气怎么样？": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})],
    "把那个乘以3": ("我不知道", "`a`", "multiply(a, b)"),
}


def test_the_table_is_as_large_and_varied_as_the_issue_asks():
    called = {name for expected in TABLE.values() if isinstance(expected, list) for name, _ in expected}
    assert len(TABLE) >= 40 and len(called) >= 6
    persian = [r for r in TABLE if any("\u0600" <= ch <= "\u06ff" for ch in r)]
    chinese = [r for r in TABLE if any("\u4e00" <= ch <= "\u9fff" for ch in r)]
    assert len(persian) >= 5 and len(chinese) >= 5


@pytest.mark.parametrize("request_text, expected", TABLE.items())
def test_each_request_gives_the_right_calls_or_an_honest_cannot(request_text, expected):
    reply = OfflineChatModel().bind_tools(TOOLS).invoke([HumanMessage(request_text)])
    if isinstance(expected, list):
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == expected
        for call, (_, args) in zip(reply.tool_calls, expected):  # types, not just equal values (6 == 6.0)
            assert {k: type(v) for k, v in call["args"].items()} == {k: type(v) for k, v in args.items()}
    else:
        assert reply.tool_calls == [], "a required argument it cannot read must not be guessed"
        for words in expected:
            assert words in reply.text


def test_types_follow_the_schema():
    args = OfflineChatModel().bind_tools(TOOLS).invoke("What is 12 plus 30?").tool_calls[0]["args"]
    assert args == {"a": 12, "b": 30} and all(type(v) is int for v in args.values())
    args = OfflineChatModel().bind_tools(TOOLS).invoke("Please multiply 6 by 7").tool_calls[0]["args"]
    assert all(type(v) is float for v in args.values())


def test_a_reference_resolves_to_the_last_number_sent_and_to_nothing_when_none_was():
    first = [HumanMessage("Please multiply 6 by 7"),
             AIMessage("", tool_calls=[{"name": "multiply", "args": {"a": 6.0, "b": 7.0}, "id": "c1"}]),
             ToolMessage("42.0", tool_call_id="c1", name="multiply"),
             AIMessage("Here's what I found. multiply says: 42.0")]
    bound = OfflineChatModel().bind_tools(TOOLS)
    for follow_up, call in [
        ("multiply that by 3", ("multiply", {"a": 42.0, "b": 3.0})),
        ("and the result plus 5", ("add", {"a": 42, "b": 5})),
        ("subtract 2 from it", ("subtract", {"a": 42, "b": 2})),
        ("把结果乘以2", ("multiply", {"a": 42.0, "b": 2.0})),
        ("نتیجه را در ۲ ضرب کن", ("multiply", {"a": 42.0, "b": 2.0})),
    ]:
        reply = bound.invoke([*first, HumanMessage(follow_up)])
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [call], follow_up
    # What the user typed is not a result: only tool results, replies and summaries count.
    alone = bound.invoke([HumanMessage("I have 12 apples."), HumanMessage("multiply that by 3")])
    assert alone.tool_calls == [] and "I don't know" in alone.text


def test_a_part_that_needs_an_earlier_part_waits_for_its_result():
    messages = [HumanMessage("Multiply 6 by 7, then add 5 to the result")]
    model = OfflineChatModel().bind_tools(TOOLS)
    step1 = model.invoke(messages)
    assert [(c["name"], c["args"]) for c in step1.tool_calls] == [("multiply", {"a": 6.0, "b": 7.0})]
    messages += [step1, ToolMessage("42.0", tool_call_id=step1.tool_calls[0]["id"], name="multiply")]
    step2 = model.invoke(messages)
    assert [(c["name"], c["args"]) for c in step2.tool_calls] == [("add", {"a": 5, "b": 42})]  # in the order written
    messages += [step2, ToolMessage("47", tool_call_id=step2.tool_calls[0]["id"], name="add")]
    final = model.invoke(messages)
    assert final.tool_calls == [] and "multiply says: 42.0" in final.text and "add says: 47" in final.text


def test_forced_tool_choice_still_calls_and_none_never_does():
    forced = OfflineChatModel().bind_tools([get_weather], tool_choice="get_weather")
    assert forced.invoke("hello").tool_calls[0]["args"] == {"city": "hello"}
    assert OfflineChatModel().bind_tools(TOOLS, tool_choice="none").invoke("add 2 and 3").tool_calls == []


def test_the_pieces_behind_the_rules():
    assert [m.value for m in mentions("add twenty-one and ۳ and 十二")] == [21, 3, 12]
    schemas = OfflineChatModel().bind_tools([add, multiply]).kwargs["tools"]
    assert [p.text for p in request_parts("add 10, 20 and 5 times 6", schemas)] == ["add 10, 20", "5 times 6"]
    schema = OfflineChatModel().bind_tools([subtract]).kwargs["tools"][0]
    assert read_arguments("subtract 5 from 12", schema).args == {"a": 12, "b": 5}
    assert plan_turn([HumanMessage("hi")], []).calls == []


# --- a real agent, a real checkpointer -------------------------------------------------------


def arithmetic_agent(checkpointer, middleware=()):
    return create_agent(OfflineChatModel(), tools=[add, multiply, subtract], checkpointer=checkpointer,
                        middleware=list(middleware))


def ask(agent, text, thread="t"):
    state = agent.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread}})
    return state["messages"]


def tool_results(messages):
    return [m.text for m in messages if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_an_agent_multiplies_the_earlier_result_through_a_checkpointer(saver, tmp_path):
    connection = sqlite3.connect(tmp_path / "chat.sqlite", check_same_thread=False)
    checkpointer = InMemorySaver() if saver == "memory" else SqliteSaver(connection)
    agent = arithmetic_agent(checkpointer)
    first = ask(agent, "Please multiply 6 by 7")
    assert tool_results(first) == ["42.0"]
    second = ask(agent, "multiply that by 3")
    assert tool_results(second)[-1] == str(3 * float(tool_results(first)[-1]))
    assert second[-1].text.endswith("126.0")
    third = ask(agent, "and the result plus 5")
    assert tool_results(third)[-1] == "131"
    connection.close()


def test_once_the_first_result_is_trimmed_away_the_agent_says_it_does_not_know():
    # 80 tokens hold a request with its call and result (68 here), not the first turn with the next request (94).
    @before_model
    def keep_last_request(state, runtime):
        kept = trim_messages(state["messages"], max_tokens=80, token_counter=exact_counter,
                             strategy="last", start_on="human", end_on=("human", "tool"))
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    agent = arithmetic_agent(InMemorySaver(), [keep_last_request])
    first = ask(agent, "Please multiply 6 by 7")
    assert tool_results(first) == ["42.0"]
    second = ask(agent, "multiply that by 3")
    assert not any(isinstance(m, AIMessage) and m.tool_calls for m in second[-1:]), "no guessed call"
    assert "42" not in " ".join(m.text for m in second), "the first result was trimmed away"
    assert second[-1].text.startswith("I don't know what \"that\" is")
    assert "multiply(a, b)" in second[-1].text


# --- the shapes lesson 07 builds on: memory tools, a read-back tool, a sub-agent tool ------------


@tool
def save_memory(text: str) -> str:
    """Save a fact to long-term memory."""
    return "saved"


@tool
def recall_memory(query: str) -> str:
    """Search long-term memory for saved facts."""
    return "The user's favourite colour is green."


@tool
def ask_researcher(task: str) -> str:
    """Delegate a research task to a researcher sub-agent and get its short report."""
    return "Bolhão market opens at 08:00."


LESSON_07 = [save_memory, recall_memory, read_result, ask_researcher, get_weather]


@pytest.mark.parametrize("request_text, expected", {
    "Remember that my favourite colour is green.": ("save_memory", {"text": "my favourite colour is green."}),
    "Save to memory: I'm allergic to peanuts": ("save_memory", {"text": "I'm allergic to peanuts"}),
    "记住：我喜欢绿茶": ("save_memory", {"text": "我喜欢绿茶"}),
    "به خاطر بسپار که رنگ مورد علاقه من سبز است": ("save_memory", {"text": "رنگ مورد علاقه من سبز است"}),
    "What do you remember about my favourite colour?": ("recall_memory", {"query": "my favourite colour"}),
    "Ask the researcher: find food markets in Porto": ("ask_researcher", {"task": "find food markets in Porto"}),
    "Read back the result res-1": ("read_result", {"result_id": "res-1"}),
}.items())
def test_memory_read_back_and_delegation_requests(request_text, expected):
    reply = OfflineChatModel().bind_tools(LESSON_07).invoke(request_text)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [expected]


def test_a_read_back_reference_takes_the_id_stated_in_what_was_sent():
    placeholder = [HumanMessage("What's the weather in Porto?"),
                   AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Porto"}, "id": "c1"}]),
                   ToolMessage("[offloaded: 2,345 tokens stored as id res-1; call read_result to read it]",
                               tool_call_id="c1"),
                   AIMessage("The forecast was offloaded.")]
    bound = OfflineChatModel().bind_tools(LESSON_07)
    assert bound.invoke([*placeholder, HumanMessage("Read that result back")]).tool_calls[0]["args"] == {
        "result_id": "res-1"}
    alone = bound.invoke([HumanMessage("Read that result back")])
    assert alone.tool_calls == [] and alone.text.startswith("I don't know what \"that result\" is")


def test_a_fact_not_sent_is_searched_in_memory_and_a_fact_sent_is_not():
    bound = OfflineChatModel().bind_tools(LESSON_07)
    question = HumanMessage("What's my favourite colour?")
    search = bound.invoke([question])
    assert [(c["name"], c["args"]) for c in search.tool_calls] == [("recall_memory", {"query": question.text})]
    assert bound.invoke([HumanMessage("My favourite colour is green."), question]).tool_calls == []
    result = ToolMessage(recall_memory.invoke({"query": "colour"}), tool_call_id=search.tool_calls[0]["id"])
    assert "green" in bound.invoke([question, search, result]).text
    # Without a memory tool it says it does not know.
    assert OfflineChatModel().bind_tools([get_weather]).invoke([question]).text.startswith("I don't know")
