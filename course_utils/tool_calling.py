"""How the offline model decides to call tools, and answers from their results (lesson 06).

Pure functions over plain data: the last user message, the tools bound with
``bind_tools`` (as OpenAI-style schemas, the form ``convert_to_openai_tool``
gives) and the messages a call was sent. :class:`course_utils.chat.OfflineChatModel`
uses them; nothing here calls a model.

The rules, in the order they apply:

1. **Which tools.** A bound tool matches the request when a word of its name
   says what it does (``get_weather`` -> "weather"; words like "get" or
   "search" say nothing), or when the request uses at least two content words
   of its description. Every matching tool is called, in the order bound.
2. **Which arguments**, read from the request using each argument's name and
   type: a place (``city``, ``location``, ``place``) is a capitalised name
   after "in", "for" or "at" ("weather in Porto today?" -> "Porto"); a day is
   a weekday, "today" or "tomorrow"; a query is what follows "for" or "about";
   a path is a word that looks like a file name; numbers are numbers.
   Arguments not stated are left out when optional and filled with the whole
   request when required.
3. **Several calls in one turn** when the request names several places
   ("in Porto and Lisbon" -> one call per city) or matches several tools.
4. **Answering from tool results.** After the results come back, the answer
   quotes, for each result of the turn, its line that best matches the
   question (the first line on a tie). Later questions are answered from the
   tool results, summaries and earlier answers the call was *sent*: the line
   sharing the most content words with the question; when no line is close
   enough, the chat rules' honest fallback. What the model was not sent, it
   does not know.

>>> weather = {"type": "function", "function": {"name": "get_weather", "description": "Weather forecast.",
...     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
>>> plan_tool_calls("What is the weather in Porto and Lisbon today?", [weather])
[{'name': 'get_weather', 'args': {'city': 'Porto'}}, {'name': 'get_weather', 'args': {'city': 'Lisbon'}}]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

#: Words of a tool's name that say nothing about what it is for.
GENERIC_TOOL_WORDS = frozenset("get fetch find search lookup look up tool current the for of".split())
#: Words that carry no meaning for matching a request to a tool or a line to a question.
STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for from with about into over under as is are was were be been
    being do does did doing have has had what which who whom whose when where why how this that these those
    it its i me my we our you your he she they them their there here can could would should will shall may
    might must not no yes so than then too very just also any some all each every other more most such only
    own same both few many much again further once please tell say said give show let like want need know
    see look find get make use up out off down one two""".split()
)
#: How many description words a request must use for the description alone to match.
DESCRIPTION_MATCH_WORDS = 2

PLACE_ARGUMENTS = frozenset({"city", "location", "place", "town", "destination"})
DAY_ARGUMENTS = frozenset({"day", "date", "when"})
QUERY_ARGUMENTS = frozenset({"query", "q", "topic", "search", "question", "terms"})
PATH_ARGUMENTS = frozenset({"path", "file", "filename", "file_path", "name"})

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow", "tonight")
DAY_PATTERN = re.compile(rf"\b({'|'.join(DAYS)})\b", re.I)
#: Capitalised names after in/for/at, possibly several: "in Porto and Lisbon", "for New York, Boston".
NAME = r"(?-i:[A-Z][\w'-]*)(?:\s(?-i:[A-Z][\w'-]*))*"
PLACES_PATTERN = re.compile(rf"\b(?:in|for|at)\s+({NAME}(?:(?:\s*,\s*|\s+and\s+){NAME})*)", re.I)
#: Without capitals ("weather in paris?"): the words after in/for/at up to punctuation.
LOWER_PLACE_PATTERN = re.compile(r"\b(?:in|for|at)\s+([a-z][\w .'-]*?)\s*(?:[?!.,]|$)", re.I)
QUERY_PATTERN = re.compile(r"\b(?:for|about|on)\s+(.+?)\s*[?!.]*$", re.I)
PATH_PATTERN = re.compile(r"[\w./-]+\.[A-Za-z0-9]{1,5}\b")
NUMBER_PATTERN = re.compile(r"-?\d+(?:\.\d+)?")
#: The tags SummarizationMiddleware wraps each message in (``get_buffer_string(..., format="xml")``).
XML_MESSAGE_TAG = re.compile(r"</?message\b[^>]*>|<tool_call\b[^>]*>.*?</tool_call>", re.S)
WORD_PATTERN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.U)


# --- words ----------------------------------------------------------------------


def _stem(word: str) -> str:
    """A crude stem so "markets" meets "market" and "trains" meets "train"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_words(text: str) -> set[str]:
    """Lower-cased, stemmed words of ``text`` that carry meaning (no stopwords, no one-letter words).

    >>> sorted(content_words("How strong is the wind in Porto on Saturday?"))
    ['porto', 'saturday', 'strong', 'wind']
    """
    words = {w.lower().replace("’", "'") for w in WORD_PATTERN.findall(text)}
    return {_stem(w) for w in words if len(w) > 1 and w not in STOPWORDS}


# --- choosing tools ------------------------------------------------------------------


def tool_name(tool: dict) -> str:
    return tool["function"]["name"]


def tool_keywords(tool: dict) -> set[str]:
    """get_weather -> {"weather"}: the words of a tool's name that say what it does."""
    return {_stem(w) for w in re.split(r"[_\W]+", tool_name(tool).lower())} - GENERIC_TOOL_WORDS - {""}


def description_words(tool: dict) -> set[str]:
    """The content words of a tool's description."""
    return content_words(tool["function"].get("description") or "")


def matches(text: str, tool: dict) -> bool:
    """Whether a request asks for this tool: a name keyword, or two description words."""
    words = content_words(text)
    return bool(tool_keywords(tool) & words) or len(description_words(tool) & words) >= DESCRIPTION_MATCH_WORDS


def matching_tools(text: str, tools: Sequence[dict], tool_choice: str | None = None) -> list[dict]:
    """The tools to call, in the order bound: those ``tool_choice`` names, else those the request matches.

    ``tool_choice`` "none" calls nothing; "any"/"required" calls the first tool
    when none matches.
    """
    if not tools or tool_choice == "none":
        return []
    named = [t for t in tools if tool_name(t) == tool_choice]
    if named:
        return named
    matching = [t for t in tools if matches(text, t)]
    if matching:
        return matching
    return [tools[0]] if tool_choice in ("any", "required") else []


# --- reading arguments -------------------------------------------------------------


def places_in(text: str) -> list[str]:
    """The places a request names after in/for/at, without days.

    >>> places_in("What is the weather in Porto and Lisbon on Saturday?")
    ['Porto', 'Lisbon']
    >>> places_in("what's the weather in paris?")
    ['paris']
    """
    places: list[str] = []
    for match in PLACES_PATTERN.finditer(text):
        for name in re.split(r"\s*,\s*|\s+and\s+", match.group(1)):
            name = DAY_PATTERN.sub("", name).strip()
            if name and name not in places:
                places.append(name)
    if places:
        return places
    match = LOWER_PLACE_PATTERN.search(text)
    if match:
        words = [w for w in match.group(1).split() if not DAY_PATTERN.fullmatch(w)]
        if words:
            return [" ".join(words)]
    return []


def day_in(text: str) -> str | None:
    """The day a request names ("on Saturday" -> "Saturday"), if any."""
    match = DAY_PATTERN.search(text)
    return match.group(1).capitalize() if match else None


def query_in(text: str) -> str:
    """What to search for: the words after "for", "about" or "on", else the whole request."""
    match = QUERY_PATTERN.search(text)
    return match.group(1) if match else text.strip()


def argument_values(text: str, name: str, schema: dict) -> list[Any]:
    """Values the request gives for one argument: several for places, else zero or one."""
    key = name.lower()
    kind = schema.get("type")
    if key in PLACE_ARGUMENTS:
        return places_in(text)
    if key in DAY_ARGUMENTS:
        day = day_in(text)
        return [day] if day else []
    if key in PATH_ARGUMENTS and (match := PATH_PATTERN.search(text)):
        return [match.group()]
    if kind in ("integer", "number"):
        match = NUMBER_PATTERN.search(text)
        if not match:
            return []
        return [int(float(match.group())) if kind == "integer" else float(match.group())]
    if key in QUERY_ARGUMENTS:
        return [query_in(text)]
    return []


def plan_tool_calls(text: str, tools: Sequence[dict], tool_choice: str | None = None) -> list[dict]:
    """The tool calls a request asks for: ``[{"name": ..., "args": {...}}, ...]``, maybe empty.

    A request that names several places gets one call per place of each
    tool that takes a place.
    """
    calls = []
    for tool in matching_tools(text, tools, tool_choice):
        parameters = tool["function"].get("parameters") or {}
        properties = parameters.get("properties") or {}
        required = set(parameters.get("required") or ())
        args: dict[str, Any] = {}
        fanned: tuple[str, list[Any]] | None = None
        for name, schema in properties.items():
            values = argument_values(text, name, schema or {})
            if len(values) > 1 and fanned is None:
                fanned = (name, values)
            if values:
                args[name] = values[0]
            elif name in required and (schema or {}).get("type", "string") == "string":
                args[name] = text.strip()
        if fanned is None:
            calls.append({"name": tool_name(tool), "args": args})
        else:
            name, values = fanned
            calls += [{"name": tool_name(tool), "args": {**args, name: value}} for value in values]
    return calls


# --- answering from what was sent ----------------------------------------------------


def without_message_tags(text: str) -> str:
    """A summary request's transcript as plain lines: the XML message tags (and tool calls) removed.

    >>> without_message_tags('<message type="human">Where is it?</message>')
    '\\nWhere is it?\\n'
    """
    return XML_MESSAGE_TAG.sub("\n", text)


def _text(message: BaseMessage) -> str:
    return message.text.replace("\u2019", "'")


def last_question(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message (the current request)."""
    humans = [_text(m) for m in messages if isinstance(m, HumanMessage) and not is_summary(m)]
    return humans[-1].strip() if humans else ""


def is_summary(message: BaseMessage) -> bool:
    """A summary SummarizationMiddleware wrote into the history (a HumanMessage it marks)."""
    return isinstance(message, HumanMessage) and message.additional_kwargs.get("lc_source") == "summarization"


def is_cleared(message: BaseMessage) -> bool:
    """A tool result ClearToolUsesEdit replaced with its placeholder."""
    return isinstance(message, ToolMessage) and bool(
        message.response_metadata.get("context_editing", {}).get("cleared")
    )


def lines_of(text: str) -> list[str]:
    """Non-empty lines of a text, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def best_line(question: str, text: str) -> tuple[int, str]:
    """The line of ``text`` sharing the most content words with ``question``: (score, line).

    Ties go to the earliest line; a text with no lines gives (0, "").
    """
    wanted = content_words(question)
    best_score, best_text = 0, ""
    for line in lines_of(text):
        if line.endswith("?"):  # a question (a summary's "The user asked: ...?") answers nothing
            continue
        score = len(wanted & content_words(line))
        if not best_text or score > best_score:
            best_score, best_text = score, line
    return best_score, best_text


def trailing_tool_results(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """The ToolMessages at the end of ``messages``: the results of this turn's calls."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.insert(0, message)
    return results


def tool_results_reply(messages: Sequence[BaseMessage]) -> str:
    """Answer from this turn's tool results: for each, the line that best matches the question."""
    names = {call["id"]: call["name"] for m in messages if isinstance(m, AIMessage) for call in m.tool_calls}
    question = last_question(messages)
    parts = []
    for message in trailing_tool_results(messages):
        name = message.name or names.get(message.tool_call_id, "the tool")
        _, line = best_line(question, _text(message))
        parts.append(f"{name} says: {line or _text(message)}")
    return "Here's what I found. " + " ".join(parts)


def sources(messages: Sequence[BaseMessage]) -> list[str]:
    """The texts a question can be answered from: tool results, summaries, system and AI text.

    Human messages are left out (they hold the questions, which would match
    themselves); cleared tool results hold only their placeholder.
    """
    texts = []
    for message in messages:
        if isinstance(message, (ToolMessage, AIMessage, SystemMessage)) or is_summary(message):
            text = _text(message)
            if text.strip():
                texts.append(text)
    return texts


def recall_reply(question: str, messages: Sequence[BaseMessage], *, min_words: int = 2) -> str | None:
    """Answer a question from the tool results, summaries and answers that were sent, or None.

    The answer quotes the line sharing the most content words with the
    question (at least ``min_words``, or all of them when the question has
    fewer). None when no tool result or summary was sent, or no line is
    close enough: the chat rules then answer, ending with their honest
    fallback ("I only know what you've told me").
    """
    if not any(isinstance(m, ToolMessage) or is_summary(m) for m in messages):
        return None
    wanted = content_words(question)
    needed = min(min_words, max(1, len(wanted)))
    best = (0, "")
    for text in sources(messages):
        candidate = best_line(question, text)
        if candidate[0] > best[0]:
            best = candidate
    return f"From what I was sent: {best[1]}" if best[0] >= needed else None
