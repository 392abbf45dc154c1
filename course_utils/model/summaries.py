"""Summaries that cost detail: how the offline model writes and extends one.

The offline model's summary is a list of short sentences, one per fact the
user stated ("The user's name is Bob.", "The user lives in Valencia.") or
question the user asked ("The user asked: what's my name?"). It has a length
limit: the one the request asks for ("in at most 20 words", "in one sentence",
"briefly" = 25 words), else 60 words. When the facts do not all fit, it ranks
them and keeps them in rank order while they fit, skipping any that would go
over: first what the user stated, before what the user asked; then facts
mentioned more often first; then newer facts first. The facts kept are written
oldest first, and the rest are lost. Extending a summary ("extend the summary
above") reads the old summary as the oldest text, where each fact is mentioned
once, however often the user said it: so old facts lose their rank, new ones
push them out, and a fact that fell out once stays out unless the user says it
again. That drift is measured by :func:`measure_drift`.

A real model summarises differently: it paraphrases, merges facts, may keep
a detail the user mentioned once because it looks important, can invent or
distort a fact, and counts its limit only roughly. What holds for both is the
lesson: a summary is shorter than what it replaces, so it keeps some facts and
loses others, and every extension is another chance to lose one.

A request in Persian ("گفتگوی بالا را خلاصه کن:", "خلاصه‌ای کوتاه از گفتگوی
بالا بنویس", "... خلاصه را گسترش بده:", or with the glossary's Latin term "یک
summary از گفتگوی بالا بنویس": :data:`ASKS_SUMMARY_FA`, :func:`summary_language`)
gets the same summary in Persian sentences ("اسم کاربر باب است.", forms in
:mod:`course_utils.model.summary_sentences`), under the same rules: the same
facts, ranked the same way, and the same length words, read from the Persian
request ("در 25 کلمه", "کوتاه": :func:`requested_length`). A summary's words
are counted the same way in both languages: what ``str.split()`` separates,
so a word joined by a zero-width non-joiner (می‌کند) is one word. As a
Persian sentence is often shorter or longer than its English one, the same
limit can keep a different number of facts in the two languages. The model
reads its own Persian summary back as it reads an English one.

>>> write_summary(["hi! I'm bob", "i like the celtics!"])
"The user's name is Bob. The user likes the Celtics."
>>> write_summary(["hi! I'm bob", "i like the celtics!"], words=5)  # the newer fact wins
'The user likes the Celtics.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from course_utils.core.args import check_choice, check_int
from course_utils.model.facts import (
    ASKED_PREFIX,
    is_question,
    pretty,
    readable_text,
    sentences,
    stated_like,
    stated_name,
    stated_personal_facts,
)
from course_utils.model.summary_sentences import FA_READ, SUMMARY_LANGUAGES, summary_sentence
from course_utils.model.summary_sentences import NO_FACTS as NO_FACTS_IN

#: The rule above, as one paragraph (lesson 04b prints it).
LOSS_RULE = " ".join(__doc__.split("\n\n")[1].split()).replace(":func:", "").replace("`", "")

#: Words a summary may use when the request asks for no length.
DEFAULT_SUMMARY_WORDS = 60
#: Words a summary may use when the request asks for it "briefly" (or short, concise).
BRIEF_SUMMARY_WORDS = 25
#: What a summary says when nothing fits in its length: one "word" that states no fact.
NOTHING_FITS = "\u2026"
#: What a summary says when the user has stated nothing (NO_FACTS_IN["fa"] in Persian).
NO_FACTS = NO_FACTS_IN["en"]

#: A request to create or extend a summary, in English and in Persian (:func:`summary_language`).
ASKS_SUMMARY = re.compile(r"\b(?:create|extend|write)\b.*\bsummary\b|\bsummari[sz]e\b", re.I)
_FA_REQUEST_VERBS = "کن|کنید|کنین|کنی|بکن|بکنید|بنویس|بنویسید|بنویسی|بساز|بسازید|بسازی|بده|بدهید|بدید|بدی"
#: "خلاصه" (or, as the Persian edition's glossary keeps the term, "summary") then, in the same clause,
#: a verb asking for it: "... را خلاصه کن", "خلاصه‌ای ... بنویس", "خلاصه را ... گسترش بده", "یک summary ... بنویس".
ASKS_SUMMARY_FA = re.compile(
    rf"(?:خلاصه|[Ss]ummary)[^\s.!?؟:]*(?:\s+[^\s.!?؟:]+){{0,12}}?\s+(?:{_FA_REQUEST_VERBS})(?![^\W\d_])"
)

_NUMBER_WORDS = {
    "a": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
}  # fmt: skip
_NUMBER = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"
#: "at most 20 words", "no more than twenty words", "up to 20 words", "in 20 words", "20 words or fewer".
_AT_MOST_WORDS = re.compile(rf"\b(?:at most|no more than|not more than|up to|max(?:imum)?(?: of)?|in) {_NUMBER} words?\b", re.I)
_WORDS_OR_FEWER = re.compile(rf"\b{_NUMBER} words? or (?:fewer|less)\b", re.I)
#: "under 20 words", "fewer than 20 words", "less than 20 words": strictly fewer.
_UNDER_WORDS = re.compile(rf"\b(?:under|fewer than|less than) {_NUMBER} words?\b", re.I)
#: "in one sentence", "in a single sentence", "in at most 3 sentences".
_SENTENCES = re.compile(rf"\bin (?:at most |no more than |a )?{_NUMBER} sentences?\b|\bin a sentence\b", re.I)
#: A fact as a summary restates it, up to the end of its sentence.
_RESTATED_FACT = re.compile(r"\bthe user\b[^.!?]*[.!?]", re.I)
_BRIEF = re.compile(r"\b(?:brief(?:ly)?|short|concise(?:ly)?|succinct(?:ly)?)\b", re.I)

#: The same length words in Persian (digits Latin or Persian: int() reads both).
_FA_NUMBER_WORDS = {
    "یک": 1, "یه": 1, "دو": 2, "سه": 3, "چهار": 4, "پنج": 5, "شش": 6, "هفت": 7, "هشت": 8, "نه": 9, "ده": 10,
    "یازده": 11, "دوازده": 12, "پانزده": 15, "بیست": 20, "سی": 30, "چهل": 40, "پنجاه": 50, "صد": 100,
}  # fmt: skip
_FA_NUMBER = r"(\d+|" + "|".join(sorted(_FA_NUMBER_WORDS, key=len, reverse=True)) + r")"
_FA_WORD = r"(?:کلمه|واژه|کلمات|واژگان)"
#: "در 20 کلمه", "حداکثر 20 کلمه", "در حداکثر 20 کلمه", "تا 20 کلمه", "با 20 کلمه".
_FA_AT_MOST_WORDS = re.compile(rf"(?<!\S)(?:(?:حداکثر|نهایتاً|نهایتا|تا|در|با)\s+)+{_FA_NUMBER}\s+{_FA_WORD}")
#: "20 کلمه یا کمتر".
_FA_WORDS_OR_FEWER = re.compile(rf"(?<!\S){_FA_NUMBER}\s+{_FA_WORD}\S*\s+یا\s+کمتر")
#: "کمتر از 20 کلمه", "زیر 20 کلمه": strictly fewer.
_FA_UNDER_WORDS = re.compile(rf"(?<!\S)(?:کمتر از|زیر)\s+{_FA_NUMBER}\s+{_FA_WORD}")
#: "در یک جمله", "در 3 جمله", "در حداکثر 3 جمله", "در قالب یک جمله".
_FA_SENTENCES = re.compile(rf"(?<!\S)(?:در|با)\s+(?:قالب\s+)?(?:حداکثر\s+)?{_FA_NUMBER}\s+جمله")
#: "کوتاه", "مختصر", "موجز", "به‌طور خلاصه", "به اختصار" = briefly.
_FA_BRIEF = re.compile(r"کوتاه|مختصر|موجز|به\u200c?\s?طور خلاصه|به\u200c?\s?اختصار")


# --- what a request asks for --------------------------------------------------------


@dataclass(frozen=True)
class SummaryLength:
    """How long a summary may be: ``words`` at most, and ``sentences`` at most (None: any)."""

    words: int
    sentences: int | None = None
    asked: bool = False  #: False when the request asked for no length (the default cap applies)


def _number(word: str) -> int:
    if word.isdigit():
        return int(word)
    return _NUMBER_WORDS[word.lower()] if word.lower() in _NUMBER_WORDS else _FA_NUMBER_WORDS[word]


def _own_words(request: str) -> str:
    """The request without the sentences that restate a fact (an old summary's, in either language)."""
    text = _RESTATED_FACT.sub(" ", request).replace(NO_FACTS_IN["fa"], " ")
    for pattern in FA_READ.values():
        text = pattern.sub(" ", text)
    return text


def summary_language(request: str) -> str | None:
    """The language a request for a summary is written in, "en" or "fa"; None if it asks for none.

    An old summary inside the request (its sentences restating facts) is not
    read, so an English request extending a summary that holds Persian words
    is still English, and the other way round.

    >>> summary_language("گفتگوی بالا را خلاصه کن:")
    'fa'
    >>> summary_language("خلاصه‌ای از گفتگوی بالا بنویس")
    'fa'
    >>> summary_language("Create a summary of the conversation above:")
    'en'
    >>> summary_language("اسم من چیست؟") is None
    True
    """
    if not isinstance(request, str):
        raise TypeError(f"request must be a str, got {type(request).__name__}: {request!r:.80}")
    own = _own_words(request)
    if ASKS_SUMMARY_FA.search(own) and not ASKS_SUMMARY.search(own):
        return "fa"
    return "en" if ASKS_SUMMARY.search(request) else None


def requested_length(request: str) -> SummaryLength:
    """The length a summary request asks for, or the default one.

    Sentences of the request that restate a fact ("The user asked: ...", as an
    old summary inside an "extend" prompt does) are not read, so a question
    the user once asked "briefly" does not shorten every later summary.
    Where several lengths are asked for, the shortest applies. The forms read:

    ==============================================  ==============================================
    English                                         Persian
    ==============================================  ==============================================
    in / at most / up to / no more than 20 words    در / حداکثر / در حداکثر / تا / با 20 کلمه
    20 words or fewer (or less)                     20 کلمه یا کمتر
    under / fewer than / less than 20 words (19)    زیر / کمتر از 20 کلمه (19)
    in one sentence / in at most 3 sentences        در یک جمله / در حداکثر 3 جمله / در قالب یک جمله
    briefly / short / concise / succinct (25)       کوتاه / مختصر / موجز / به‌طور خلاصه / به اختصار (25)
    ==============================================  ==============================================

    Numbers may be digits (Latin or Persian) or number words (one to twenty,
    thirty, ... a hundred; یک تا دوازده، پانزده، بیست، ...، صد).

    >>> requested_length("Create a summary of the conversation above in at most 12 words:")
    SummaryLength(words=12, sentences=None, asked=True)
    >>> requested_length("Summarise our chat in one sentence.")
    SummaryLength(words=60, sentences=1, asked=True)
    >>> requested_length("گفتگوی بالا را در 12 کلمه خلاصه کن:")
    SummaryLength(words=12, sentences=None, asked=True)
    >>> requested_length("خلاصه‌ای کوتاه از گفتگوی بالا بنویس")
    SummaryLength(words=25, sentences=None, asked=True)
    """
    if not isinstance(request, str):
        raise TypeError(f"request must be a str, got {type(request).__name__}: {request!r:.80}")
    text = _own_words(request)
    words, count, asked = [], [], False
    words += [_number(m.group(1)) for m in _AT_MOST_WORDS.finditer(text)]
    words += [_number(m.group(1)) for m in _WORDS_OR_FEWER.finditer(text)]
    words += [_number(m.group(1)) - 1 for m in _UNDER_WORDS.finditer(text)]
    count += [_number(m.group(1)) if m.group(1) else 1 for m in _SENTENCES.finditer(text)]
    words += [_number(m.group(1)) for m in _FA_AT_MOST_WORDS.finditer(text)]
    words += [_number(m.group(1)) for m in _FA_WORDS_OR_FEWER.finditer(text)]
    words += [_number(m.group(1)) - 1 for m in _FA_UNDER_WORDS.finditer(text)]
    count += [_number(m.group(1)) for m in _FA_SENTENCES.finditer(text)]
    if _BRIEF.search(text) or _FA_BRIEF.search(text):
        words.append(BRIEF_SUMMARY_WORDS)
    asked = bool(words or count)
    return SummaryLength(
        words=max(1, min(words)) if words else DEFAULT_SUMMARY_WORDS,
        sentences=max(1, min(count)) if count else None,
        asked=asked,
    )


# --- the facts a text states, with how often and how recently -------------------------


@dataclass(frozen=True)
class StatedFact:
    """One fact as a summary states it, and how the texts mention it.

    ``key`` names the fact ("name", "city", "likes:the celtics", "asked:is it
    late?"): a later value of the same key replaces an earlier one (the user
    moved city). ``mentions`` counts the sentences that state it; ``last`` is
    the position of the last one (0 for the first sentence of the texts).
    """

    key: str
    sentence: str
    mentions: int
    last: int

    @property
    def is_question(self) -> bool:
        return self.key.startswith("asked:")

    @property
    def words(self) -> int:
        return len(self.sentence.split())


def _facts_in_sentence(sentence: str) -> list[tuple[str, str, dict[str, str]]]:
    """(key, kind of sentence, its fields) for each fact one sentence states (forms: summary_sentences)."""
    found = []
    if name := stated_name(sentence):
        found.append(("name", "name", {"name": name}))
    personal = stated_personal_facts(sentence)
    if "city" in personal:
        found.append(("city", "city", {"city": personal["city"]}))
    if "pet" in personal:
        kind, pet_name = personal["pet"]
        found.append(("pet", "pet", {"animal": kind, "pet": pet_name}))
    if "food" in personal:
        found.append(("food", "food", {"food": personal["food"]}))
    if "job" in personal:
        found.append(("job", "job", {"job": personal["job"]}))
    for key, value in personal.get("attributes", {}).items():
        found.append((f"attribute:{key}", "attribute", {"key": key, "value": value}))
    if "allergy" in personal:
        found.append((f"allergy:{personal['allergy'].lower()}", "allergy", {"allergy": personal["allergy"]}))
    if "dislike" in personal:
        found.append((f"dislikes:{personal['dislike'].lower()}", "dislike", {"thing": personal["dislike"]}))
    if "origin" in personal:
        found.append(("origin", "origin", {"origin": personal["origin"]}))
    if "age" in personal:
        found.append(("age", "age", {"age": personal["age"]}))
    if "trait" in personal:
        found.append((f"trait:{personal['trait'].lower()}", "trait", {"trait": personal["trait"]}))
    if thing := stated_like(sentence):
        found.append((f"likes:{thing.lower()}", "like", {"thing": pretty(thing)}))
    question = ASKED_PREFIX.sub("", sentence)
    if is_question(question):
        found.append((f"asked:{question}", "asked", {"question": question}))
    return found


def stated_facts(texts: Sequence[str], language: str = "en") -> list[StatedFact]:
    """Every fact the texts state, oldest last mention first, each as a summary
    in ``language`` ("en" or "fa") states it.

    >>> [f.sentence for f in stated_facts(["I'm bob", "i like the celtics!", "I'm bob!"])]
    ['The user likes the Celtics.', "The user's name is Bob."]
    >>> [f.sentence for f in stated_facts(["سلام! من باب هستم", "من قهوه را دوست دارم."], "fa")]
    ['اسم کاربر باب است.', 'کاربر قهوه را دوست دارد.']
    """
    check_choice(language, "language", SUMMARY_LANGUAGES)
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a list of str, got {type(texts).__name__}: {texts!r:.80}")
    seen: dict[str, StatedFact] = {}
    position = 0
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}: {text!r:.80}")
        for sentence in sentences(text.replace("\u2019", "'")):
            for key, kind, fields in _facts_in_sentence(sentence):
                mentions = seen[key].mentions + 1 if key in seen else 1
                seen[key] = StatedFact(key, summary_sentence(kind, language, **fields), mentions, position)
            position += 1
    return sorted(seen.values(), key=lambda fact: fact.last)


def rank_facts(facts: Sequence[StatedFact]) -> list[StatedFact]:
    """The loss rule's order: statements before questions, more mentions first, newer first."""
    return sorted(facts, key=lambda fact: (fact.is_question, -fact.mentions, -fact.last))


# --- writing a summary ------------------------------------------------------------------


def _fit(text: str, words: int) -> str:
    return text if len(text.split()) <= words else NOTHING_FITS


def choose_facts(
    facts: Sequence[StatedFact], words: int = DEFAULT_SUMMARY_WORDS, sentences: int | None = None
) -> list[StatedFact]:
    """The facts a summary of at most ``words`` words (and ``sentences`` sentences) keeps, oldest first."""
    words = check_int(words, "words", minimum=1)
    sentences = check_int(sentences, "sentences", minimum=1, none_ok=True)
    kept, used = [], 0
    for fact in rank_facts(facts):
        if sentences is not None and len(kept) == sentences:
            break
        if used + fact.words <= words:
            kept.append(fact)
            used += fact.words
    return sorted(kept, key=lambda fact: fact.last)


def write_summary(
    texts: Sequence[str],
    words: int = DEFAULT_SUMMARY_WORDS,
    sentences: int | None = None,
    max_questions: int | None = None,
    language: str = "en",
) -> str:
    """A summary of what ``texts`` state, in at most ``words`` words: the facts
    :func:`choose_facts` keeps, one sentence each (see the module docstring),
    written in ``language`` ("en" or "fa").

    ``max_questions`` keeps only the user's last questions (None keeps all).

    >>> write_summary(["سلام! من باب هستم", "من قهوه را دوست دارم."], language="fa")
    'اسم کاربر باب است. کاربر قهوه را دوست دارد.'
    >>> write_summary(["سلام! من باب هستم", "من قهوه را دوست دارم."], words=5, language="fa")
    'کاربر قهوه را دوست دارد.'
    """
    max_questions = check_int(max_questions, "max_questions", minimum=0, none_ok=True)
    facts = stated_facts(texts, language)
    if max_questions is not None:
        questions = [fact for fact in facts if fact.is_question]
        dropped = {fact.key for fact in questions[: len(questions) - max_questions]}
        facts = [fact for fact in facts if fact.key not in dropped]
    if not facts:
        return _fit(NO_FACTS_IN[language], check_int(words, "words", minimum=1))
    kept = choose_facts(facts, words, sentences)
    return " ".join(fact.sentence for fact in kept) or NOTHING_FITS


def summary_reply(messages: Sequence[BaseMessage], max_questions: int | None = None) -> str:
    """The offline model's answer to a request to create or extend a summary.

    The request (the last human message, which holds any existing summary) is
    read first, then the conversation, so what the old summary says counts as
    the oldest text; the request's length (:func:`requested_length`) applies,
    and its language (:func:`summary_language`) is the summary's.
    """
    humans = [m for m in messages if isinstance(m, HumanMessage)]
    request = readable_text(humans[-1]) if humans else ""
    earlier = [readable_text(m) for m in messages[:-1] if isinstance(m, (HumanMessage, SystemMessage))]
    length = requested_length(request)
    language = summary_language(request) or "en"
    return write_summary([request, *earlier], length.words, length.sentences, max_questions, language)


# --- how much a summary keeps, and how it drifts ------------------------------------------


def summary_recall(summary: str, texts: Sequence[str]) -> float:
    """The share of the facts ``texts`` state (latest values) that ``summary`` states too (1.0 when none)."""
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a str, got {type(summary).__name__}: {summary!r:.80}")
    wanted = {fact.sentence for fact in stated_facts(texts)}
    if not wanted:
        return 1.0
    return len(wanted & {fact.sentence for fact in stated_facts([summary])}) / len(wanted)


#: A long chat for :func:`measure_drift`: the first part states the five
#: personal facts of lesson 05, the name three times, first; every later part
#: adds a hobby and a question, and every third part mentions the city again.
DRIFT_HOBBIES = (
    "jazz", "hiking", "chess", "pottery", "sailing", "birdwatching", "baking", "cycling", "poetry", "gardening",
    "climbing", "knitting",
)  # fmt: skip


def drift_conversation(parts: int = 11) -> list[list[str]]:
    """The human messages of :data:`DRIFT_HOBBIES`' chat, in ``parts`` parts (one summary after each)."""
    parts = check_int(parts, "parts", minimum=1)
    if parts > len(DRIFT_HOBBIES) + 1:
        raise ValueError(f"parts must be at most {len(DRIFT_HOBBIES) + 1}, got {parts}")
    first = [
        "hi! I'm Sara.",
        "Yes, I'm Sara. My name is Sara, like my grandmother.",
        "I live in Valencia, near the old town.",
        "I share my flat with a cat called Pistachio.",
        "My favourite food is mushroom risotto.",
        "I work as a nurse on night shifts.",
    ]
    chat = [first]
    for number, hobby in enumerate(DRIFT_HOBBIES[: parts - 1], start=1):
        part = [f"I like {hobby}.", f"Do you know any good books about {hobby}?"]
        if number % 3 == 0:
            part.append("I live in Valencia, so the weather helps.")
        chat.append(part)
    return chat


@dataclass(frozen=True)
class DriftPoint:
    """The running summary after ``extensions`` extensions (0: the first summary).

    ``recall_first``: the share of the facts stated before the first summary
    that it still states. ``recall_all``: the share of every fact stated so far.
    ``fresh_first``: ``recall_first`` of one summary written now from the whole
    chat at the same length, which still counts how often each fact was said
    (extending counts the old summary's facts once each).
    """

    extensions: int
    words: int
    recall_first: float
    recall_all: float
    fresh_first: float
    summary: str


def measure_drift(
    parts: Sequence[Sequence[str]] | None = None, words: int = DEFAULT_SUMMARY_WORDS
) -> list[DriftPoint]:
    """Summarise after each part of a chat, extending the summary each time, as the how-to does.

    The first part is summarised; each later part extends that summary (the
    old summary read first, then the part's messages), as
    :class:`~course_utils.model.chat.OfflineChatModel` does with the how-to's prompts.
    ``parts`` defaults to :func:`drift_conversation`. One point per summary.
    """
    parts = drift_conversation() if parts is None else parts
    if isinstance(parts, str) or not isinstance(parts, Sequence) or not parts:
        raise TypeError(f"parts must be a non-empty list of lists of str, got {parts!r:.80}")
    words = check_int(words, "words", minimum=1)
    points, summary, said = [], "", []
    for number, part in enumerate(parts):
        if isinstance(part, str) or not isinstance(part, Sequence):
            raise TypeError(f"parts[{number}] must be a list of str, got {part!r:.80}")
        part = list(part)
        summary = write_summary([summary, *part] if summary else part, words)
        said += part
        fresh = write_summary(said, words)
        points.append(
            DriftPoint(
                extensions=number,
                words=words,
                recall_first=summary_recall(summary, list(parts[0])),
                recall_all=summary_recall(summary, said),
                fresh_first=summary_recall(fresh, list(parts[0])),
                summary=summary,
            )
        )
    return points


__all__ = [
    "ASKS_SUMMARY",
    "ASKS_SUMMARY_FA",
    "BRIEF_SUMMARY_WORDS",
    "DEFAULT_SUMMARY_WORDS",
    "DRIFT_HOBBIES",
    "LOSS_RULE",
    "DriftPoint",
    "StatedFact",
    "SummaryLength",
    "choose_facts",
    "drift_conversation",
    "measure_drift",
    "rank_facts",
    "requested_length",
    "stated_facts",
    "summary_language",
    "summary_recall",
    "summary_reply",
    "write_summary",
]
