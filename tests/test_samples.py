"""Sample conversations: every file is well formed; each one shows what it is there to show."""

import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages

from course_utils.core.samples import Conversation, conversation_from_dict, list_conversations, load_conversation, load_sample
from course_utils.window.tokens import approximate_counter

MINE = ["agent_tools", "dialogue_en", "dialogue_fa", "dialogue_zh", "long_chat"]
ROLE_TYPES = (SystemMessage, HumanMessage, AIMessage, ToolMessage)


def test_the_course_samples_are_listed():
    assert set(MINE) <= set(list_conversations())


# --- every file ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list_conversations())
def test_every_sample_loads_with_valid_roles_unique_ids_and_answered_tool_calls(name):
    sample = load_sample(name)
    assert isinstance(sample, Conversation)
    assert sample.title and sample.description and sample.messages
    assert all(isinstance(m, ROLE_TYPES) for m in sample.messages)
    ids = [m.id for m in sample.messages if m.id is not None]
    assert len(ids) == len(set(ids))
    calls_so_far = set()
    for message in sample.messages:
        if isinstance(message, AIMessage):
            calls_so_far |= {call["id"] for call in message.tool_calls}
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in calls_so_far, f"{name}: {message.id} answers no earlier tool call"


@pytest.mark.parametrize("name", MINE)
def test_every_message_has_a_fixed_id(name):
    first, second = load_conversation(name), load_conversation(name)
    assert all(m.id for m in first)
    assert [m.id for m in first] == [m.id for m in second]


def test_each_load_returns_fresh_messages():
    first = load_conversation("dialogue_en")
    first[1].content = "changed"
    first.append(HumanMessage("extra"))
    again = load_conversation("dialogue_en")
    assert again[1].content != "changed" and len(again) == 11


# --- the same dialogue in three languages ----------------------------------------------------


def test_dialogues_are_the_same_conversation_in_three_languages():
    en, fa, zh = (load_conversation(f"dialogue_{lang}") for lang in ("en", "fa", "zh"))
    assert 8 <= len(en) <= 12
    assert len(en) == len(fa) == len(zh)
    assert [m.type for m in en] == [m.type for m in fa] == [m.type for m in zh]
    assert [m.id for m in en] == [m.id for m in fa] == [m.id for m in zh]
    for e, f, z in zip(en, fa, zh):
        assert re.search(r"[A-Za-z]{3}", e.content)
        assert re.search(r"[\u0600-\u06FF]{3}", f.content)  # Persian (Arabic script)
        assert re.search(r"[\u4E00-\u9FFF]{3}", z.content)  # Chinese characters
    # the same places in every language: Kyoto and the IC card
    assert "Kyoto" in en[1].content and "کیوتو" in fa[1].content and "京都" in zh[1].content
    assert "ICOCA" in en[6].content and "ICOCA" in fa[6].content and "ICOCA" in zh[6].content


# --- the long chat of lesson 05 ----------------------------------------------------------------


def test_long_chat_is_long_and_alternates():
    sample = load_sample("long_chat")
    messages = sample.messages
    assert isinstance(messages[0], SystemMessage)
    turns = messages[1:]
    assert 76 <= len(turns) <= 84
    assert all(isinstance(m, HumanMessage if i % 2 == 0 else AIMessage) for i, m in enumerate(turns))
    lengths = [len(m.content) for m in turns]
    assert min(lengths) < 80 and max(lengths) > 600  # varied, realistic lengths


def test_long_chat_states_its_facts_early_and_never_again():
    sample = load_sample("long_chat")
    assert {fact["fact"] for fact in sample.facts} >= {"name", "city", "pet", "favourite food"}
    assert next(f for f in sample.facts if f["fact"] == "name")["value"] == "Sara"
    stated_at = []
    for fact in sample.facts:
        i = sample.index_of(fact["id"])
        stated_at.append(i)
        assert isinstance(sample.messages[i], HumanMessage)
        assert fact["value"].lower() in sample.messages[i].content.lower()
        assert fact["id"] in sample.description and fact["value"] in sample.description
        later = [m.id for m in sample.messages[i + 2 :] if fact["value"].lower() in m.content.lower()]
        assert later == [], f"{fact['value']} is repeated later in {later}"
    assert len(set(stated_at)) == len(stated_at)  # one fact a turn
    assert max(stated_at) < len(sample.messages) // 4  # all early


def test_trimming_the_long_chat_forgets_the_early_facts():
    sample = load_sample("long_chat")
    kept = trim_messages(
        sample.messages, max_tokens=1000, token_counter="approximate", strategy="last", start_on="human", include_system=True
    )
    kept_ids = {m.id for m in kept}
    assert not any(fact["id"] in kept_ids for fact in sample.facts)
    everything = trim_messages(
        sample.messages, max_tokens=approximate_counter(sample.messages), token_counter="approximate"
    )
    assert all(fact["id"] in {m.id for m in everything} for fact in sample.facts)


# --- the tool-using agent and langchain issue #33245 ----------------------------------------------


def orphan_tool_messages(kept):
    """Tool messages in ``kept`` whose AIMessage tool call is not in ``kept`` before them."""
    calls, orphans = set(), []
    for message in kept:
        if isinstance(message, AIMessage):
            calls |= {call["id"] for call in message.tool_calls}
        if isinstance(message, ToolMessage) and message.tool_call_id not in calls:
            orphans.append(message)
    return orphans


def scan(**kwargs):
    messages = load_conversation("agent_tools")
    total = approximate_counter(messages)
    return {
        max_tokens: trim_messages(messages, max_tokens=max_tokens, token_counter="approximate", **kwargs)
        for max_tokens in range(1, total + 1)
    }


def test_agent_sample_has_parallel_and_sequential_tool_calls_with_long_outputs():
    messages = load_conversation("agent_tools")
    assert isinstance(messages[0], SystemMessage)
    assert sum(isinstance(m, HumanMessage) for m in messages) >= 3
    assert any(isinstance(m, AIMessage) and len(m.tool_calls) >= 2 for m in messages)
    tool_outputs = [m for m in messages if isinstance(m, ToolMessage)]
    assert len(tool_outputs) >= 4
    assert max(len(m.content) for m in tool_outputs) > 1000
    assert isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls


def test_naive_last_trim_can_start_with_an_orphan_tool_message():
    naive = scan(strategy="last")
    orphaned = {t: kept for t, kept in naive.items() if kept and isinstance(kept[0], ToolMessage)}
    assert orphaned, "no max_tokens makes strategy='last' start with a ToolMessage"
    for kept in orphaned.values():
        assert orphan_tool_messages(kept)[0] is kept[0]  # its AIMessage tool call was cut
    smallest = min(orphaned)
    assert orphaned[smallest][0].tool_call_id == "call_search_3"  # the last tool call, cut from the front


def test_start_on_human_never_leaves_an_orphan():
    for max_tokens, kept in scan(strategy="last", start_on="human").items():
        assert kept == [] or isinstance(kept[0], HumanMessage), max_tokens
        assert orphan_tool_messages(kept) == [], max_tokens
    for max_tokens, kept in scan(strategy="last", start_on="human", include_system=True).items():
        assert orphan_tool_messages(kept) == [], max_tokens


# --- the loader refuses malformed data --------------------------------------------------------------


def test_load_sample_checks_its_argument():
    with pytest.raises(TypeError, match="name must be a str"):
        load_sample(3)
    with pytest.raises(ValueError, match="name must be one of .*got 'nope'"):
        load_conversation("nope")


def entry(role="human", content="hi", **extra):
    return {"role": role, "content": content, **extra}


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ([entry(role="user")], r"messages\[0\]\.role must be one of"),
        ([entry(id="x"), entry(id="x")], r"messages\[1\] repeats id 'x'"),
        ([entry(role="tool", tool_call_id="c9")], r"messages\[0\]\.tool_call_id 'c9' does not answer"),
        ([entry(colour="red")], r"messages\[0\] has unknown keys \['colour'\]"),
        ([entry(content=None)], r"messages\[0\]\.content must be a string"),
        ([entry(tool_calls=[{"name": "f", "args": {}, "id": "c1"}])], "only 'ai' messages may have tool_calls"),
        ([entry(role="ai", tool_calls=[{"name": "f"}])], r"tool_calls\[0\] must be"),
        ([], "'messages' must be a non-empty list"),
    ],
)
def test_malformed_conversations_are_refused(messages, error):
    with pytest.raises(ValueError, match=error):
        conversation_from_dict({"title": "t", "description": "d", "messages": messages}, where="test.json")


def test_facts_must_point_at_messages():
    raw = {"title": "t", "description": "d", "messages": [entry(id="m1")], "facts": [{"fact": "name", "value": "x", "id": "m2"}]}
    with pytest.raises(ValueError, match=r"facts\[0\] names message id 'm2'"):
        conversation_from_dict(raw)
    with pytest.raises(ValueError, match="message_id 'm9' is not in"):
        conversation_from_dict({**raw, "facts": []}).index_of("m9")
