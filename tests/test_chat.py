"""Tests for course_utils.model.chat: the offline chat model and get_chat_model()."""

import importlib.util
import pickle
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages
from langchain_core.tools import tool

from course_utils.model.chat import ContextWindowExceededError, OfflineChatModel, get_chat_model
from course_utils.model.facts import NOT_NAMES, TEAMS
from course_utils.core.samples import load_conversation
from course_utils.window.tokens import approximate_counter, dummy_token_counter, exact_counter

CREATE = "Create a summary of the conversation above:"
EXTEND = (
    "This is summary of the conversation to date: {summary}\n\n"
    "Extend the summary by taking into account the new messages above:"
)
NFL_QUESTION = "what NFL team do you think I like?"
NFL_TEAMS = [t for t in TEAMS.values() if t.league == "NFL"]


def ask(model, *messages):
    return model.invoke(list(messages))


def text_of(reply):
    return reply.content


@tool
def get_weather(city: str) -> str:
    """Get the current weather in a city."""
    return f"It's 18 degrees and sunny in {city}."


# --- it is a real chat model, deterministic, with fresh ids ------------------------


def test_is_a_real_chat_model():
    assert isinstance(OfflineChatModel(), BaseChatModel)


def test_same_input_gives_same_reply_across_instances():
    history = load_conversation("bob")[:5]
    first, second = OfflineChatModel().invoke(history), OfflineChatModel().invoke(history)
    assert first.content == second.content
    assert first.id == second.id  # deterministic, not a random uuid


def test_every_reply_gets_a_fresh_id():
    model = OfflineChatModel()
    replies = [model.invoke("hello") for _ in range(5)] + [model.invoke("what's my name?")]
    assert len({r.id for r in replies}) == len(replies)
    assert len({r.content for r in replies[:5]}) == 1  # same text, different ids


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gets_a_deterministic_non_empty_reply(text):
    a = OfflineChatModel(token_counter="approximate").invoke([HumanMessage(text)])
    b = OfflineChatModel(token_counter="approximate").invoke([HumanMessage(text)])
    assert isinstance(a.content, str) and a.content.strip()
    assert (a.content, a.id) == (b.content, b.id)


def test_generic_question_fallback_mentions_the_question():
    question = "what is the capital of France?"
    reply = ask(OfflineChatModel(), HumanMessage(question)).content
    assert question in reply


# --- usage metadata and the context window -------------------------------------------


@pytest.mark.parametrize(
    "name, counter", [("exact", exact_counter), ("approximate", approximate_counter), ("dummy", dummy_token_counter)]
)
def test_usage_metadata_uses_the_configured_counter(name, counter):
    messages = load_conversation("bob")[:3]
    reply = OfflineChatModel(token_counter=name).invoke(messages)
    usage = reply.usage_metadata
    assert usage["input_tokens"] == counter(messages)
    assert usage["output_tokens"] == counter([AIMessage(reply.content)])
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_default_counter_is_exact_and_a_callable_counter_is_used():
    messages = [HumanMessage("hello there")]
    assert OfflineChatModel().invoke(messages).usage_metadata["input_tokens"] == exact_counter(messages)

    def characters(msgs):
        return sum(len(m.text) for m in msgs)

    reply = OfflineChatModel(token_counter=characters).invoke(messages)
    assert reply.usage_metadata["input_tokens"] == len("hello there")
    assert reply.usage_metadata["output_tokens"] == len(reply.content)


def test_context_window_is_enforced_with_a_provider_shaped_error():
    messages = load_conversation("bob")
    needed = exact_counter(messages)
    assert OfflineChatModel(context_window=needed).invoke(messages).content  # exactly at the limit: fine

    model = OfflineChatModel(context_window=needed - 1)
    with pytest.raises(ContextWindowExceededError) as info:
        model.invoke(messages)
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.limit, error.requested, error.overflow) == (needed - 1, needed, 1)
    assert error.code == "context_length_exceeded"
    assert str(error).startswith(
        f"This model's maximum context length is {needed - 1} tokens. "
        f"However, your messages resulted in {needed} tokens. Please reduce the length of the messages."
    )
    assert model.calls == [messages]  # what it was sent is still on record
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.limit, copy.requested) == (type(error), error.limit, error.requested)
    assert str(copy) == str(error)


def test_calls_record_exactly_what_was_sent():
    model = OfflineChatModel()
    first = [HumanMessage("hi! I'm bob")]
    second = [HumanMessage("i like the celtics!")]
    model.invoke(first)
    model.invoke(second)
    assert model.calls == [first, second]
    model.calls.append("tampering with the copy")
    assert len(model.calls) == 2
    model.clear_calls()
    assert model.calls == []
    assert model.invoke(first).id != OfflineChatModel().invoke(first).id  # the counter kept going


# --- it only knows what it is sent ---------------------------------------------------


def test_greets_bob_by_name():
    assert "Bob" in ask(OfflineChatModel(), HumanMessage("hi! I'm bob")).content


@pytest.mark.parametrize("intro", ["hi! I'm bob", "my name is bob", "Hello, I am Bob.", "call me bob"])
def test_name_is_answered_when_a_human_message_states_it(intro):
    reply = ask(OfflineChatModel(), HumanMessage(intro), AIMessage("Hello!"), HumanMessage("what's my name?"))
    assert reply.content == "Your name is Bob."


def test_name_is_unknown_when_not_sent():
    reply = ask(OfflineChatModel(), HumanMessage("what's my name?"))
    assert "Bob" not in reply.content
    assert "don't know" in reply.content


@pytest.mark.parametrize("ai_text", ["Hello! I'm Claude.", "Noted: the user's name is Bob."])
def test_a_name_in_an_ai_message_does_not_count(ai_text):
    reply = ask(OfflineChatModel(), AIMessage(ai_text), HumanMessage("what's my name?"))
    assert "don't know" in reply.content


def test_a_mood_is_not_a_name():
    reply = ask(OfflineChatModel(), HumanMessage("I'm tired."), HumanMessage("what's my name?"))
    assert "Tired" not in reply.content and "don't know" in reply.content


def test_name_is_answered_from_a_summary_system_message():
    summary = SystemMessage("Summary of conversation earlier: The user's name is Bob. The user likes the Celtics.")
    assert ask(OfflineChatModel(), summary, HumanMessage("what's my name?")).content == "Your name is Bob."


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=12).filter(lambda n: n not in NOT_NAMES))
def test_any_stated_name_is_remembered(name):
    model = OfflineChatModel(token_counter="approximate")
    reply = ask(model, HumanMessage(f"hi! I'm {name}"), HumanMessage("what's my name?"))
    assert reply.content == f"Your name is {name.capitalize()}."


def test_nfl_team_is_unknown_when_only_the_celtics_are_liked():
    reply = ask(OfflineChatModel(), HumanMessage("i like the celtics!"), HumanMessage(NFL_QUESTION))
    assert not any(team.name in reply.content for team in NFL_TEAMS)
    assert "don't know" in reply.content and "Celtics" in reply.content and "NBA" in reply.content


def test_nfl_team_is_unknown_when_nothing_is_liked():
    reply = ask(OfflineChatModel(), HumanMessage(NFL_QUESTION))
    assert "don't know" in reply.content
    assert not any(team.name in reply.content for team in TEAMS.values())


@pytest.mark.parametrize("key", ["patriots", "chiefs", "eagles"])
def test_nfl_team_is_named_when_the_user_likes_one(key):
    reply = ask(OfflineChatModel(), HumanMessage(f"i like the {key}!"), HumanMessage(NFL_QUESTION))
    assert TEAMS[key].name in reply.content
    assert "don't know" not in reply.content


def test_a_like_statement_is_acknowledged():
    assert "Celtics" in ask(OfflineChatModel(), HumanMessage("i like the celtics!")).content
    assert "pizza" in ask(OfflineChatModel(), HumanMessage("i like pizza")).content


def test_likes_are_answered_from_visible_messages_or_a_summary():
    model = OfflineChatModel()
    assert "Celtics" in ask(model, HumanMessage("i like the celtics!"), HumanMessage("what do i like?")).content
    summary = SystemMessage("Summary of conversation earlier: The user likes the Patriots.")
    assert "Patriots" in ask(model, summary, HumanMessage("what do i like?")).content
    assert "don't know" in ask(model, HumanMessage("what do i like?")).content


# --- summaries -------------------------------------------------------------------------


def test_summary_is_created_from_the_visible_facts():
    messages = load_conversation("bob")[:8] + [HumanMessage(CREATE)]
    summary = OfflineChatModel().invoke(messages).content
    assert "Bob" in summary and "Celtics" in summary
    assert "Patriots" not in summary  # not said yet
    # A later call that only sees the summary can still answer.
    system = SystemMessage(f"Summary of conversation earlier: {summary}")
    later = OfflineChatModel().invoke([system, HumanMessage("what's my name?")])
    assert later.content == "Your name is Bob."


def test_summary_is_extended_with_new_facts():
    model = OfflineChatModel()
    first = model.invoke(load_conversation("bob")[:8] + [HumanMessage(CREATE)]).content
    new = [
        HumanMessage(NFL_QUESTION),
        AIMessage("I don't know."),
        HumanMessage("i like the patriots!"),
        AIMessage("Great!"),
    ]
    extended = model.invoke(new + [HumanMessage(EXTEND.format(summary=first))]).content
    assert extended != first
    assert "Bob" in extended and "Celtics" in extended and "Patriots" in extended
    assert extended.index("Celtics") < extended.index("Patriots")  # older facts first
    answer = model.invoke([SystemMessage(f"Summary of conversation earlier: {extended}"), HumanMessage(NFL_QUESTION)])
    assert "Patriots" in answer.content


def test_summary_without_facts_says_so():
    summary = OfflineChatModel().invoke([HumanMessage("hello"), AIMessage("Hi!"), HumanMessage(CREATE)]).content
    assert summary and "Bob" not in summary


# --- tools ---------------------------------------------------------------------------------


def test_bound_tool_is_called_for_a_matching_question():
    model = OfflineChatModel()
    reply = model.bind_tools([get_weather]).invoke([HumanMessage("what's the weather in Paris?")])
    assert len(reply.tool_calls) == 1
    call = reply.tool_calls[0]
    assert call["name"] == "get_weather" and call["args"] == {"city": "Paris"}
    again = OfflineChatModel().bind_tools([get_weather]).invoke([HumanMessage("what's the weather in Paris?")])
    assert again.tool_calls[0]["id"] == call["id"]  # deterministic
    assert reply.response_metadata["finish_reason"] == "tool_calls"


def test_tool_result_is_used_in_the_answer():
    bound = OfflineChatModel().bind_tools([get_weather])
    question = HumanMessage("what's the weather in Paris?")
    call_message = bound.invoke([question])
    result = get_weather.invoke(call_message.tool_calls[0])
    assert isinstance(result, ToolMessage)
    answer = bound.invoke([question, call_message, result])
    assert not answer.tool_calls
    assert result.content in answer.content


def test_tools_are_not_called_for_unrelated_questions_or_with_tool_choice_none():
    bound = OfflineChatModel().bind_tools([get_weather])
    assert bound.invoke("hi! I'm bob").tool_calls == []
    none = OfflineChatModel().bind_tools([get_weather], tool_choice="none")
    assert none.invoke("what's the weather in Paris?").tool_calls == []
    forced = OfflineChatModel().bind_tools([get_weather], tool_choice="get_weather")
    assert forced.invoke("hello").tool_calls[0]["name"] == "get_weather"


def test_bind_tools_accepts_functions_and_dicts():
    def get_population(city: str) -> int:
        """Get the population of a city."""
        return 1

    schema = {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Current time in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
    bound = OfflineChatModel().bind_tools([get_population, schema])
    assert bound.invoke("what is the population of Tokyo?").tool_calls[0]["name"] == "get_population"
    assert bound.invoke("what time is it in Tokyo?").tool_calls[0]["args"] == {"city": "Tokyo"}


# --- counting tokens offline, and trim_messages with the model as counter ---------------


def test_get_num_tokens_from_messages_uses_the_counter_offline():
    messages = load_conversation("bob")
    for name, counter in [("exact", exact_counter), ("dummy", dummy_token_counter)]:
        assert OfflineChatModel(token_counter=name).get_num_tokens_from_messages(messages) == counter(messages)
    model = OfflineChatModel()
    with_tools = model.get_num_tokens_from_messages(messages, tools=[get_weather])
    assert with_tools > model.get_num_tokens_from_messages(messages)
    assert model.get_num_tokens("hello world") == exact_counter([HumanMessage("hello world")])


def test_tools_count_towards_the_input():
    model = OfflineChatModel()
    messages = [HumanMessage("what's the weather in Paris?")]
    reply = model.bind_tools([get_weather]).invoke(messages)
    assert reply.usage_metadata["input_tokens"] == model.get_num_tokens_from_messages(messages, tools=[get_weather])


def test_trim_messages_accepts_the_model_as_token_counter():
    messages = load_conversation("bob")
    model = OfflineChatModel(token_counter="dummy")
    trimmed = trim_messages(messages, max_tokens=40, token_counter=model, start_on="human")
    expected = trim_messages(messages, max_tokens=40, token_counter=dummy_token_counter, start_on="human")
    assert trimmed == expected
    assert trimmed and trimmed[0].type == "human" and dummy_token_counter(trimmed) <= 40
    assert len(trimmed) < len(messages)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"context_window": "4096"}, TypeError, "context_window"),
        ({"context_window": 1.5}, TypeError, "context_window"),
        ({"context_window": True}, TypeError, "context_window"),
        ({"context_window": 0}, ValueError, "context_window"),
        ({"context_window": -10}, ValueError, "-10"),
        ({"token_counter": "bogus"}, ValueError, "bogus"),
        ({"token_counter": 42}, TypeError, "token_counter"),
    ],
)
def test_bad_constructor_arguments(kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        OfflineChatModel(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"summary_questions": True}, TypeError, "summary_questions must be an int, got bool: True"),
        ({"summary_questions": 1.0}, TypeError, "summary_questions must be an int, got float"),
        ({"summary_questions": -1}, ValueError, "summary_questions must be >= 0, got -1"),
        ({"context_window": True}, TypeError, "context_window must be an int, got bool: True"),
        ({"context_window": 0}, ValueError, "context_window must be >= 1, got 0"),
    ],
)
def test_wrong_types_are_type_errors_and_wrong_values_value_errors_for_every_option(kwargs, error, words):
    with pytest.raises(error) as info:
        OfflineChatModel(**kwargs)
    assert type(info.value) is error  # a plain error naming the option, not pydantic's ValidationError
    assert str(info.value).startswith(words)


@pytest.mark.parametrize("make", [OfflineChatModel, lambda **kw: get_chat_model("offline", **kw)])
def test_a_misspelt_option_is_refused_not_ignored(make, monkeypatch):
    monkeypatch.delenv("COURSE_CHAT_MODEL", raising=False)
    with pytest.raises(TypeError) as info:
        make(context_windo=512)
    message = str(info.value)
    assert message.startswith("OfflineChatModel() got an unexpected keyword argument 'context_windo'")
    assert "did you mean 'context_window'?" in message
    with pytest.raises(TypeError, match="unexpected keyword argument 'temperature'"):
        make(temperature=0)
    # BaseChatModel's own options are still accepted.
    model = make(context_window=512, tags=["lesson"], name="bot", verbose=False)
    assert (model.context_window, model.tags, model.name) == (512, ["lesson"], "bot")


def test_extra_fields_are_forbidden_in_the_pydantic_config_too():
    from langchain_core.language_models import BaseChatModel

    config = OfflineChatModel.model_config
    assert config["extra"] == "forbid"
    for key, value in BaseChatModel.model_config.items():  # merged with the base config, not replacing it
        if key != "extra":
            assert config[key] == value


def test_another_chat_model_can_be_the_token_counter():
    messages = load_conversation("bob")[:3]
    model = OfflineChatModel(token_counter=OfflineChatModel(token_counter="dummy"))
    assert model.get_num_tokens_from_messages(messages) == dummy_token_counter(messages)


def test_an_empty_list_of_messages_is_refused_like_a_provider():
    model = OfflineChatModel()
    with pytest.raises(ValueError, match="^messages must not be empty"):
        model.invoke([])
    assert model.calls == []  # refused before it was a call


def test_stop_sequences_cut_the_reply_and_bad_ones_are_refused():
    model = OfflineChatModel()
    full = model.invoke("hi! I'm bob").content
    assert full == "Hi Bob! Nice to meet you. How can I help you today?"
    assert model.invoke("hi! I'm bob", stop=["!"]).content == "Hi Bob"
    assert model.invoke("hi! I'm bob", stop=["\n", "zzz"]).content == full
    assert model.invoke("hi! I'm bob", stop=None).content == full
    assert model.bind(stop=["Nice"]).invoke("hi! I'm bob").content == "Hi Bob! "
    with pytest.raises(ValueError, match=r"^stop\[1\] must not be empty"):
        model.invoke("hi! I'm bob", stop=["!", ""])
    with pytest.raises(TypeError, match="^stop must be a list of str or None, got str"):
        model.invoke("hi! I'm bob", stop="!")
    with pytest.raises(TypeError, match=r"^stop\[0\] must be a str, got int"):
        model.invoke("hi! I'm bob", stop=[3])


def test_the_rules_text_helper_is_not_tokens_message_text():
    import course_utils.model.chat as chat_module

    assert not hasattr(chat_module, "message_text")  # one name, one meaning: tokens.message_text
    assert chat_module.readable_text(HumanMessage("I\u2019m bob")) == "I'm bob"


@pytest.mark.parametrize("bad", [123, [1, 2], [{"x": 1}], None])
def test_wrongly_typed_input_is_a_type_error(bad):
    with pytest.raises(TypeError, match="input must be"):
        OfflineChatModel().invoke(bad)


def test_bad_arguments_to_the_other_methods():
    model = OfflineChatModel()
    with pytest.raises(TypeError, match="messages"):
        model.get_num_tokens_from_messages("hello")
    with pytest.raises(TypeError, match=r"messages\[1\]"):
        model.get_num_tokens_from_messages([HumanMessage("a"), "b"])
    with pytest.raises(TypeError, match="text"):
        model.get_num_tokens(5)
    with pytest.raises(TypeError, match="tools"):
        model.bind_tools(get_weather)
    with pytest.raises(ValueError, match="'nope'"):
        model.bind_tools([get_weather], tool_choice="nope")
    with pytest.raises(TypeError, match="messages"):
        model._generate("not messages")


# --- get_chat_model ----------------------------------------------------------------------------


def test_get_chat_model_defaults_to_the_offline_model(monkeypatch):
    monkeypatch.delenv("COURSE_CHAT_MODEL", raising=False)
    model = get_chat_model(context_window=512)
    assert isinstance(model, OfflineChatModel) and model.context_window == 512
    monkeypatch.setenv("COURSE_CHAT_MODEL", "offline")
    assert isinstance(get_chat_model(), OfflineChatModel)


@pytest.mark.parametrize(
    "spec, package",
    [
        ("openai:gpt-4o-mini", "langchain-openai"),
        ("anthropic:claude-3-5-haiku-latest", "langchain-anthropic"),
        ("ollama:llama3.2", "langchain-ollama"),
    ],
)
def test_a_provider_model_without_its_packages_says_what_to_install(monkeypatch, spec, package):
    if importlib.util.find_spec(package.replace("-", "_")) is not None:
        pytest.skip(f"{package} is installed here")
    # langchain itself is in requirements.txt (lesson 06); the message names only what is missing.
    langchain = "" if importlib.util.find_spec("langchain") is not None else "langchain "
    command = f"pip install {langchain}{package}"
    monkeypatch.setenv("COURSE_CHAT_MODEL", spec)
    with pytest.raises(ImportError) as info:
        get_chat_model()
    assert str(info.value).endswith(command)


def test_get_chat_model_bad_specs(monkeypatch):
    monkeypatch.setenv("COURSE_CHAT_MODEL", "gpt-4o-mini")
    with pytest.raises(ValueError, match="'gpt-4o-mini'"):
        get_chat_model()
    with pytest.raises(TypeError, match="spec"):
        get_chat_model(42)
    with pytest.raises(ValueError, match="e.g. 'anthropic:claude-haiku-5-5'"):
        get_chat_model(":gpt")
    with pytest.raises(TypeError, match="context_window"):
        get_chat_model("offline", context_window="big")


# --- personal facts of lesson 05's long chat (city, pet, favourite food, job) ----------


SARA = [
    "Hi there! I'm Sara.",
    "I live in Valencia, close to the sea.",
    "I also share my flat with a very opinionated cat called Pistachio.",
    "And my favourite food in the whole world is mushroom risotto, in case you ever need to bribe me.",
    "Last bit of background: I work as a nurse on night shifts.",
]
SARA_QUESTIONS = {
    "Where do I live?": "You live in Valencia.",
    "What is my cat called?": "Your cat is called Pistachio.",
    "What is my favourite food?": "Your favourite food is mushroom risotto.",
    "What do I do for work?": "You work as a nurse.",
}


@pytest.mark.parametrize("question, answer", SARA_QUESTIONS.items())
def test_personal_facts_are_answered_only_while_they_are_sent(question, answer):
    model = OfflineChatModel()
    told = [HumanMessage(text) for text in SARA]
    assert ask(model, *told, HumanMessage(question)).content == answer
    assert ask(model, HumanMessage(question)).content.startswith("I don't know")


@pytest.mark.parametrize("question, answer", SARA_QUESTIONS.items())
def test_personal_facts_survive_a_summary(question, answer):
    model = OfflineChatModel()
    summary = ask(model, *[HumanMessage(text) for text in SARA], HumanMessage(CREATE)).content
    assert "The user lives in Valencia." in summary and "The user works as a nurse." in summary
    assert ask(model, SystemMessage(f"Summary of conversation earlier: {summary}"), HumanMessage(question)).content == answer
    extended = ask(model, HumanMessage("ok"), HumanMessage(EXTEND.format(summary=summary))).content
    assert ask(model, SystemMessage(extended), HumanMessage(question)).content == answer


def test_personal_facts_need_the_right_words():
    model = OfflineChatModel()
    assert ask(model, HumanMessage("I live in a small flat."), HumanMessage("Where do I live?")).content.startswith(
        "I don't know"
    )
    cat = [HumanMessage("my cat is called Pistachio."), HumanMessage("What is my dog called?")]
    assert ask(model, *cat).content == "I don't know your dog's name. You've only told me about your cat."
    assert ask(model, cat[0], HumanMessage("What's my pet's name?")).content == "Your cat is called Pistachio."
    assert ask(model, HumanMessage("I work as a software engineer at a bank."), HumanMessage("what is my job?")).content == (
        "You work as a software engineer."
    )


def test_summary_questions_keeps_only_the_last_questions():
    texts = ["hi! I'm bob", "is it sunny?", "is it cold?", "is it late?", CREATE]
    full = OfflineChatModel().invoke([HumanMessage(t) for t in texts]).content
    short = OfflineChatModel(summary_questions=1).invoke([HumanMessage(t) for t in texts]).content
    none = OfflineChatModel(summary_questions=0).invoke([HumanMessage(t) for t in texts]).content
    assert full.count("The user asked:") == 3
    assert short == "The user's name is Bob. The user asked: is it late?"
    assert none == "The user's name is Bob."
    with pytest.raises(ValueError, match=r"^summary_questions must be >= 0, got -1$"):
        OfflineChatModel(summary_questions=-1)


# --- tool results must follow their tool call, as providers require ----------------


def test_orphaned_tool_result_is_refused_like_a_provider():
    from langchain_core.messages import trim_messages

    from course_utils.model.chat import InvalidToolSequenceError
    from course_utils.core.samples import load_conversation

    history = load_conversation("agent_tools")
    model = OfflineChatModel(token_counter="approximate", context_window=100_000)
    # Find a naive "last N tokens" cut that starts on a tool result (issue #33245).
    for max_tokens in range(50, 2000, 7):
        naive = trim_messages(history, max_tokens=max_tokens, token_counter="approximate")
        if naive and naive[0].type == "tool":
            break
    else:
        pytest.fail("no budget in range leaves an orphaned tool result")
    with pytest.raises(InvalidToolSequenceError) as error:
        model.invoke(naive)
    assert naive[0].tool_call_id in str(error.value)
    assert error.value.orphans[0] is naive[0]
    fixed = trim_messages(history, max_tokens=max_tokens, token_counter="approximate", start_on="human", include_system=True)
    assert model.invoke(fixed).content  # the valid boundary is accepted


def test_tool_result_after_its_call_is_accepted():
    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}])
    answer = ToolMessage("Sunny, 24 C", tool_call_id="c1")
    reply = OfflineChatModel().invoke([HumanMessage("weather in Paris?"), call, answer])
    assert reply.content


def test_a_system_prompt_alone_is_refused_as_anthropic_refuses_it():
    """A trim that keeps nothing sends the system prompt alone: refused by default (Anthropic: "at least one
    message is required"), answered with allow_system_only=True."""
    from langchain_core.exceptions import ModelInvalidRequestError

    from course_utils.model.chat import SystemPromptOnlyError

    model = OfflineChatModel()
    with pytest.raises(SystemPromptOnlyError, match="at least one message is required") as info:
        model.invoke([SystemMessage("You are a travel assistant.")])
    assert isinstance(info.value, ModelInvalidRequestError) and isinstance(info.value, ValueError)
    assert not info.value.is_retryable and "allow_system_only=True" in str(info.value)
    assert len(model.calls) == 1  # the request was sent, as a provider's is, then refused
    with pytest.raises(SystemPromptOnlyError):
        model.invoke([SystemMessage("a"), SystemMessage("b")])
    assert OfflineChatModel(allow_system_only=True).invoke([SystemMessage("hi")]).content
    assert model.invoke([SystemMessage("You are a travel assistant."), HumanMessage("hi! I'm bob")]).content


def test_allow_system_only_must_be_a_bool():
    with pytest.raises(TypeError, match="allow_system_only must be True or False"):
        OfflineChatModel(allow_system_only="yes")
    import pickle

    from course_utils.model.chat import SystemPromptOnlyError

    error = pickle.loads(pickle.dumps(SystemPromptOnlyError(2)))
    assert error.count == 2 and "2 system message(s)" in str(error)
