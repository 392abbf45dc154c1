"""How the offline model reads a tool call's arguments from a request, one parameter at a time.

:mod:`course_utils.model.tool_calling` chooses the tools; this module fills each
chosen tool's parameters from its JSON schema (the form
``convert_to_openai_tool`` gives), in the schema's order, or says which
required parameter it could not read. It never guesses: a wrong call is worse
than no call, so an unreadable required parameter makes the model answer in
words instead (:func:`read_arguments` returns it in ``missing``).

The rules:

1. **By name first.** ``"a=3, b=4"``, ``"b: 4"`` or ``"b is 4"`` fills the
   parameter named.
2. **Numbers** are digits (also Persian ``۶`` and Chinese ``6``), English
   number words up to ninety-nine ("six", "twenty-one") and Chinese numerals
   ("六", "十二"). They fill the numeric parameters in the order written,
   except that a number after "from" (Persian "از", Chinese "从") comes first:
   "subtract 5 from 12" and "from 12 take 5" both read 12, 5. An ``integer``
   parameter takes only a whole number (2.5 is not read as 2); a ``number``
   parameter gets a float. Optional numeric parameters take a number only by
   name ("max_results=5") or when a word of their name follows it
   ("5 results"). A request with more numbers than the tool takes is not read.
3. **References.** "that", "it", "this", "the result", "the answer" (Persian
   "آن", "این", "نتیجه", "حاصل", "جواب"; Chinese "结果", "那个", "它") stand
   for a number: the last number of the latest tool result, model reply or
   summary the model was *sent* (what the user typed does not count). When
   nothing sent holds a number, the reference resolves to nothing and the
   parameter is not read.
4. **Strings by what the parameter is called:** a place (``city``,
   ``location``, ...) is a capitalised name of one or more words after
   "in", "for", "at" or "of" ("New York City"), or a word after Persian
   "در"/"هوای", or Chinese characters before "的天气"/"下雨"; ``origin`` /
   ``destination`` read "from X to Y"; a day is a weekday, "today" or
   "tomorrow" (Persian and Chinese too, given in English); a path looks like
   a file name; an id (``id``, ``key``, ``ref``, ``..._id``) is a word with a
   digit, dash or underscore, or, for "that"/"it"/"the result", the last id
   stated ("id res-2") in a tool result, reply or summary sent; a query or text (``query``, ``text``, ``task``, ...) is a
   quoted text, else what follows "for"/"about" (a query) or "remember
   that", "note that" or a colon (a text), else the whole request.
   Any parameter may be given in quotes. An ``enum`` takes one of its values
   named in the request ("to fahrenheit").
5. Optional parameters not given are **left out**; required ones not read are
   **missing**, and the model then says so instead of calling.

>>> tool = {"type": "function", "function": {"name": "subtract", "description": "Subtract b from a.",
...     "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
...                    "required": ["a", "b"]}}}
>>> read_arguments("from 12 take 5", tool).args
{'a': 12, 'b': 5}
>>> read_arguments("subtract 2.5 from 7", tool).missing  # b would be 2.5: not an integer
['b']
>>> read_arguments("subtract that from 7", tool, earlier=None).unresolved
'that'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: Persian and Arabic-Indic digits, and the Persian decimal separator, as ASCII.
DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩٫０１２３４５６７８９", "01234567890123456789.0123456789")

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
NUMBER_WORDS = {word: value for value, word in enumerate(_UNITS)} | _TENS
_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

#: A reference to an earlier result, as a number would stand.
REFERENCE = (
    r"\b(?:the (?:previous |last )?(?:result|answer)|that(?: number| result)?|this(?: number)?|it)\b"
    r"|(?<![^\W\d_])(?:آن|این|نتیجه|حاصل|جواب)(?![^\W\d_])"
    r"|结果|那个数|那个|这个数|它"
)
_NUMBER_TOKEN = re.compile(
    r"(?P<digits>(?<![A-Za-z0-9_.])(?:(?<=[\s(=:,])-|^-)?\d+(?:\.\d+)?(?![A-Za-z0-9_]|\.\d))"
    rf"|(?P<word>\b(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS[1:10])}))?\b|\b(?:{'|'.join(_UNITS)})\b)"
    r"|(?P<cn>[零一二两三四五六七八九十]+)"
    rf"|(?P<ref>{REFERENCE})",
    re.I,
)
#: "from" before a number makes it the first operand ("subtract 5 from 12").
_FROM_BEFORE = re.compile(r"(?:\bfrom|(?<![^\W\d_])از|从)\s*$", re.I)

#: Parameter names read as places, days, paths, ids, and free text.
PLACE_ARGUMENTS = frozenset({"city", "location", "place", "town", "destination", "origin", "region", "country", "where"})
DAY_ARGUMENTS = frozenset({"day", "date", "when"})
PATH_ARGUMENTS = frozenset({"path", "file", "filename", "file_path", "name"})
ID_ARGUMENTS = frozenset({"id", "key", "ref", "reference", "handle", "result_id", "call_id", "memory_id"})
QUERY_ARGUMENTS = frozenset({"query", "q", "topic", "search", "question", "terms", "keywords", "subject"})
TEXT_ARGUMENTS = frozenset({"text", "content", "note", "memory", "fact", "message", "task", "request", "instructions", "prompt"})

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow", "tonight")
DAY_PATTERN = re.compile(rf"\b({'|'.join(DAYS)})\b", re.I)
#: Persian and Chinese days, with the English day the tools expect (longest first: یکشنبه before شنبه).
OTHER_DAYS = {
    "یکشنبه": "Sunday", "دوشنبه": "Monday", "سه‌شنبه": "Tuesday", "چهارشنبه": "Wednesday", "پنجشنبه": "Thursday",
    "جمعه": "Friday", "شنبه": "Saturday", "امروز": "Today", "فردا": "Tomorrow",
    "星期六": "Saturday", "星期日": "Sunday", "星期天": "Sunday", "周六": "Saturday", "周日": "Sunday",
    "今天": "Today", "明天": "Tomorrow",
}  # fmt: skip
#: Capitalised names after in/for/at/of, possibly several: "in Porto and Lisbon", "for New York, Boston".
#: Lower-case words inside a place's name ("Rio de Janeiro").
NAME = r"(?-i:[A-Z][\w'-]*)(?:\s(?:(?-i:de|da|do|del|della|di|du|la|le|van|von|der|upon|el)\s)?(?-i:[A-Z][\w'-]*))*"
PLACES_PATTERN = re.compile(rf"\b(?:in|for|at|of)\s+({NAME}(?:(?:\s*,\s*|\s+and\s+){NAME})*)", re.I)
#: Without capitals ("weather in paris?"): the words after in/for/at up to punctuation.
LOWER_PLACE_PATTERN = re.compile(r"\b(?:in|for|at)\s+([a-z][\w .'-]*?)\s*(?:[?!.,]|$)", re.I)
PERSIAN_PLACE = re.compile(r"(?<![^\W\d_])(?:در|هوای)\s+(?:شهر\s+)?([^\W\d_]+)")
CHINESE_PLACE = re.compile(r"(?:在)?([\u4e00-\u9fff]{2,6}?)(?:的)?(?:天气|会下雨|下雨|气温)")
CHINESE_TIME_WORDS = re.compile(r"^(?:今天|明天|现在|星期.|周.)+")
ROUTE_PATTERN = re.compile(rf"\bfrom\s+({NAME})\s+to\s+({NAME})", re.I)
QUERY_PATTERN = re.compile(r"\b(?:for|about|on)\s+(.+?)\s*[?!.]*$", re.I)
PERSIAN_QUERY = re.compile(r"(?:درباره|دربارهٔ|برای)\s+(.+?)\s*(?:را\s+)?(?:جستجو|پیدا|بگرد|سرچ)")
CHINESE_QUERY = re.compile(r"(?:搜索|查找|查一下|搜一下)(?:一下)?(.+?)[。？?！!]*$")
QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|«([^»]+)»|'([^']{2,})'(?!\w)")
PATH_PATTERN = re.compile(r"[\w./-]+\.[A-Za-z0-9]{1,5}\b")
ID_PATTERN = re.compile(r"\b(?=[\w-]*[\d_-])[A-Za-z][\w-]*\d[\w-]*\b|\b[A-Za-z]+[_-][\w-]+\b")


# --- the parameters of a tool ----------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One parameter of a tool's schema, as the rules need it."""

    name: str
    kind: str  #: the JSON type: "integer", "number", "string", "boolean", "array", ...
    required: bool
    enum: tuple = ()
    items: str = ""  #: for an array, the JSON type of its items

    @property
    def numeric(self) -> bool:
        return self.kind in ("integer", "number") and not self.enum


def _json_type(schema: dict) -> str:
    """The schema's type, looking through ``anyOf`` (Optional[int] is ``anyOf`` int / null)."""
    if "type" in schema and schema["type"] != "null":
        kind = schema["type"]
        return kind[0] if isinstance(kind, list) else kind
    for option in schema.get("anyOf", ()):
        if option.get("type") not in (None, "null"):
            return _json_type(option)
    return "enum" if "enum" in schema else "string"


def _enum(schema: dict) -> tuple:
    if "enum" in schema:
        return tuple(schema["enum"])
    for option in schema.get("anyOf", ()):
        if "enum" in option:
            return tuple(option["enum"])
    return ()


def parameters_of(tool: dict) -> list[Parameter]:
    """The parameters of an OpenAI-style tool schema, in schema order."""
    schema = tool["function"].get("parameters") or {}
    required = set(schema.get("required") or ())
    params = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop or {}
        items = prop.get("items") or next((o.get("items") for o in prop.get("anyOf", ()) if "items" in o), {}) or {}
        params.append(Parameter(name, _json_type(prop), name in required, _enum(prop), _json_type(items) if items else ""))
    return params


def signature(tool: dict) -> str:
    """How a tool is named in a reply: ``multiply(a, b)``."""
    return f"{tool['function']['name']}({', '.join(p.name for p in parameters_of(tool))})"


# --- numbers and references ------------------------------------------------------------


def _chinese_number(text: str) -> int:
    """"六" -> 6, "十二" -> 12, "二十" -> 20, "二十三" -> 23."""
    if "十" not in text:
        value = 0
        for char in text:
            value = value * 10 + _CN_DIGITS[char]
        return value
    tens, _, units = text.partition("十")
    return (_CN_DIGITS.get(tens[-1], 1) if tens else 1) * 10 + (_CN_DIGITS.get(units[0], 0) if units else 0)


def _word_number(text: str) -> int:
    parts = re.split(r"[- ]", text.lower())
    return sum(NUMBER_WORDS[part] for part in parts)


@dataclass(frozen=True)
class Mention:
    """A number or a reference in a request, where it stands."""

    start: int
    end: int
    value: float | int | None  #: None for a reference
    text: str
    after_from: bool = False

    @property
    def is_reference(self) -> bool:
        return self.value is None


def normalise(text: str) -> str:
    """Persian digits as ASCII digits (a slash between them is a decimal point: "۲/۵" is 2.5, as
    Persian is often typed), typographic apostrophes as plain ones."""
    text = re.sub(r"(?<=[۰-۹])/(?=[۰-۹])", ".", text)
    return text.translate(DIGITS).replace("\u2019", "'")


def mentions(text: str) -> list[Mention]:
    """The numbers and references of a request, in the order written.

    >>> [m.value for m in mentions("multiply six by 7.5")]
    [6, 7.5]
    >>> [m.text for m in mentions("add 5 to the result")]
    ['5', 'the result']
    """
    text = normalise(text)
    found = []
    for match in _NUMBER_TOKEN.finditer(text):
        kind = match.lastgroup
        raw = match.group()
        if kind == "digits":
            value: float | int | None = float(raw) if "." in raw else int(raw)
        elif kind == "word":
            value = _word_number(raw)
        elif kind == "cn":
            value = _chinese_number(raw)
        else:
            value = None
        after_from = bool(_FROM_BEFORE.search(text[: match.start()]))
        found.append(Mention(match.start(), match.end(), value, raw, after_from))
    return found


def ordered(found: list[Mention]) -> list[Mention]:
    """Numbers in the order they fill parameters: one after "from" first, the rest as written."""
    first = [m for m in found if m.after_from][:1]
    return first + [m for m in found if m not in first]


def last_number(text: str) -> float | int | None:
    """The last number written in a text, or None.

    >>> last_number("multiply says: 42.0")
    42.0
    """
    numbers = [m.value for m in mentions(text) if m.value is not None]
    return numbers[-1] if numbers else None


# --- strings ----------------------------------------------------------------------------


def places_in(text: str) -> list[str]:
    """The places a request names, without days.

    >>> places_in("What is the weather in Porto and Lisbon on Saturday?")
    ['Porto', 'Lisbon']
    >>> places_in("Is it raining in New York City?")
    ['New York City']
    >>> places_in("What's the weather like in Rio de Janeiro?")
    ['Rio de Janeiro']
    >>> places_in("هوای تهران چطور است؟")
    ['تهران']
    """
    places: list[str] = []
    for match in PLACES_PATTERN.finditer(text):
        for name in re.split(r"\s*,\s*|\s+and\s+", match.group(1)):
            name = DAY_PATTERN.sub("", name).strip()
            if name and name not in places:
                places.append(name)
    if places:
        return places
    if match := LOWER_PLACE_PATTERN.search(text):
        words = [w for w in match.group(1).split() if not DAY_PATTERN.fullmatch(w)]
        if words:
            return [" ".join(words)]
    persian = [m.group(1) for m in PERSIAN_PLACE.finditer(text) if m.group(1) not in OTHER_DAYS]
    if persian:
        return persian[:1]
    if match := CHINESE_PLACE.search(text):
        place = CHINESE_TIME_WORDS.sub("", match.group(1))
        return [name for name in re.split(r"[和、]", place) if name]
    return []


def day_in(text: str) -> str | None:
    """The day a request names ("on Saturday" -> "Saturday", "فردا" -> "Tomorrow"), if any."""
    if match := DAY_PATTERN.search(text):
        return match.group(1).capitalize()
    for word, day in OTHER_DAYS.items():
        if re.search(rf"(?<![^\W\d_]){word}(?![^\W\d_])", text) or ("\u4e00" <= word[0] <= "\u9fff" and word in text):
            return day
    return None


def query_in(text: str) -> str:
    """What to search for: a quoted text, or the words after "for", "about" or "on", else the whole request."""
    if quoted := quoted_in(text):
        return quoted
    for pattern in (QUERY_PATTERN, PERSIAN_QUERY, CHINESE_QUERY):
        if match := pattern.search(text):
            return match.group(1).strip()
    return text.strip()


#: What introduces the text to store or pass on: "remember that ...", "note: ...", "... to: ...".
TEXT_AFTER = re.compile(r"(?:\b(?:remember|note|don't forget)(?: that)?\s+|[:：]\s*|记住[:：]?\s*|به خاطر بسپار(?: که)?\s+)(.+)$", re.I)


def text_in(text: str) -> str:
    """A text argument: what follows "remember that", "note that" or a colon, else the whole request.

    >>> text_in("Remember that my favourite colour is green.")
    'my favourite colour is green.'
    >>> text_in("Ask the researcher: find food markets in Porto")
    'find food markets in Porto'
    """
    match = TEXT_AFTER.search(text)
    return match.group(1).strip() if match else text.strip()


def quoted_in(text: str) -> str | None:
    """The first quoted text of a request ("...", “...”, «...» or '...'), if any."""
    match = QUOTED.search(text)
    return next(group for group in match.groups() if group) if match else None


# --- reading one tool's arguments --------------------------------------------------------


@dataclass
class Reading:
    """The arguments read for one tool, and what could not be read.

    ``missing``: required parameters not read (first the one that failed).
    ``reason``: why the first missing one failed, in words, or "".
    ``unresolved``: a reference ("that") that stood for nothing sent.
    ``fanned``: a parameter given several values (places), one call each.
    """

    args: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    reason: str = ""
    unresolved: str | None = None
    fanned: tuple[str, list[Any]] | None = None
    extra_numbers: int = 0  #: numbers left over (the request gives more than the tool takes)
    used_reference: bool = False  #: an argument was read from a reference ("that")

    @property
    def ok(self) -> bool:
        return not self.missing and not self.extra_numbers


def _named_value(text: str, name: str) -> str | None:
    """The value a request gives by the parameter's name ("b=4", "b: 4", "b is 4")."""
    pattern = rf"(?<![\w]){re.escape(name)}\s*(?:=|:|\bis\b|\bequals\b)\s*(\"[^\"]*\"|'[^']*'|[^\s,;]+(?:\s+[^\s,;]+)?)"
    match = re.search(pattern, text, re.I)
    if not match:
        return None
    value = match.group(1)
    if value[:1] in "\"'":
        return value[1:-1]
    first = value.split()[0].rstrip(".?!")
    return first


def _number_for(param: Parameter, value: float | int) -> tuple[Any, str]:
    """The value as the parameter's type, or (None, reason)."""
    if param.kind == "integer":
        if float(value) != int(value):
            return None, f"{value} is not a whole number"
        return int(value), ""
    if param.kind == "array":
        return value, ""
    return float(value), ""


def _words_of(name: str) -> set[str]:
    return {w.rstrip("s") for w in re.split(r"[_\W]+", name.lower()) if len(w) > 1}


def _enum_value(text: str, param: Parameter, taken: set) -> Any:
    lowered = text.lower()
    hits = []
    for value in param.enum:
        spelled = str(value).lower().replace("_", " ")
        match = re.search(rf"(?<![\w]){re.escape(spelled)}(?![\w])", lowered)
        if match and value not in taken:
            hits.append((match.start(), value))
    if not hits:
        return None
    hits.sort()
    words = _words_of(param.name)
    if words & {"to", "target", "into"} or param.name.startswith("to_"):
        for start, value in hits:
            if re.search(r"\b(?:to|into|in)\s*$", lowered[:start]):
                return value
        return hits[-1][1]
    return hits[0][1]


def _is_id(param: Parameter) -> bool:
    return param.name.lower() in ID_ARGUMENTS or param.name.lower().endswith("_id")


#: An id as a tool result or placeholder states it: "id res-1", "id: call_7", "ref=abc-2".
STATED_ID = re.compile(r"\b(?:id|ref|reference|handle)\b\s*[:=]?\s*[\"'`]?([A-Za-z0-9][\w-]*\d[\w-]*)", re.I)


def last_id(text: str) -> str | None:
    """The last id a text states ("... offloaded as id res-2 ..." -> "res-2"), or None."""
    found = STATED_ID.findall(text)
    return found[-1] if found else None


def _string_value(text: str, param: Parameter) -> tuple[Any, list[Any]]:
    """(value, several values) for a string parameter, by what it is called; (None, []) when not read."""
    key = param.name.lower()
    if key in ("origin", "destination") and (route := ROUTE_PATTERN.search(text)):
        return route.group(1 if key == "origin" else 2), []
    if key in PLACE_ARGUMENTS:
        places = places_in(text)
        return (places[0], places) if places else (None, [])
    if key in DAY_ARGUMENTS:
        return day_in(text), []
    if key in PATH_ARGUMENTS and (match := PATH_PATTERN.search(text)):
        return match.group(), []
    if _is_id(param):
        quoted = quoted_in(text)
        match = ID_PATTERN.search(text)
        return (quoted or (match.group() if match else None)), []
    if key in QUERY_ARGUMENTS:
        return query_in(text), []
    if key in TEXT_ARGUMENTS:
        return quoted_in(text) or text_in(text), []
    return quoted_in(text), []


@dataclass
class _Reader:
    """A :class:`Reading` being filled, with what a reference stands for: the state the steps share."""

    reading: Reading
    earlier: float | int | None
    earlier_id: str | None

    def fail(self, param: Parameter, reason: str = "") -> None:
        """A parameter not read: missing if it is required (the first reason kept)."""
        if param.required:
            self.reading.missing.append(param.name)
            self.reading.reason = self.reading.reason or reason

    def put_number(self, param: Parameter, number: float | int) -> None:
        """Set ``param`` to ``number`` in its schema type, or record why it cannot take it."""
        value, reason = _number_for(param, number)
        if value is None:
            self.fail(param, reason)
        else:
            self.reading.args[param.name] = value

    def resolve(self, mention: Mention) -> float | int | None:
        """The number a mention stands for: its own, or for a reference the earlier one (None: nothing)."""
        if mention.is_reference:
            self.reading.used_reference = True
            if self.earlier is None:
                self.reading.unresolved = self.reading.unresolved or mention.text
            return self.earlier
        return mention.value


def _values_by_name(text: str, params: list[Parameter], queue: list[Mention]) -> tuple[dict[str, str], list[Mention]]:
    """Rule 1: the values given by name ("b: 4"), and the number mentions left outside them."""
    named: dict[str, str] = {}
    for param in params:
        value = _named_value(text, param.name)
        if value is not None:
            named[param.name] = value
            queue = [m for m in queue if not (text.find(value) <= m.start < text.find(value) + len(value))]
    return named, queue


def _put_named(reader: _Reader, param: Parameter, raw: str) -> None:
    """Rule 1: one parameter from the value given by its name, in its type."""
    if param.numeric:
        found = mentions(raw)
        number = reader.resolve(found[0]) if found else None
        if number is None:
            reader.fail(param, f"{raw!r} is not a number")
        else:
            reader.put_number(param, number)
    elif param.enum:
        match = [v for v in param.enum if str(v).lower() == raw.lower()]
        if match:
            reader.reading.args[param.name] = match[0]
        else:
            reader.fail(param, f"{raw!r} is not one of {', '.join(map(str, param.enum))}")
    else:
        reader.reading.args[param.name] = raw


def _counted_optionals(reader: _Reader, text: str, params: list[Parameter], named: dict[str, str],
                       queue: list[Mention]) -> str:
    """Rule 2: optional numbers by a word of their name ("5 results"), taken out of ``queue``; the text without them."""
    for param in params:
        if param.name in named or param.required or not param.numeric:
            continue
        for mention in queue:
            following = re.match(r"\s*([^\W\d_]+)", text[mention.end:])
            if mention.value is not None and following and following.group(1).lower().rstrip("s") in _words_of(param.name):
                value, _ = _number_for(param, mention.value)
                if value is not None:
                    reader.reading.args[param.name] = value
                    queue.remove(mention)
                    # the strings are read without it: "for checkpointers, 3 results" searches "checkpointers"
                    span = text[mention.start : mention.end + following.end()]
                    text = re.sub(rf"[\s,;]*{re.escape(span)}", "", text, count=1)
                break
    return text


def _numbers_in_order(reader: _Reader, params: list[Parameter], named: dict[str, str], queue: list[Mention]) -> None:
    """Rule 2: required numbers (and arrays of numbers) in the order written, taken out of ``queue``."""
    for param in params:
        if param.name in named or param.name in reader.reading.args:
            continue
        if param.kind == "array" and param.items in ("integer", "number"):
            numbers = [reader.resolve(m) for m in queue]
            queue.clear()
            if numbers and None not in numbers:
                reader.reading.args[param.name] = [_number_for(Parameter("", param.items, True), n)[0] for n in numbers]
            else:
                reader.fail(param)
            continue
        if not param.numeric or not param.required:
            continue
        if not queue:
            reader.fail(param)
            continue
        mention = queue.pop(0)
        number = reader.resolve(mention)
        if number is None:
            reader.fail(param, f'"{mention.text}" stands for an earlier result')
            continue
        reader.put_number(param, number)


def _put_string(reader: _Reader, text: str, param: Parameter) -> None:
    """Rule 4: a string parameter by what it is called; an id may be a reference to the earlier id."""
    value, several = _string_value(text, param)
    if value is None and _is_id(param) and (refs := [m for m in mentions(text) if m.is_reference]):
        reader.reading.used_reference = True
        value = reader.earlier_id
        if value is None:
            reader.reading.unresolved = reader.reading.unresolved or refs[0].text
    if value is None:
        reader.fail(param)
        return
    reader.reading.args[param.name] = value
    if len(several) > 1 and reader.reading.fanned is None:
        reader.reading.fanned = (param.name, several)


def _strings_and_enums(reader: _Reader, text: str, params: list[Parameter], named: dict[str, str]) -> None:
    """Rule 4: strings and enums by what they are called (an enum value fills one parameter only)."""
    taken_enums: set = set()
    for param in params:
        if param.name in named or param.name in reader.reading.args or param.numeric:
            continue
        if param.enum:
            value = _enum_value(text, param, taken_enums)
            if value is None:
                reader.fail(param)
            else:
                reader.reading.args[param.name] = value
                taken_enums.add(value)
        elif param.kind != "string":
            reader.fail(param)
        else:
            _put_string(reader, text, param)


def read_arguments(text: str, tool: dict, earlier: float | int | None = None, earlier_id: str | None = None) -> Reading:
    """Read every parameter of ``tool`` from the request ``text`` (see the module docstring).

    ``earlier`` is the number a reference ("that") stands for, or None when
    nothing the model was sent holds one; ``earlier_id`` the id a reference
    stands for in an id parameter ("read that result back"), or None.
    """
    text = normalise(text)
    reader = _Reader(Reading(), earlier, earlier_id)
    reading = reader.reading
    params = parameters_of(tool)
    named, queue = _values_by_name(text, params, ordered(mentions(text)))
    for param in params:
        if param.name in named:
            _put_named(reader, param, named[param.name])
    text = _counted_optionals(reader, text, params, named, queue)
    _numbers_in_order(reader, params, named, queue)
    _strings_and_enums(reader, text, params, named)
    reading.args = {p.name: reading.args[p.name] for p in params if p.name in reading.args}  # schema order
    has_text = any(p.kind == "string" and not p.enum for p in params)
    if any(p.numeric for p in params) and not has_text:
        reading.extra_numbers = len([m for m in queue if not m.is_reference])
    return reading
