"""The exact requests the pinned provider packages build for lesson 08, with the network blocked.

``langchain-anthropic`` 1.7.10 and ``langchain-openai`` 1.8.1 (with the
``anthropic`` and ``openai`` SDKs) build and send each request; the
recording transport (``course_utils.model.provider_emulation``) keeps it
and answers from the emulated server, so nothing leaves the machine. Each
test compares a whole body, so a package upgrade that changes a payload
fails here first.
"""

from __future__ import annotations

import socket

import openai
import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ProviderToolSearchMiddleware
from langchain_anthropic import ChatAnthropic
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from course_utils.agentic.tool_catalogue import CATALOGUE
from course_utils.core import netguard
from course_utils.model.provider_emulation import (AnthropicServer, OpenAIServer, RecordingTransport, last_body,
                                                   offline_anthropic, openai_http_client)

COMPACTION = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]}
EDITS = {"edits": [
    {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
    {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 30_000},
     "keep": {"type": "tool_uses", "value": 2}},
]}
RESPONSES = [{"type": "compaction", "compact_threshold": 50_000}]


@pytest.fixture(autouse=True)
def offline():
    """Every test here runs with the course's network guard installed, and proves it is."""
    if not netguard.installed():
        netguard.install()
    with pytest.raises(netguard.NetworkBlockedError):
        socket.create_connection(("203.0.113.7", 443), timeout=1)


def claude(server=None, **settings):
    transport = RecordingTransport(server or AnthropicServer())
    chat = ChatAnthropic(model="claude-sonnet-5-5", api_key="offline", max_tokens=1024, **settings)
    return offline_anthropic(chat, transport), transport


def gpt(server=None, **settings):
    transport = RecordingTransport(server or OpenAIServer())
    chat = ChatOpenAI(model="gpt-6.2-sol", api_key="offline", use_responses_api=True,
                      http_client=openai_http_client(transport), **settings)
    return chat, transport


def test_anthropic_compaction_payload_and_beta_header():
    chat, transport = claude(betas=["compact-2026-01-12"], context_management=COMPACTION)
    chat.invoke("Hello")
    sent = transport.requests[-1]
    assert (sent.method, sent.path, sent.beta) == ("POST", "/v1/messages", "compact-2026-01-12")
    assert sent.body == {"max_tokens": 1024, "messages": [{"role": "user", "content": "Hello"}],
                         "model": "claude-sonnet-5-5", "context_management": COMPACTION}


def test_anthropic_context_management_needs_its_beta():
    """Without ``betas`` the SDK's plain messages.create refuses the parameter, before anything is sent."""
    chat, transport = claude(context_management=COMPACTION)
    with pytest.raises(TypeError, match="context_management"):
        chat.invoke("Hello")
    assert transport.requests == []


def test_anthropic_context_editing_payload():
    chat, transport = claude(betas=["context-management-2025-06-27"], thinking={"type": "adaptive"},
                             context_management=EDITS)
    chat.invoke("Hello")
    assert transport.requests[-1].beta == "context-management-2025-06-27"
    assert transport.requests[-1].body == {
        "max_tokens": 1024, "messages": [{"role": "user", "content": "Hello"}], "model": "claude-sonnet-5-5",
        "context_management": EDITS, "thinking": {"type": "adaptive"}}


def test_anthropic_sends_the_compaction_block_back():
    chat, transport = claude(betas=["compact-2026-01-12"], context_management={"edits": [
        {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]})
    long = "word " * 52_000
    first = chat.invoke([HumanMessage(long)])
    block = first.content[0]
    assert block["type"] == "compaction" and block["content"].startswith("Summary of the conversation")
    chat.invoke([HumanMessage(long), first, HumanMessage("And now?")])
    sent = transport.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    # langchain-anthropic sends the block back as the SDK parsed it, its unset fields as null
    assert sent[1]["content"][0] == {"type": "compaction", "content": block["content"], "signature": None,
                                     "tool_changes": None}
    assert sent[2] == {"role": "user", "content": "And now?"}


def test_provider_tool_search_defers_named_tools():
    chat, transport = claude()
    deferred = CATALOGUE[2].name
    agent = create_agent(chat, CATALOGUE[:3], middleware=[ProviderToolSearchMiddleware(searchable_tools=[deferred])])
    agent.invoke({"messages": [HumanMessage("Hi")]})
    sent = transport.requests[0]
    assert sent.beta == "advanced-tool-use-2025-11-20"
    tools = sent.body["tools"]
    assert [t.get("name") for t in tools] == [t.name for t in CATALOGUE[:3]] + ["tool_search_tool_bm25"]
    assert [t.get("defer_loading") for t in tools[:3]] == [None, None, True]
    assert tools[3] == {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}


def test_openai_responses_payload_with_compaction_state_and_truncation():
    chat, transport = gpt(use_previous_response_id=True, truncation="auto", context_management=RESPONSES)
    first = chat.invoke([HumanMessage("Hello")])
    assert transport.requests[0].path == "/v1/responses"
    assert transport.requests[0].body == {
        "model": "gpt-6.2-sol", "stream": False, "context_management": RESPONSES,
        "input": [{"content": "Hello", "role": "user", "type": "message"}], "truncation": "auto"}
    chat.invoke([HumanMessage("Hello"), first, HumanMessage("Read the log.")])
    assert transport.requests[1].body == {
        "model": "gpt-6.2-sol", "stream": False, "context_management": RESPONSES,
        "input": [{"content": "Read the log.", "role": "user", "type": "message"}],
        "previous_response_id": first.response_metadata["id"], "truncation": "auto"}


def test_openai_stateless_resends_every_item():
    chat, transport = gpt()
    first = chat.invoke([HumanMessage("Hello")])
    chat.invoke([HumanMessage("Hello"), first, HumanMessage("Again")])
    body = last_body(transport)
    assert "previous_response_id" not in body
    assert [(i.get("role"), i["type"]) for i in body["input"]] == [("user", "message"), ("assistant", "message"),
                                                                    ("user", "message")]


def test_anthropic_overflow_is_a_context_overflow_error():
    chat, _ = claude(AnthropicServer(context_window=50))
    with pytest.raises(ContextOverflowError, match="prompt is too long"):
        chat.invoke("word " * 200)


def test_openai_overflow_carries_its_code():
    """openai 3.63 puts only the error's message in its text, and langchain-openai 1.8.1 looks for
    "context_length_exceeded" in that text: an overflow whose message does not name it stays an
    invalid-request error, and its ``code`` is what says it is an overflow."""
    chat, _ = gpt(OpenAIServer(context_window=50))
    with pytest.raises(openai.BadRequestError) as error:
        chat.invoke("word " * 200)
    assert error.value.code == "context_length_exceeded"
    assert not isinstance(error.value, ContextOverflowError)


def test_last_body_before_any_request_names_the_fix():
    with pytest.raises(ValueError, match="invoke the model first"):
        last_body(RecordingTransport(AnthropicServer()))
