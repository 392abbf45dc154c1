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

from course_utils.core.args import check_int
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

#: The rule above, as one paragraph (lesson 04b prints it).
LOSS_RULE = " ".join(__doc__.split("\n\n")[1].split()).replace(":func:", "").replace("`", "")

#: Words a summary may use when the request asks for no length.
DEFAULT_SUMMARY_WORDS = 60
#: Words a summary may use when the request asks for it "briefly" (or short, concise).
BRIEF_SUMMARY_WORDS = 25
#: What a summary says when nothing fits in its length: one "word" that states no fact.
NOTHING_FITS = "\u2026"
#: What a summary says when the user has stated nothing.
NO_FACTS = "The user has not shared their name, likes or questions yet."

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


# --- what a request asks for --------------------------------------------------------


@dataclass(frozen=True)
class SummaryLength:
    """How long a summary may be: ``words`` at most, and ``sentences`` at most (None: any)."""

    words: int
    sentences: int | None = None
    asked: bool = False  #: False when the request asked for no length (the default cap applies)


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


def requested_length(request: str) -> SummaryLength:
    """The length a summary request asks for, or the default one.

    Sentences of the request that restate a fact ("The user asked: ...", as an
    old summary inside an "extend" prompt does) are not read, so a question
    the user once asked "briefly" does not shorten every later summary.

    >>> requested_length("Create a summary of the conversation above in at most 12 words:")
    SummaryLength(words=12, sentences=None, asked=True)
    >>> requested_length("Summarise our chat in one sentence.")
    SummaryLength(words=60, sentences=1, asked=True)
    """
    if not isinstance(request, str):
        raise TypeError(f"request must be a str, got {type(request).__name__}: {request!r:.80}")
    text = _RESTATED_FACT.sub(" ", request)
    words, count, asked = [], [], False
    words += [_number(m.group(1)) for m in _AT_MOST_WORDS.finditer(text)]
    words += [_number(m.group(1)) for m in _WORDS_OR_FEWER.finditer(text)]
    words += [_number(m.group(1)) - 1 for m in _UNDER_WORDS.finditer(text)]
    count += [_number(m.group(1)) if m.group(1) else 1 for m in _SENTENCES.finditer(text)]
    if _BRIEF.search(text):
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


def _facts_in_sentence(sentence: str) -> list[tuple[str, str]]:
    """(key, summary sentence) for each fact one sentence states."""
    found = []
    if name := stated_name(sentence):
        found.append(("name", f"The user's name is {name}."))
    personal = stated_personal_facts(sentence)
    if "city" in personal:
        found.append(("city", f"The user lives in {personal['city']}."))
    if "pet" in personal:
        kind, pet_name = personal["pet"]
        found.append(("pet", f"The user's {kind} is called {pet_name}."))
    if "food" in personal:
        found.append(("food", f"The user's favourite food is {personal['food']}."))
    if "job" in personal:
        found.append(("job", f"The user works as a {personal['job']}."))
    for key, value in personal.get("attributes", {}).items():
        found.append((f"attribute:{key}", f"The user's {key} is {value}."))
    if "allergy" in personal:
        found.append((f"allergy:{personal['allergy'].lower()}", f"The user is allergic to {personal['allergy']}."))
    if "dislike" in personal:
        found.append((f"dislikes:{personal['dislike'].lower()}", f"The user doesn't like {personal['dislike']}."))
    if "origin" in personal:
        found.append(("origin", f"The user is from {personal['origin']}."))
    if "age" in personal:
        found.append(("age", f"The user is {personal['age']} years old."))
    if "trait" in personal:
        found.append((f"trait:{personal['trait'].lower()}", f"The user is {personal['trait']}."))
    if thing := stated_like(sentence):
        found.append((f"likes:{thing.lower()}", f"The user likes {pretty(thing)}."))
    question = ASKED_PREFIX.sub("", sentence)
    if is_question(question):
        found.append((f"asked:{question}", f"The user asked: {question}"))
    return found


def stated_facts(texts: Sequence[str]) -> list[StatedFact]:
    """Every fact the texts state, oldest last mention first.

    >>> [f.sentence for f in stated_facts(["I'm bob", "i like the celtics!", "I'm bob!"])]
    ['The user likes the Celtics.', "The user's name is Bob."]
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a list of str, got {type(texts).__name__}: {texts!r:.80}")
    seen: dict[str, StatedFact] = {}
    position = 0
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}: {text!r:.80}")
        for sentence in sentences(text.replace("\u2019", "'")):
            for key, said in _facts_in_sentence(sentence):
                mentions = seen[key].mentions + 1 if key in seen else 1
                seen[key] = StatedFact(key, said, mentions, position)
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
) -> str:
    """A summary of what ``texts`` state, in at most ``words`` words: the facts
    :func:`choose_facts` keeps, one sentence each (see the module docstring).

    ``max_questions`` keeps only the user's last questions (None keeps all).
    """
    max_questions = check_int(max_questions, "max_questions", minimum=0, none_ok=True)
    facts = stated_facts(texts)
    if max_questions is not None:
        questions = [fact for fact in facts if fact.is_question]
        dropped = {fact.key for fact in questions[: len(questions) - max_questions]}
        facts = [fact for fact in facts if fact.key not in dropped]
    if not facts:
        return _fit(NO_FACTS, check_int(words, "words", minimum=1))
    kept = choose_facts(facts, words, sentences)
    return " ".join(fact.sentence for fact in kept) or NOTHING_FITS


def summary_reply(messages: Sequence[BaseMessage], max_questions: int | None = None) -> str:
    """The offline model's answer to a request to create or extend a summary.

    The request (the last human message, which holds any existing summary) is
    read first, then the conversation, so what the old summary says counts as
    the oldest text; the request's length (:func:`requested_length`) applies.
    """
    humans = [m for m in messages if isinstance(m, HumanMessage)]
    request = readable_text(humans[-1]) if humans else ""
    earlier = [readable_text(m) for m in messages[:-1] if isinstance(m, (HumanMessage, SystemMessage))]
    length = requested_length(request)
    return write_summary([request, *earlier], length.words, length.sentences, max_questions)


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
    "summary_recall",
    "summary_reply",
    "write_summary",
]
