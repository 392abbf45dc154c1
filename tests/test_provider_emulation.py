"""The emulated servers of lesson 08 behave as the providers' pages document (offline, no package in between).

Each test sends a body straight to ``AnthropicServer.respond`` or
``OpenAIServer.respond`` and checks what the documented behaviour implies:
a compaction block returned first and honoured when sent back, tool results
cleared with ``applied_edits`` reported, thinking cleared but for the last
turn, state held by id and billed in full, truncation, token counting free.
"""

from __future__ import annotations

import pytest

from course_utils.model.provider_emulation import (COMPACT_MIN_TRIGGER, PLACEHOLDER, AnthropicServer, OpenAIServer,
                                                   ProviderError, tokens)
from course_utils.window.costs import bill
from course_utils.window.models import model_info

LONG = "word " * 1200  # 1,200 tokens of text


def anthropic_body(messages, edits=(), **extra):
    body = {"model": "claude-sonnet-5-5", "max_tokens": 100, "messages": messages, **extra}
    if edits:
        body["context_management"] = {"edits": list(edits)}
    return body


def compact(value):
    return {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": value}}


def tool_turns(n, *, name="read_log"):
    """n tool uses, each answered with LONG, then a user question."""
    messages = [{"role": "user", "content": "Read the logs."}]
    for i in range(n):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{i}", "name": name, "input": {"day": str(i)}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": f"day {i}\n{LONG}"}]})
    return messages


# ------------------------------------------------------------------------------------ compaction


def test_below_the_trigger_nothing_is_compacted():
    server = AnthropicServer()
    reply = server.respond("/v1/messages", anthropic_body([{"role": "user", "content": "Hi"}], [compact(50_000)]))
    assert [b["type"] for b in reply["content"]] == ["text"]
    assert [p.kind for p in server.passes] == ["turn"]
    assert reply["context_management"] == {"applied_edits": []}


def test_compaction_block_comes_first_and_its_pass_is_billed():
    server = AnthropicServer()
    messages = [{"role": "user", "content": "word " * 51_000}, {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "What did I send?"}]
    reply = server.respond("/v1/messages", anthropic_body(messages, [compact(50_000)]))
    assert [b["type"] for b in reply["content"]] == ["compaction", "text"]
    assert [p.kind for p in server.passes] == ["summary", "turn"]
    summary_pass, turn = server.passes
    assert summary_pass.input_tokens >= 50_000 > turn.input_tokens
    assert [i["type"] for i in reply["usage"]["iterations"]] == ["compaction", "message"]
    assert reply["usage"]["iterations"][0]["output_tokens"] == tokens(reply["content"][0]["content"])
    assert bill(server.calls(), model_info("Claude Sonnet 5.5").prices, caching=False).summary_output_tokens == \
        summary_pass.output_tokens


def test_messages_before_a_returned_block_are_ignored():
    server = AnthropicServer()
    block = {"type": "compaction", "content": "Summary: the user wants the logs."}
    messages = [{"role": "user", "content": "word " * 40_000},
                {"role": "assistant", "content": [block, {"type": "text", "text": "Done."}]},
                {"role": "user", "content": "Thanks"}]
    reply = server.respond("/v1/messages", anthropic_body(messages, [compact(50_000)]))
    assert reply["usage"]["input_tokens"] == (3 + tokens(block["content"]) + tokens("Done.")) + (3 + tokens("Thanks"))
    assert reply["usage"]["input_tokens"] < 100


def test_a_trigger_below_the_documented_minimum_is_refused():
    with pytest.raises(ProviderError) as error:
        AnthropicServer().respond("/v1/messages", anthropic_body([{"role": "user", "content": "Hi"}],
                                                                 [compact(COMPACT_MIN_TRIGGER - 1)]))
    assert error.value.status == 400 and "at least 50000" in error.value.body["error"]["message"]


# ------------------------------------------------------------------------------------ context editing


def clear(trigger, keep, **extra):
    return {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": trigger},
            "keep": {"type": "tool_uses", "value": keep}, **extra}


def test_old_tool_results_are_cleared_and_reported():
    server = AnthropicServer()
    reply = server.respond("/v1/messages", anthropic_body(tool_turns(5), [clear(3_000, 2)]))
    (edit,) = reply["context_management"]["applied_edits"]
    assert edit["type"] == "clear_tool_uses_20250919" and edit["cleared_tool_uses"] == 3
    per_result = tokens(f"day 0\n{LONG}") - tokens(PLACEHOLDER)
    assert edit["cleared_input_tokens"] == 3 * per_result
    uncleared = AnthropicServer().respond("/v1/messages", anthropic_body(tool_turns(5)))
    assert uncleared["usage"]["input_tokens"] - reply["usage"]["input_tokens"] == 3 * per_result


def test_nothing_is_cleared_below_the_trigger_or_for_excluded_tools():
    below = AnthropicServer().respond("/v1/messages", anthropic_body(tool_turns(5), [clear(100_000, 2)]))
    assert below["context_management"]["applied_edits"] == []
    excluded = AnthropicServer().respond("/v1/messages", anthropic_body(
        tool_turns(5), [clear(3_000, 2, exclude_tools=["read_log"])]))
    assert excluded["context_management"]["applied_edits"] == []


def thinking_turns(n):
    messages = []
    for i in range(n):
        messages += [{"role": "user", "content": f"Question {i}"},
                     {"role": "assistant", "content": [{"type": "thinking", "thinking": f"thought {i} " * 20,
                                                        "signature": f"s{i}"},
                                                       {"type": "text", "text": f"Answer {i}"}]}]
    return messages + [{"role": "user", "content": "Last question"}]


def test_thinking_is_cleared_but_for_the_last_turn():
    edit = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
    reply = AnthropicServer().respond("/v1/messages", anthropic_body(thinking_turns(3), [edit]))
    (applied,) = reply["context_management"]["applied_edits"]
    assert applied["cleared_thinking_turns"] == 2
    assert applied["cleared_input_tokens"] == tokens("thought 0 " * 20) + tokens("thought 1 " * 20)


def test_with_thinking_on_and_no_edit_only_the_last_turns_thinking_is_read():
    with_thinking = anthropic_body(thinking_turns(3), thinking={"type": "adaptive"})
    reply = AnthropicServer().respond("/v1/messages", with_thinking)
    without = AnthropicServer().respond("/v1/messages", anthropic_body(thinking_turns(3)))
    dropped = tokens("thought 0 " * 20) + tokens("thought 1 " * 20)
    assert without["usage"]["input_tokens"] - reply["usage"]["input_tokens"] == dropped
    assert "context_management" not in reply  # nothing reported: no edit was asked for
    keep_all = {"type": "clear_thinking_20251015", "keep": "all"}
    kept = AnthropicServer().respond("/v1/messages", {**with_thinking, "context_management": {"edits": [keep_all]}})
    assert kept["usage"]["input_tokens"] == without["usage"]["input_tokens"]


def test_clear_thinking_must_be_the_first_edit():
    edits = [clear(3_000, 2), {"type": "clear_thinking_20251015"}]
    with pytest.raises(ProviderError, match="must be the first edit"):
        AnthropicServer().respond("/v1/messages", anthropic_body(thinking_turns(2), edits))


def test_thinking_is_billed_as_output():
    server = AnthropicServer()
    reply = server.respond("/v1/messages", anthropic_body([{"role": "user", "content": "Hi"}],
                                                          thinking={"type": "adaptive"}))
    thinking, text = reply["content"]
    assert thinking["type"] == "thinking"
    assert reply["usage"]["output_tokens"] == tokens(thinking["thinking"]) + tokens(text["text"])


def test_count_tokens_is_not_billed():
    server = AnthropicServer()
    counted = server.respond("/v1/messages/count_tokens", {"messages": [{"role": "user", "content": LONG}]})
    assert counted == {"input_tokens": 3 + tokens(LONG)}
    assert server.passes == []


def test_a_prompt_above_the_window_gets_anthropics_error():
    with pytest.raises(ProviderError, match="prompt is too long"):
        AnthropicServer(context_window=100).respond("/v1/messages", anthropic_body([{"role": "user", "content": LONG}]))


# ------------------------------------------------------------------------------------ OpenAI


def openai_body(items, **extra):
    return {"model": "gpt-6.2-sol", "input": items, **extra}


def user(text):
    return {"type": "message", "role": "user", "content": text}


def test_state_by_id_is_billed_in_full():
    """Sending only the new message with previous_response_id bills exactly what resending everything does."""
    stateful, stateless = OpenAIServer(), OpenAIServer()
    first = stateful.respond("/v1/responses", openai_body([user(LONG)]))
    stateful.respond("/v1/responses", openai_body([user("And?")], previous_response_id=first["id"]))
    again = stateless.respond("/v1/responses", openai_body([user(LONG)]))
    stateless.respond("/v1/responses", openai_body([user(LONG), *again["output"], user("And?")]))
    assert [p.input_tokens for p in stateful.passes] == [p.input_tokens for p in stateless.passes]
    assert stateful.passes[1].input_tokens > tokens(LONG)


def test_the_stored_prefix_is_reported_as_cached():
    server = OpenAIServer()
    first = server.respond("/v1/responses", openai_body([user(LONG)]))
    second = server.respond("/v1/responses", openai_body([user("And?")], previous_response_id=first["id"]))
    assert second["usage"]["input_tokens_details"]["cached_tokens"] == first["usage"]["input_tokens"]


def test_an_unknown_or_unstored_response_id_is_refused():
    server = OpenAIServer()
    first = server.respond("/v1/responses", openai_body([user("Hi")], store=False))
    with pytest.raises(ProviderError, match="not found"):
        server.respond("/v1/responses", openai_body([user("And?")], previous_response_id=first["id"]))


def test_compaction_replaces_the_items_by_an_opaque_item():
    server = OpenAIServer()
    reply = server.respond("/v1/responses", openai_body(
        [user(LONG), user("And?")], context_management=[{"type": "compaction", "compact_threshold": 1_000}]))
    item = reply["output"][0]
    assert item["type"] == "compaction" and item["encrypted_content"].startswith("gAAAA")
    assert "summary_text" not in item  # the client never sees the summary
    assert [p.kind for p in server.passes] == ["summary", "turn"]
    assert reply["usage"]["input_tokens"] < tokens(LONG)
    # sent back, the item is read as the summary it stands for
    back = server.respond("/v1/responses", openai_body([item, *reply["output"][1:], user("More?")]))
    assert back["usage"]["input_tokens"] == sum(server.passes[-1].parts)
    assert server.passes[-1].parts[0] == 3 + tokens(server.compactions[item["encrypted_content"]])


def test_truncation_auto_drops_the_oldest_items_instead_of_refusing():
    items = [user(LONG), user(LONG), user("Last")]
    with pytest.raises(ProviderError, match="exceeds the context window"):
        OpenAIServer(context_window=2_000).respond("/v1/responses", openai_body(items))
    reply = OpenAIServer(context_window=2_000).respond("/v1/responses", openai_body(items, truncation="auto"))
    assert reply["usage"]["input_tokens"] <= 2_000
    assert reply["output"][0]["content"][0]["text"].startswith("Noted: Last")
