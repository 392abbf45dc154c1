"""An offline chat model, so every lesson runs with no network and no API key.

:class:`OfflineChatModel` is a real langchain_core ``BaseChatModel``. It answers
with a few small, table-driven rules and uses **only the messages it is sent
in that call**, so a lesson can show what a model forgets when the history is
trimmed, and what it still knows from a summary:

>>> from langchain_core.messages import HumanMessage
>>> model = OfflineChatModel()
>>> model.invoke([HumanMessage("hi! I'm bob")]).content
'Hi Bob! Nice to meet you. How can I help you today?'
>>> model.invoke([HumanMessage("what's my name?")]).content
"I don't know your name: it is not in what I was sent."

Like a provider's model it reports ``usage_metadata``, refuses input larger
than its ``context_window`` (:class:`ContextWindowExceededError`), refuses a
tool result whose tool call was cut (:class:`InvalidToolSequenceError`), writes a
summary when asked to (a short one that loses facts: see
:mod:`course_utils.model.summaries`), and calls tools bound with ``bind_tools``. Unlike one,
it records what every call was sent in ``model.calls``.

Besides a name and likes (the how-to's dialogue with Bob) it remembers where
the user lives, a pet's name, a favourite food and a job, as stated in the
long sample conversation of lesson 05 ("I live in Valencia", "a cat called
Pistachio", ...), and answers "Where do I live?", "What is my cat called?",
"What is my favourite food?" and "What do I do for work?" from them. Facts
stated in other common forms ("My favourite colour is green.", "I'm allergic
to peanuts.") and in Chinese and Persian are answered by
:mod:`course_utils.model.fact_replies`, in the question's language; tool calls
follow :mod:`course_utils.model.tool_calling` and :mod:`course_utils.model.tool_arguments`;
a structured-output request to choose from a list (``LLMToolSelectorMiddleware``'s)
follows :mod:`course_utils.model.choice_replies`.

>>> model.invoke([HumanMessage("سلام! من باب هستم"), HumanMessage("اسم من چیست؟")]).content
'اسم شما باب است.'

A summary is written in the language it is requested in, English or Persian,
and read back in either:

>>> summary = model.invoke([HumanMessage("سلام! من باب هستم"), HumanMessage("گفتگوی بالا را خلاصه کن:")]).content
>>> summary
'اسم کاربر باب است.'
>>> from langchain_core.messages import SystemMessage
>>> model.invoke([SystemMessage(f"خلاصهٔ گفتگوی پیشین: {summary}"), HumanMessage("اسم من چیست؟")]).content
'اسم شما باب است.'

:func:`get_chat_model` returns it, or a real provider's model when the
environment variable ``COURSE_CHAT_MODEL`` names one (``"anthropic:claude-haiku-5-5"``).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.exceptions import ContextOverflowError, ModelInvalidRequestError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr, field_validator

from course_utils.core.args import check_choice, check_int, check_text

# Reading facts lives in facts.py, writing summaries in summaries.py.
from course_utils.model.facts import PET_KINDS, Facts, join_words, pretty, read_facts, readable_text, teams_in
from course_utils.model.choice_replies import choice_call
from course_utils.model.fact_replies import fact_reply, other_fallback
from course_utils.model.summaries import ASKS_SUMMARY, ASKS_SUMMARY_FA, summary_language, summary_reply  # noqa: F401
from course_utils.window.sequences import orphaned_tool_messages
from course_utils.window.tokens import check_messages, exact_counter, resolve_token_counter
from course_utils.model.tool_calling import (  # the tool rules live there (lesson 06)
    language_of,
    plan_turn,
    recall_call,
    recall_reply,
    tool_name,
    tool_results_reply,
)

TokenCounter = Callable[[list[BaseMessage]], int]

# --- the rule tables ----------------------------------------------------------


#: What the last human message asks for (a summary: ASKS_SUMMARY and, in Persian, ASKS_SUMMARY_FA of summaries.py).
ASKS_NAME = re.compile(r"\b(?:what's|what is|do you know|do you remember) my name\b", re.I)
ASKS_TEAM = re.compile(r"\b(?:what|which) (?:(\w+) )?team\b", re.I)
ASKS_LIKES = re.compile(r"\bwhat do i (?:like|love)\b", re.I)
ASKS_CITY = re.compile(r"\bwhere do i live\b|\b(?:what|which) (?:city|town) do i live in\b", re.I)
ASKS_PET = re.compile(
    rf"\bwhat(?:'s| is) my ({'|'.join(PET_KINDS)}|pet)(?:'s name|\s+called|\s+named)\b"
    rf"|\bwhat(?:'s| is) the name of my ({'|'.join(PET_KINDS)}|pet)\b",
    re.I,
)
ASKS_FOOD = re.compile(r"\bwhat(?:'s| is) my favou?rite food\b", re.I)
ASKS_JOB = re.compile(r"\bwhat(?:'s| is) my job\b|\bwhat do i do for (?:a living|work)\b|\bwhat do i work as\b", re.I)
GREETING = re.compile(r"^\s*(?:hi|hello|hey)\b", re.I)

FALLBACK_ECHO_CHARS = 60

#: Guards the call records of every model (one lock, so a model stays copyable).
_CALLS_LOCK = threading.Lock()


# --- the conversation rules ---------------------------------------------------
# Each rule looks at the last human text and the facts; it returns a reply or
# None to let the next rule try. The first reply wins.


def reply_name(text: str, facts: Facts) -> str | None:
    if not ASKS_NAME.search(text):
        return None
    return f"Your name is {facts.name}." if facts.name else "I don't know your name: it is not in what I was sent."


def reply_team(text: str, facts: Facts) -> str | None:
    match = ASKS_TEAM.search(text)
    if not match:
        return None
    kind = (match.group(1) or "").lower()  # "nfl", "football" or "" for any team
    liked = [team for like in facts.likes for team in teams_in(like)]
    wanted = [t for t in liked if kind in ("", t.league.lower(), t.sport)]
    label = f"{match.group(1)} team" if kind else "team"
    if wanted:
        return f"You like {join_words([t.full_name for t in wanted])}: you told me so."
    if liked:
        others = join_words([f"{t.full_name} ({t.league})" for t in liked])
        return f"I don't know which {label} you like. You've only mentioned {others}."
    return f"I don't know which {label} you like: it is not in what I was sent."


def reply_likes(text: str, facts: Facts) -> str | None:
    if not ASKS_LIKES.search(text):
        return None
    if not facts.likes:
        return "I don't know what you like: it is not in what I was sent."
    return f"You told me you like {join_words([pretty(like) for like in facts.likes])}."


def reply_city(text: str, facts: Facts) -> str | None:
    if not ASKS_CITY.search(text):
        return None
    return f"You live in {facts.city}." if facts.city else "I don't know where you live: it is not in what I was sent."


def reply_pet(text: str, facts: Facts) -> str | None:
    match = ASKS_PET.search(text)
    if not match:
        return None
    kind = (match.group(1) or match.group(2)).lower()
    if facts.pet and kind in ("pet", facts.pet[0]):
        return f"Your {facts.pet[0]} is called {facts.pet[1]}."
    if facts.pet:
        return f"I don't know your {kind}'s name. You've only told me about your {facts.pet[0]}."
    return f"I don't know your {kind}'s name: it is not in what I was sent."


def reply_food(text: str, facts: Facts) -> str | None:
    if not ASKS_FOOD.search(text):
        return None
    return f"Your favourite food is {facts.food}." if facts.food else "I don't know your favourite food: it is not in what I was sent."


def reply_job(text: str, facts: Facts) -> str | None:
    if not ASKS_JOB.search(text):
        return None
    return f"You work as a {facts.job}." if facts.job else "I don't know what you do for work: it is not in what I was sent."


def reply_introduction(text: str, facts: Facts) -> str | None:
    name = read_facts([text]).name
    return f"Hi {name}! Nice to meet you. How can I help you today?" if name else None


def reply_like_statement(text: str, facts: Facts) -> str | None:
    if text.endswith("?") or not re.search(r"\bi (?:really )?(?:like|love)\b", text, re.I):
        return None
    likes = read_facts([text]).likes
    teams = teams_in(likes[-1]) if likes else []
    if teams:
        return f"That's great, the {teams[0].name} are a fun {teams[0].sport} team to follow!"
    if likes:
        return f"Nice! I'll remember that you like {likes[-1]}."
    return "I can see why you like that!"


def reply_greeting(text: str, facts: Facts) -> str | None:
    return "Hello! How can I help you today?" if GREETING.search(text) else None


def reply_fallback(text: str, facts: Facts) -> str:
    echo = text if len(text) <= FALLBACK_ECHO_CHARS else text[: FALLBACK_ECHO_CHARS - 3].rstrip() + "..."
    if text.endswith("?"):
        return f'You asked: "{echo}" I\'m a small offline model: I only know what you\'ve told me.'
    return f'You said: "{echo}" Tell me more!'


RULES = (
    reply_name,
    reply_team,
    reply_likes,
    reply_city,
    reply_pet,
    reply_food,
    reply_job,
    reply_introduction,
    reply_like_statement,
    reply_greeting,
)


def conversation_reply(messages: Sequence[BaseMessage]) -> str:
    """Reply to the last human message using the facts in human and system messages."""
    facts = read_facts([readable_text(m) for m in messages if isinstance(m, (HumanMessage, SystemMessage))])
    text = last_human_text(messages)
    language = language_of(text)  # Persian and Chinese are answered by fact_reply alone, in their language
    for rule in (*(RULES if language == "en" else ()), fact_reply):
        reply = rule(text, facts)
        if reply is not None:
            return reply
    fallback = reply_fallback(text, facts) if language == "en" else other_fallback(text, language)
    return recall_reply(text, messages) or fallback


def last_human_text(messages: Sequence[BaseMessage]) -> str:
    humans = [readable_text(m) for m in messages if isinstance(m, HumanMessage)]
    return humans[-1].strip() if humans else ""


# --- tools --------------------------------------------------------------------
# Which tools to call, with which arguments, and answers from their results:
# course_utils/model/tool_calling.py (imported above).


# --- the model ----------------------------------------------------------------


class ContextWindowExceededError(ContextOverflowError, ValueError):
    """The input is larger than the model's context window, worded like OpenAI's error.

    It is a :class:`langchain_core.exceptions.ContextOverflowError`, the error
    LangChain's provider integrations raise on overflow (and that
    ``SummarizationMiddleware`` catches to compact and retry), so
    ``except ContextOverflowError`` catches it as it would a real provider's.

    ``limit`` is the window, ``requested`` what the messages cost, ``overflow``
    the difference (1080 requested with a limit of 1000: 80 over).
    """

    code = "context_length_exceeded"

    def __init__(self, limit: int, requested: int):
        self.limit = limit
        self.requested = requested
        super().__init__(
            f"This model's maximum context length is {limit} tokens. However, your messages "
            f"resulted in {requested} tokens. Please reduce the length of the messages. "
            f"(code: '{self.code}')"
        )

    @property
    def overflow(self) -> int:
        return self.requested - self.limit

    def __reduce__(self):
        return (type(self), (self.limit, self.requested))


class SystemPromptOnlyError(ModelInvalidRequestError, ValueError):
    """The input holds system messages and nothing else, refused as Anthropic refuses it.

    Anthropic's Messages API takes the system prompt out of ``messages``
    (into its ``system`` field), so a list of system messages alone leaves
    ``messages`` empty, and the request is refused ("at least one message is
    required"; seen through LiteLLM, BerriAI/litellm pull request 3019,
    2024-04-14, and braintrust-proxy pull request 250, 2025-06-11). A trim that
    keeps nothing sends exactly that. No provider is verified here to accept
    such a list; ``OfflineChatModel(allow_system_only=True)`` answers it anyway.
    It is a ``langchain_core.exceptions.ModelInvalidRequestError`` (HTTP 400),
    not retryable, and a ValueError.
    """

    code = "invalid_request_error"

    def __init__(self, count: int):
        self.count = count
        super().__init__(
            f"messages: at least one message is required; the input holds {count} system message(s) and "
            "nothing else (a trim that keeps nothing sends this). Send at least one human message, or pass "
            f"OfflineChatModel(allow_system_only=True) to answer it anyway. (code: '{self.code}')"
        )

    def __reduce__(self):
        return (type(self), (self.count,))


class InvalidToolSequenceError(ValueError):
    """A tool result that answers no tool call just before it, worded like OpenAI's error.

    Providers refuse a ``ToolMessage`` unless it follows the ``AIMessage``
    whose tool call it answers; a trim that cuts that AIMessage causes this
    (langchain issue #33245). ``orphans`` holds the offending messages.
    """

    code = "invalid_tool_sequence"

    def __init__(self, orphans: Sequence[BaseMessage]):
        self.orphans = list(orphans)
        ids = ", ".join(repr(m.tool_call_id) for m in self.orphans)
        super().__init__(
            "Invalid parameter: messages with role 'tool' must be a response to a preceding "
            f"message with 'tool_calls' (tool_call_id {ids}). (code: '{self.code}')"
        )

    def __reduce__(self):
        return (type(self), (self.orphans,))


#: A random id (uuid4, as add_messages and SummarizationMiddleware assign).
UUID_PATTERN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def input_digest(messages: Sequence[BaseMessage]) -> str:
    """A short, stable hash of what a call was sent.

    Message ids are part of it, except the random ones (uuid4) add_messages
    gives messages that have none: a run whose inputs carry fixed ids then
    gets the same reply ids, and tool call ids, every time (lesson 06 counts
    their tokens). Within a thread the input grows, so two calls differ anyway.
    """
    payload = [
        (m.type, None if m.id and UUID_PATTERN.fullmatch(m.id) else m.id, m.content,
         getattr(m, "tool_calls", None), getattr(m, "tool_call_id", None))
        for m in messages
    ]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _check_context_window(value: Any) -> int:
    return check_int(value, "context_window", minimum=1)


def _check_summary_questions(value: Any) -> int | None:
    return check_int(value, "summary_questions", minimum=0, none_ok=True)


#: The offline model's own options, and how each is checked.
_OPTION_CHECKS: dict[str, Callable[[Any], Any]] = {
    "context_window": _check_context_window,
    "token_counter": resolve_token_counter,
    "summary_questions": _check_summary_questions,
    "model_name": lambda value: check_text(value, "model_name", empty_ok=False),
    "cache_min_tokens": lambda value: check_int(value, "cache_min_tokens", none_ok=True),
    "allow_system_only": lambda value: _check_flag(value, "allow_system_only"),
}


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}: {value!r:.80}")
    return value


def _unknown_option_message(cls_name: str, name: str, accepted: set[str]) -> str:
    """"OfflineChatModel() got an unexpected keyword argument 'context_windo' (did you mean ...)"."""
    close = difflib.get_close_matches(name, sorted(accepted), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    own = ", ".join(_OPTION_CHECKS)
    return (
        f"{cls_name}() got an unexpected keyword argument {name!r}{hint}. Its own options are {own}; "
        f"BaseChatModel's ({', '.join(sorted(accepted - set(_OPTION_CHECKS)))}) are accepted too."
    )


def _check_stop(stop: Any) -> list[str]:
    """``stop`` as a list of non-empty strings (None gives [])."""
    if stop is None:
        return []
    if isinstance(stop, (str, bytes)) or not isinstance(stop, Sequence):
        raise TypeError(f"stop must be a list of str or None, got {type(stop).__name__}: {stop!r:.80}")
    for i, word in enumerate(stop):
        if check_text(word, f"stop[{i}]") == "":
            raise ValueError(f"stop[{i}] must not be empty: an empty stop sequence would cut every reply at once")
    return list(stop)


class OfflineChatModel(BaseChatModel):
    """A small, deterministic chat model that runs offline (see the module docstring).

    Args:
        context_window: the most input tokens it accepts (default 4096).
        token_counter: ``"exact"`` (default), ``"approximate"``, ``"dummy"``, a
            function over a list of messages or another chat model; used for
            ``usage_metadata``, the context window and ``get_num_tokens_from_messages``.
        summary_questions: how many of the user's questions a summary keeps
            (the last ones); None (default) keeps them all.
        allow_system_only: answer an input of system messages alone (default
            False: refused with :class:`SystemPromptOnlyError`, as Anthropic refuses it).

    Any other keyword must be one of BaseChatModel's (``callbacks``, ``tags``,
    ...): a misspelt option is a TypeError, as for a function, not ignored.
    Like a provider it refuses an empty list of messages, a list of system
    messages alone (:class:`SystemPromptOnlyError`) and empty ``stop``
    sequences (ValueError).

    >>> model = OfflineChatModel(context_window=50, token_counter="dummy")
    >>> model.invoke("hello").usage_metadata
    {'input_tokens': 10, 'output_tokens': 10, 'total_tokens': 20}
    """

    # Unknown keywords are refused, not ignored: context_windo=512 is a typo,
    # not a request for the default window. (pydantic merges this with
    # BaseChatModel's own config, arbitrary_types_allowed and protected_namespaces.)
    model_config = ConfigDict(extra="forbid")

    context_window: int = 4096
    token_counter: TokenCounter = exact_counter
    model_name: str = "offline-chat"
    #: Questions a summary keeps (the last ones); None keeps every question.
    summary_questions: int | None = None
    #: A provider's prompt cache with this minimum prefix (costs.PromptCache): cache reads and writes are
    #: reported in usage_metadata["input_token_details"] as providers do. None (default): no cache.
    cache_min_tokens: int | None = None
    #: Answer an input of system messages alone instead of refusing it (SystemPromptOnlyError).
    allow_system_only: bool = False

    _prompt_cache: Any = PrivateAttr(default=None)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _count: int = PrivateAttr(default=0)

    def __init__(self, **options: Any) -> None:
        # Checked here first so a learner sees a plain TypeError or ValueError
        # naming the keyword, not pydantic's ValidationError.
        accepted = self._accepted_options()
        unknown = [name for name in options if name not in accepted]
        if unknown:
            raise TypeError(_unknown_option_message(type(self).__name__, unknown[0], accepted))
        for name, check in _OPTION_CHECKS.items():
            if name in options:
                options[name] = check(options[name])
        super().__init__(**options)

    @classmethod
    def _accepted_options(cls) -> set[str]:
        names = set()
        for name, info in cls.model_fields.items():
            names |= {name, *(alias for alias in (info.alias, info.validation_alias) if isinstance(alias, str))}
        return names

    @field_validator("context_window", mode="before")
    @classmethod
    def _validate_context_window(cls, value: Any) -> int:
        return _check_context_window(value)

    @field_validator("summary_questions", mode="before")
    @classmethod
    def _validate_summary_questions(cls, value: Any) -> int | None:
        return _check_summary_questions(value)

    @field_validator("token_counter", mode="before")
    @classmethod
    def _validate_token_counter(cls, value: Any) -> TokenCounter:
        return resolve_token_counter(value)

    @property
    def _llm_type(self) -> str:
        return "offline-chat"

    def _resolve_model_profile(self) -> dict[str, Any]:
        # The profile create_agent's middleware reads: ("fraction", 0.8) triggers
        # need max_input_tokens, the window this model enforces.
        return {"max_input_tokens": self.context_window, "tool_calling": True, "tool_choice": True}

    @property
    def _identifying_params(self) -> dict[str, Any]:
        counter = getattr(self.token_counter, "__name__", type(self.token_counter).__name__)
        return {"model_name": self.model_name, "context_window": self.context_window, "token_counter": counter}

    # -- what was sent -------------------------------------------------------

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """What each call was sent, oldest first (a copy)."""
        with _CALLS_LOCK:
            return [list(call) for call in self._calls]

    def clear_calls(self) -> None:
        """Forget the recorded calls (reply ids stay unique: the call counter keeps going)."""
        with _CALLS_LOCK:
            self._calls.clear()

    def _record(self, messages: list[BaseMessage]) -> int:
        with _CALLS_LOCK:
            self._calls.append(list(messages))
            self._count += 1
            return self._count

    # -- counting --------------------------------------------------------------

    def get_num_tokens_from_messages(self, messages: list[BaseMessage], tools: Sequence[Any] | None = None) -> int:
        """Count with this model's ``token_counter``. Tools cost what a system
        message holding their JSON schemas costs. Works offline."""
        messages = check_messages(messages)
        if tools:
            schemas = [convert_to_openai_tool(tool) for tool in tools]
            messages = [*messages, SystemMessage(json.dumps(schemas, sort_keys=True))]
        return self.token_counter(messages)

    def get_num_tokens(self, text: str) -> int:
        """Tokens of a text sent as one human message (the base class would download a tokenizer)."""
        return self.token_counter([HumanMessage(check_text(text, "text"))])

    # -- tools -------------------------------------------------------------------

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any):
        """Bind tools (BaseTool, functions or dicts); the model calls those a request
        asks for by their name or description, with arguments read from their
        schemas, or says which argument it cannot read (:mod:`course_utils.model.tool_calling`).

        ``tool_choice``: None or "auto" (match), "none", "any"/"required" (always
        call one) or a tool's name.
        """
        if isinstance(tools, (str, bytes, dict)) or not isinstance(tools, Sequence):
            raise TypeError(f"tools must be a list of tools, got {type(tools).__name__}: {tools!r:.80}")
        schemas = [convert_to_openai_tool(tool) for tool in tools]
        check_choice(tool_choice, "tool_choice", (None, "auto", "none", "any", "required", *map(tool_name, schemas)))
        return self.bind(tools=schemas, tool_choice=tool_choice, **kwargs)

    # -- generating ----------------------------------------------------------------

    def _convert_input(self, model_input: Any):
        # The base class's entry point for invoke / stream / batch: make a bad
        # input a TypeError, as for any other wrongly typed argument.
        try:
            return super()._convert_input(model_input)
        except (ValueError, NotImplementedError, TypeError) as exc:
            raise TypeError(
                f"input must be a str, a PromptValue or a list of messages, got "
                f"{type(model_input).__name__}: {model_input!r:.80} ({exc})"
            ) from exc

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        *,
        tools: Sequence[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        messages = check_messages(messages)
        if not messages:
            raise ValueError("messages must not be empty: a chat model needs at least one message to answer")
        stop = _check_stop(stop)
        number = self._record(messages)
        if not self.allow_system_only and all(isinstance(m, SystemMessage) for m in messages):
            raise SystemPromptOnlyError(len(messages))
        input_tokens = self.get_num_tokens_from_messages(messages, tools)
        if input_tokens > self.context_window:
            raise ContextWindowExceededError(self.context_window, input_tokens)
        orphans = orphaned_tool_messages(messages)
        if orphans:
            raise InvalidToolSequenceError(orphans)
        reply_id = f"offline-{number}-{input_digest(messages)}"
        reply = self._respond(messages, list(tools or []), tool_choice, reply_id, self.summary_questions)
        for word in stop:
            reply.content = reply.content.split(word)[0]
        output_tokens = self.token_counter([reply])
        reply.usage_metadata = {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        }
        if self.cache_min_tokens is not None:
            reply.usage_metadata["input_token_details"] = self._cache_details(messages, input_tokens, output_tokens)
        reply.response_metadata = {
            "model_name": self.model_name,
            "finish_reason": "tool_calls" if reply.tool_calls else "stop",
        }
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _cache_details(self, messages: list[BaseMessage], input_tokens: int, output_tokens: int) -> dict[str, int]:
        """What the prompt cache read and wrote for this call (``costs.PromptCache``, the rule ``costs.bill`` prices)."""
        from course_utils.window.costs import PromptCache, call_record

        if self._prompt_cache is None:
            self._prompt_cache = PromptCache(self.cache_min_tokens)
        tools = input_tokens - self.token_counter(list(messages))  # tool schemas go first, as providers send them
        return self._prompt_cache.record(call_record("turn", messages, output_tokens, self.token_counter, extra_input=tools))

    @staticmethod
    def _respond(
        messages: list[BaseMessage],
        tools: list[dict],
        tool_choice: str | None,
        reply_id: str,
        summary_questions: int | None = None,
    ) -> AIMessage:
        """Pick what kind of answer the last message calls for."""
        after_results = bool(messages) and isinstance(messages[-1], ToolMessage)
        text = last_human_text(messages)
        choice = choice_call(messages, tools, tool_choice)  # with_structured_output's list of choices (07b)
        if choice is not None:
            return AIMessage("", tool_calls=[{**choice, "id": f"call-{reply_id}", "type": "tool_call"}], id=reply_id)
        if not after_results and summary_language(text):  # "Create a summary ...", "... را خلاصه کن"
            return AIMessage(summary_reply(messages, summary_questions), id=reply_id)
        plan = plan_turn(messages, tools, tool_choice)  # the next step's calls, or a reply in words
        if plan.calls:
            ids = [f"call-{reply_id}" if k == 0 else f"call-{reply_id}-{k + 1}" for k in range(len(plan.calls))]
            tool_calls = [{**call, "id": id_, "type": "tool_call"} for call, id_ in zip(plan.calls, ids)]
            return AIMessage("", tool_calls=tool_calls, id=reply_id)
        if plan.reply is not None:
            return AIMessage(plan.reply, id=reply_id)
        if after_results:
            return AIMessage(tool_results_reply(messages), id=reply_id)
        answer = conversation_reply(messages)
        search = recall_call(text, answer, tools) if tool_choice != "none" else None
        if search:  # it does not know, and a memory can be searched
            return AIMessage("", tool_calls=[{**search, "id": f"call-{reply_id}", "type": "tool_call"}], id=reply_id)
        return AIMessage(answer, id=reply_id)


# --- choosing a model ---------------------------------------------------------

#: The pip package each provider of ``init_chat_model`` needs.
PROVIDER_PACKAGES = {
    "openai": "langchain-openai",
    "anthropic": "langchain-anthropic",
    "ollama": "langchain-ollama",
    "google_genai": "langchain-google-genai",
    "mistralai": "langchain-mistralai",
    "groq": "langchain-groq",
}
#: Options only the offline model understands; a provider's own limits apply instead.
OFFLINE_ONLY_OPTIONS = ("context_window", "token_counter")


def missing_packages(provider: str) -> list[str]:
    """The pip packages a provider model needs that are not installed here."""
    package = PROVIDER_PACKAGES.get(provider, f"langchain-{provider.replace('_', '-')}")
    needed = ["langchain", package]
    return [name for name in needed if importlib.util.find_spec(name.replace("-", "_")) is None]


def get_chat_model(spec: str | None = None, **kwargs: Any) -> BaseChatModel:
    """The course's chat model: offline by default, a real one when asked.

    ``spec`` (or, when it is None, the environment variable ``COURSE_CHAT_MODEL``)
    is empty or ``"offline"`` for :class:`OfflineChatModel` (``kwargs`` go to it),
    or ``"provider:model"`` such as ``"anthropic:claude-haiku-5-5"`` for
    ``langchain.chat_models.init_chat_model`` (``context_window`` and
    ``token_counter`` are then dropped; other ``kwargs`` go to the provider).

    >>> get_chat_model("offline", context_window=512).context_window
    512
    """
    if spec is None:
        spec = os.environ.get("COURSE_CHAT_MODEL", "")
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a str like 'anthropic:claude-haiku-5-5' or None, got {type(spec).__name__}: {spec!r}")
    spec = spec.strip()
    if spec in ("", "offline"):
        return OfflineChatModel(**kwargs)
    provider, _, model = spec.partition(":")
    if not provider or not model:
        raise ValueError(
            f"COURSE_CHAT_MODEL / spec must look like 'provider:model' (e.g. 'anthropic:claude-haiku-5-5'), got {spec!r}"
        )
    missing = missing_packages(provider)
    if missing:
        raise ImportError(
            f"The chat model {spec!r} needs packages that are not installed: pip install {' '.join(missing)}"
        )
    from langchain.chat_models import init_chat_model

    options = {key: value for key, value in kwargs.items() if key not in OFFLINE_ONLY_OPTIONS}
    return init_chat_model(model, model_provider=provider, **options)
