"""How the offline model decides to call tools, and answers from their results (lessons 06, 07).

Pure functions over plain data: the last user message, the tools bound with
``bind_tools`` (as OpenAI-style schemas, the form ``convert_to_openai_tool``
gives) and the messages a call was sent. :class:`course_utils.model.chat.OfflineChatModel`
uses them; nothing here calls a model.

The rules, in the order they apply:

1. **Which tools**, from each tool's name and description. A tool matches a
   request that uses a word of its name saying what it does (``get_weather``
   -> "weather"; "get", "search", "tool" say nothing), or at least two content
   words of its description, or a word of the same family as its name or
   description: a tool about *weather* or a *forecast* is asked for by
   "rain", "raining", "sunny", "snow", "temperature", "forecast" too; one
   that *adds* (or sums) by "plus", "sum", "total", "+"; one that
   *multiplies* by "times", "product", "×"; one that *subtracts* by "minus",
   "take", "difference"; one that *divides* by "divided", "over", "÷"; one
   that *saves*, *stores* or *remembers* by "remember that", "note that",
   "don't forget"; one that *recalls* or *retrieves* by "what do you
   remember", "do you remember", "what did I tell you".
   Each family has its Persian and Chinese words ("هوا", "باران", "ضرب",
   "جمع", "天气", "下雨", "乘", "加", ...). When several tools match, those
   matched by the most words are called (``save_memory`` rather than
   ``recall_memory`` for "Save to memory: ..."). A request whose parts ask for
   different things ("What is 2 plus 3 and 4 times 5?") is split at "and",
   commas, "then" (Persian "و", Chinese "和", "然后"), each part asking its
   own tools; a part that asks for no tool belongs to the part before it
   ("multiply 2.5 and 4" stays one part), and so does one that uses a word
   of the previous part's parameter names ("..., 3 results" for ``max_results``).
2. **Which arguments**: :mod:`course_utils.model.tool_arguments`, one parameter at
   a time from the schema (numbers in order and by name, types respected,
   places of several words, references such as "that" resolving to the last
   number the model was sent). A part whose required argument cannot be read
   is **not called**: the model answers in words, naming the parameter and
   the tool ("I'm an offline model and could not read `b` for multiply(a, b)
   from your request."), and for a reference that stands for nothing, says it
   does not know what it stands for. A wrong call is worse than no call. When
   a part asks for several tools, those whose arguments can be read are
   called and the others left out ("the result plus 5" calls ``add``, not a
   ``read_result(result_id)`` it gives no id for). A ``tool_choice`` that
   names a tool (or "any"/"required") makes it call anyway, as a provider's
   forced choice does: an unreadable required string gets the whole request.
3. **Several calls in one turn**: one per part, and one per place when a part
   names several ("in Porto and Lisbon"). A part that refers to an earlier
   part's result ("..., then add 5 to the result") waits for that result: it
   is called in the next step of the same turn.
4. **Answering from tool results.** After the results come back, the answer
   quotes, for each result of the turn, its line that best matches the
   question (the first line on a tie). Later questions are answered from the
   tool results, summaries and earlier answers the call was *sent*: the line
   sharing the most content words with the question; when no line is close
   enough, the chat rules' honest fallback. What the model was not sent, it
   does not know. A Persian or Chinese request gets these sentences in its
   language.
5. **Searching a memory.** When the model would answer that it does not know
   (the fact is not in what it was sent) and a memory-search tool is bound
   (its name or description says recall, retrieve or memory, and its name
   not save, store, remember or write), it calls that tool with the question
   instead (:func:`recall_call`), and answers from the result.

>>> weather = {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.",
...     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
>>> plan_tool_calls("What is the weather in Porto and Lisbon today?", [weather])
[{'name': 'get_weather', 'args': {'city': 'Porto'}}, {'name': 'get_weather', 'args': {'city': 'Lisbon'}}]
>>> plan_tool_calls("Is it raining in New York City?", [weather])
[{'name': 'get_weather', 'args': {'city': 'New York City'}}]
>>> plan_turn([HumanMessage("What's the weather?")], [weather]).reply
"I'm an offline model and could not read `city` for get_weather(city) from your request."
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.model.tool_arguments import (
    last_id,
    last_number,
    mentions,
    parameters_of,
    read_arguments,
    signature,
)

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


@dataclass(frozen=True)
class WordFamily:
    """Words that ask for the same thing: a tool whose name or description uses one of ``defines``
    is asked for by any of ``cues`` (Latin words match whole words; Persian and Chinese ones as written)."""

    defines: frozenset[str]
    cues: frozenset[str]


def _family(defines: str, cues: str) -> WordFamily:
    return WordFamily(frozenset(defines.split()), frozenset(defines.split()) | frozenset(cues.split("|")))


#: The families of rule 1.
WORD_FAMILIES = (
    _family("weather forecast", "rain|raining|rainy|sunny|snow|snowing|temperature|umbrella|هوا|هوای|آب‌وهوا|باران|بارانی|天气|下雨|气温"),
    _family("add addition adds sum", "plus|total|+|جمع|علاوه|اضافه|加|加上|相加"),
    _family("multiply multiplication multiplies product", "times|multiplied|×|*|ضرب|ضربدر|乘|乘以|相乘"),
    _family("subtract subtraction subtracts difference minus", "take|deduct|−|تفریق|منهای|کم|减|减去"),
    _family("divide division divides quotient", "divided|over|÷|تقسیم|除|除以"),
    _family("save store remember memorise memorize", "remember that|remember:|don't forget|note that|记住|به خاطر بسپار|یادت باشد"),
    _family("recall retrieve remembered", "what do you remember|do you remember|what did i tell you|你记得|یادت هست"),
)
#: Where a request splits into parts (rule 1).
PART_SEPARATOR = re.compile(r"(\s*(?:[,;]|\band then\b|\bthen\b|\band\b|\balso\b|،|，|；)\s*|\s+و\s+|和|然后|再)", re.I)

XML_MESSAGE_TAG = re.compile(r"</?message\b[^>]*>|<tool_call\b[^>]*>.*?</tool_call>", re.S)
WORD_PATTERN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.U)
NON_LATIN = re.compile(r"[^\x00-\x7f]")
PERSIAN_LETTERS = re.compile(r"[\u0600-\u06ff]")
CHINESE_LETTERS = re.compile(r"[\u4e00-\u9fff]")


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


def language_of(text: str) -> str:
    """"fa" for a text in Persian script, "zh" for one with Chinese characters, else "en"."""
    if PERSIAN_LETTERS.search(text):
        return "fa"
    if CHINESE_LETTERS.search(text):
        return "zh"
    return "en"


# --- choosing tools ------------------------------------------------------------------


def tool_name(tool: dict) -> str:
    return tool["function"]["name"]


def tool_keywords(tool: dict) -> set[str]:
    """get_weather -> {"weather"}: the words of a tool's name that say what it does."""
    return {_stem(w) for w in re.split(r"[_\W]+", tool_name(tool).lower())} - GENERIC_TOOL_WORDS - {""}


def description_words(tool: dict) -> set[str]:
    """The content words of a tool's description."""
    return content_words(tool["function"].get("description") or "")


def family_cues(tool: dict) -> set[str]:
    """The cue words of every family the tool's name or description belongs to (rule 1)."""
    own = {w.lower() for w in re.split(r"[_\W]+", tool_name(tool))} | tool_keywords(tool)
    own |= {w.lower() for w in WORD_PATTERN.findall(tool["function"].get("description") or "")}
    return {cue for family in WORD_FAMILIES if family.defines & own for cue in family.cues}


def _says(text: str, cue: str) -> bool:
    if NON_LATIN.search(cue) and not PERSIAN_LETTERS.search(cue) or not cue.isalnum() and len(cue) == 1:
        return cue in text  # Chinese and symbols as written
    return re.search(rf"(?<![^\W\d_]){re.escape(cue)}(?![^\W\d_])", text, re.I) is not None


def match_score(text: str, tool: dict) -> int:
    """How strongly a request asks for a tool: its name keywords used, plus the family cues said,
    plus the description words used when there are at least two; 0 when it does not ask for it."""
    words = content_words(text)
    shared = len(description_words(tool) & words)
    score = len(tool_keywords(tool) & words) + (shared if shared >= DESCRIPTION_MATCH_WORDS else 0)
    return score + sum(1 for cue in family_cues(tool) if _says(text, cue))


def matches(text: str, tool: dict) -> bool:
    """Whether a request asks for this tool: a name keyword, two description words, or a family cue."""
    return match_score(text, tool) > 0


def best_tools(text: str, tools: Sequence[dict]) -> list[dict]:
    """The tools a request asks for most strongly (all of those tied), in the order bound.

    >>> save = {"type": "function", "function": {"name": "save_memory", "description": "Save a fact."}}
    >>> recall = {"type": "function", "function": {"name": "recall_memory", "description": "Recall facts."}}
    >>> [tool_name(t) for t in best_tools("Save to memory: I like tea", [save, recall])]
    ['save_memory']
    """
    scores = [match_score(text, tool) for tool in tools]
    top = max(scores, default=0)
    return [tool for tool, score in zip(tools, scores) if top and score == top]


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


# --- planning a turn ------------------------------------------------------------------


@dataclass
class Part:
    """One part of a request and the tools it asks for."""

    text: str
    tools: list[dict] = field(default_factory=list)

    @property
    def refers_back(self) -> bool:
        """Whether an argument of this part is read from a reference ("add 5 to the result")."""
        return any(read_arguments(self.text, tool, 0, "id").used_reference for tool in self.tools)


def request_parts(text: str, tools: Sequence[dict], tool_choice: str | None = None) -> list[Part]:
    """The parts of a request (rule 1), each with the tools it asks for; parts asking for none are dropped.

    >>> add = {"type": "function", "function": {"name": "add", "description": "Add a and b."}}
    >>> [p.text for p in request_parts("add 10, 20 and 5 plus 6", [add])]
    ['add 10, 20', '5 plus 6']
    """
    if not tools or tool_choice == "none":
        return []
    if tool_choice not in (None, "auto", "any", "required"):
        return [Part(text.strip(), matching_tools(text, tools, tool_choice))]
    pieces = PART_SEPARATOR.split(text)
    parts: list[Part] = []
    pending = ""  # text before the first part that asks for a tool
    for k in range(0, len(pieces), 2):
        piece, separator = pieces[k], pieces[k - 1] if k else ""
        if parts and parts[-1].tools:  # "..., 3 results" gives max_results of the tool before it
            own = parameter_words(parts[-1].tools)
            piece_words = " ".join(w for w in piece.split() if _stem(w.lower().strip(".,?!")) not in own)
        else:
            piece_words = piece
        asked = best_tools(piece_words, tools) if piece_words.strip() else []
        if asked and (not parts or parts[-1].tools):
            parts.append(Part(pending + (separator if pending else "") + piece, asked))
            pending = ""
        elif parts:
            parts[-1].text += separator + piece
        else:
            pending += separator + piece
    parts = [Part(p.text.strip(), p.tools) for p in parts]
    if not parts and tool_choice in ("any", "required"):
        parts = [Part(text.strip(), [tools[0]])]
    return parts


def parameter_words(tools: Sequence[dict]) -> set[str]:
    """The words of the tools' parameter names (max_results -> "max", "result")."""
    return {_stem(w) for t in tools for p in parameters_of(t) for w in re.split(r"[_\W]+", p.name.lower()) if len(w) > 1}


def steps(parts: Sequence[Part]) -> list[list[Part]]:
    """The parts grouped into steps: a part that refers back waits for the step before it (rule 3)."""
    grouped: list[list[Part]] = []
    for part in parts:
        if not grouped or part.refers_back:
            grouped.append([part])
        else:
            grouped[-1].append(part)
    return grouped


def earlier_id(messages: Sequence[BaseMessage]) -> str | None:
    """The id a reference stands for: the last id stated ("id res-2") in the latest tool result,
    model reply or summary in ``messages`` that states one."""
    for message in reversed(messages):
        if isinstance(message, (ToolMessage, AIMessage)) or is_summary(message):
            found = last_id(_text(message))
            if found is not None:
                return found
    return None


def earlier_number(messages: Sequence[BaseMessage]) -> float | int | None:
    """The number a reference stands for: the last number of the latest tool result, model reply or
    summary in ``messages`` that holds one (what the user typed does not count)."""
    for message in reversed(messages):
        if isinstance(message, (ToolMessage, AIMessage)) or is_summary(message):
            number = last_number(_text(message))
            if number is not None:
                return number
    return None


@dataclass
class TurnPlan:
    """What the model does next in a turn: ``calls`` to make, or ``reply`` in words (or neither)."""

    calls: list[dict] = field(default_factory=list)
    reply: str | None = None


def cannot_sentence(tool: dict, reading, language: str = "en") -> str:
    """The honest reply for a part whose arguments could not be read (rule 2)."""
    sig, name = signature(tool), (reading.missing or [""])[0]
    if reading.unresolved and name:
        ref = reading.unresolved
        return {
            "en": f"I don't know what \"{ref}\" is: no earlier result is in what I was sent, so I could not read `{name}` for {sig}.",
            "fa": f"نمی‌دانم «{ref}» چیست: هیچ نتیجهٔ قبلی در پیام‌هایی که برایم فرستاده شد نیست، پس نتوانستم `{name}` را برای {sig} بخوانم.",
            "zh": f"我不知道“{ref}”指什么：我收到的消息里没有之前的结果，所以无法读出 {sig} 的参数 `{name}`。",
        }[language]
    if not reading.missing:
        count = reading.extra_numbers + len([p for p in reading.args])
        return {
            "en": f"I'm an offline model and could not fit the {count} numbers in your request into {sig}.",
            "fa": f"من یک مدل آفلاین هستم و نتوانستم {count} عدد درخواست شما را در {sig} جا بدهم.",
            "zh": f"我是离线模型，无法把你请求中的 {count} 个数填进 {sig}。",
        }[language]
    why = f" ({reading.reason})" if reading.reason and language == "en" else ""
    return {
        "en": f"I'm an offline model and could not read `{name}` for {sig} from your request{why}.",
        "fa": f"من یک مدل آفلاین هستم و نتوانستم `{name}` را برای {sig} از درخواست شما بخوانم.",
        "zh": f"我是离线模型，无法从你的请求中读出 {sig} 的参数 `{name}`。",
    }[language]


def calls_for(part: Part, earlier: float | int | None, forced: bool = False,
              earlier_id_: str | None = None) -> tuple[list[dict], list[tuple[dict, Any]]]:
    """(calls, [(tool, reading) that could not be read]) for one part.

    ``forced`` (a ``tool_choice`` that makes the model call a tool, as a
    provider's does): a required string that cannot be read gets the whole
    request, since the model must call anyway.
    """
    calls, failed = [], []
    for tool in part.tools:
        reading = read_arguments(part.text, tool, earlier, earlier_id_)
        if forced and reading.missing and not reading.unresolved:
            kinds = {p.name: p for p in parameters_of(tool)}
            if all(kinds[name].kind == "string" and not kinds[name].enum for name in reading.missing):
                reading.args.update({name: part.text for name in reading.missing})
                reading.missing = []
        if not reading.ok:
            failed.append((tool, reading))
        elif reading.fanned:
            name, values = reading.fanned
            calls += [{"name": tool_name(tool), "args": {**reading.args, name: value}} for value in values]
        else:
            calls.append({"name": tool_name(tool), "args": reading.args})
    return calls, failed


def this_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages after the last (non-summary) human message: this turn's calls and results."""
    for k in range(len(messages) - 1, -1, -1):
        if isinstance(messages[k], HumanMessage) and not is_summary(messages[k]):
            return list(messages[k + 1 :])
    return list(messages)


def plan_turn(messages: Sequence[BaseMessage], tools: Sequence[dict], tool_choice: str | None = None) -> TurnPlan:
    """What to do next for the last request: the next step's calls, an honest reply, or nothing to do.

    Nothing to do (an empty plan) lets the chat rules answer, or, after tool
    results, :func:`tool_results_reply`.
    """
    question = last_question(messages)
    language = language_of(question)
    grouped = steps(request_parts(question, tools, tool_choice))
    done = sum(1 for m in this_turn(messages) if isinstance(m, AIMessage) and m.tool_calls)
    if done >= len(grouped):
        return TurnPlan()
    refers = any(m.is_reference for part in grouped[done] for m in mentions(part.text))
    earlier, stated_id = (earlier_number(messages), earlier_id(messages)) if refers else (None, None)
    calls, failed = [], []
    for part in grouped[done]:
        made, unread = calls_for(part, earlier, tool_choice not in (None, "auto"), stated_id)
        calls += made
        failed += [] if made else unread  # of the tools a part asks for, those it can fill are called
    if failed:
        words = " ".join(cannot_sentence(tool, reading, language) for tool, reading in failed)
        found = tool_results_reply(messages) if done else ""
        return TurnPlan(reply=f"{found} {words}".strip())
    return TurnPlan(calls=calls)


#: Words that make a tool a memory search (and words that make it a memory writer instead).
RECALL_WORDS = frozenset("recall retrieve remembered memory memories".split())
SAVE_WORDS = frozenset("save store remember write add put".split())
#: How a reply that does not know begins or reads, in each language (see fact_replies.NOT_SENT).
UNKNOWN_MARKERS = ("I don't know", "I only know what you've told me", "我不知道", "نمی‌دانم")


def recall_tool(tools: Sequence[dict]) -> dict | None:
    """The first bound tool that searches a memory: its name or description says recall, retrieve
    or memory, and its name does not say save, store, remember or write."""
    for tool in tools:
        name_words = {w.lower() for w in re.split(r"[_\W]+", tool_name(tool))}
        words = name_words | {w.lower() for w in WORD_PATTERN.findall(tool["function"].get("description") or "")}
        params = parameters_of(tool)
        if words & RECALL_WORDS and not name_words & SAVE_WORDS and any(p.kind == "string" for p in params):
            return tool
    return None


def recall_call(question: str, reply: str, tools: Sequence[dict]) -> dict | None:
    """A memory search for a question the model cannot answer from what it was sent (rule 5), or None.

    When the reply it would give says it does not know (:data:`UNKNOWN_MARKERS`)
    and a memory-search tool is bound, it calls that tool with the question as
    its first string argument.
    """
    tool = recall_tool(tools)
    if tool is None or not any(marker in reply for marker in UNKNOWN_MARKERS):
        return None
    first = next(p.name for p in parameters_of(tool) if p.kind == "string")
    return {"name": tool_name(tool), "args": {first: question}}


def plan_tool_calls(text: str, tools: Sequence[dict], tool_choice: str | None = None) -> list[dict]:
    """The tool calls the first step of a request makes: ``[{"name": ..., "args": {...}}, ...]``, maybe empty.

    Parts that cannot be read make no call (the model answers in words
    instead, see :func:`plan_turn`).
    """
    return plan_turn([HumanMessage(text)], tools, tool_choice).calls


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


#: How an answer from tool results begins, and names each tool, by the request's language.
FOUND = {"en": ("Here's what I found.", "{name} says: {line}"),
         "fa": ("این را پیدا کردم.", "{name} می‌گوید: {line}"),
         "zh": ("我查到的结果：", "{name} 说：{line}")}


def tool_results_reply(messages: Sequence[BaseMessage]) -> str:
    """Answer from this turn's tool results: for each, the line that best matches the question."""
    names = {call["id"]: call["name"] for m in messages if isinstance(m, AIMessage) for call in m.tool_calls}
    question = last_question(messages)
    opening, each = FOUND[language_of(question)]
    parts = []
    for message in this_turn(messages):
        if not isinstance(message, ToolMessage):
            continue
        name = message.name or names.get(message.tool_call_id, "the tool")
        _, line = best_line(question, _text(message))
        parts.append(each.format(name=name, line=line or _text(message)))
    return " ".join([opening, *parts])


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
