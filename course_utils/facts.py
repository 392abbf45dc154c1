"""The facts a user tells the offline chat model, read from plain text.

:class:`~course_utils.chat.OfflineChatModel` remembers nothing between calls:
it reads what the user has said from the messages it is sent. This module is
that reading: a name ("I'm bob"), things liked ("i like the celtics!"), a
city, a pet, a favourite food, a job and the questions asked, as the user
states them and as a summary restates them ("The user's name is Bob."), so a
summary the model wrote can be read back by a later call.

>>> read_facts(["hi! I'm bob", "i like the celtics!"]).name
'Bob'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from course_utils.tool_calling import without_message_tags

# --- the rule tables ----------------------------------------------------------


@dataclass(frozen=True)
class Team:
    """A sports team the model recognises when the user says they like it."""

    name: str
    city: str
    league: str
    sport: str

    @property
    def full_name(self) -> str:
        return f"the {self.city} {self.name}"


#: Keys are what a user types ("i like the celtics!").
TEAMS = {
    "patriots": Team("Patriots", "New England", "NFL", "football"),
    "chiefs": Team("Chiefs", "Kansas City", "NFL", "football"),
    "eagles": Team("Eagles", "Philadelphia", "NFL", "football"),
    "cowboys": Team("Cowboys", "Dallas", "NFL", "football"),
    "packers": Team("Packers", "Green Bay", "NFL", "football"),
    "49ers": Team("49ers", "San Francisco", "NFL", "football"),
    "celtics": Team("Celtics", "Boston", "NBA", "basketball"),
    "lakers": Team("Lakers", "Los Angeles", "NBA", "basketball"),
    "warriors": Team("Warriors", "Golden State", "NBA", "basketball"),
    "red sox": Team("Red Sox", "Boston", "MLB", "baseball"),
    "yankees": Team("Yankees", "New York", "MLB", "baseball"),
    "bruins": Team("Bruins", "Boston", "NHL", "hockey"),
}

#: Where a name is stated: by the user, or in a summary the model wrote.
NAME_PATTERNS = (
    re.compile(r"\bmy name is ([a-z]+)", re.I),
    re.compile(r"\bcall me ([a-z]+)", re.I),
    re.compile(r"\bi(?:'m| am) ([a-z]+)\s*(?:[,.!?]|$)", re.I),
    re.compile(r"\bthe user's name is ([a-z]+)", re.I),
)
#: "I'm fine" states a mood, not a name.
NOT_NAMES = frozenset(
    "a an the fine good great ok okay here back sorry happy glad sure tired bored "
    "hungry ready done new lost confused well excited busy interested not".split()
)

#: Where a like is stated ("i like the celtics!", "The user likes the Celtics.").
LIKE_PATTERN = re.compile(r"\b(?:i|the user) (?:really )?(?:like|likes|love|loves) (.+)", re.I)
#: "i like how much they win" likes a clause, not a thing to remember.
NOT_THINGS = frozenset("how that this it them when what where why to you your".split())

#: Personal facts beyond the name (lesson 05's long chat), as the user states
#: them and as a summary restates them ("The user lives in Valencia.").
#: Places and pet names are capitalised words, so "I live in a flat" states no city.
CITY_PATTERN = re.compile(r"\b(?:i live|the user lives) in ((?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*))*)", re.I)
PET_KINDS = ("cat", "dog", "rabbit", "parrot", "hamster", "tortoise", "horse")
PET_PATTERN = re.compile(rf"\b({'|'.join(PET_KINDS)})\b(?: is)? (?:called|named) ((?-i:[A-Z][\w'-]*))", re.I)
FOOD_PATTERN = re.compile(r"\bfavou?rite food\b(?: in the (?:whole )?world)? is ([a-z][\w' -]*?)\s*(?:[,.!?;]|$)", re.I)
JOB_PATTERN = re.compile(
    r"\b(?:i work|the user works) as (?:an? )?([a-z][\w-]*(?: (?!(?:on|at|in|for|with|and|but|so|from)\b)[a-z][\w-]*){0,2})",
    re.I,
)

#: A question recorded in a summary ("The user asked: what's my name?").
ASKED_PREFIX = re.compile(r"^the user asked:\s*", re.I)


# --- reading facts from text ------------------------------------------------


@dataclass
class Facts:
    """What the user has told the model, as far as the visible messages show."""

    name: str | None = None
    likes: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    city: str | None = None
    pet: tuple[str, str] | None = None  #: (kind, name): ("cat", "Pistachio")
    food: str | None = None  #: favourite food
    job: str | None = None


def readable_text(message: BaseMessage) -> str:
    """The text the rules read in a message: its ``.text``, typographic apostrophes made plain.

    (Not :func:`course_utils.tokens.message_text`, which is what a tokenizer
    reads: content blocks and tool calls too.)
    """
    # Summary requests from SummarizationMiddleware wrap each message in XML tags (lesson 06).
    return without_message_tags(message.text).replace("\u2019", "'")


def sentences(text: str) -> list[str]:
    """Split text after . ! or ? ("hi! I'm bob" -> ["hi!", "I'm bob"])."""
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def stated_name(sentence: str) -> str | None:
    """The name a sentence states, if any ("I'm bob" -> "Bob")."""
    for pattern in NAME_PATTERNS:
        match = pattern.search(sentence)
        if match and match.group(1).lower() not in NOT_NAMES:
            word = match.group(1)
            return word[0].upper() + word[1:]
    return None


def stated_like(sentence: str) -> str | None:
    """The thing a (non-question) sentence says is liked ("the celtics")."""
    match = LIKE_PATTERN.search(sentence)
    if not match or sentence.endswith("?"):
        return None
    thing = match.group(1).strip().rstrip(".!? ")
    if not thing or thing.split()[0].lower() in NOT_THINGS:
        return None
    return thing


def stated_personal_facts(sentence: str) -> dict[str, Any]:
    """City, pet, favourite food and job a (non-question) sentence states.

    >>> stated_personal_facts("I also share my flat with a cat called Pistachio.")
    {'pet': ('cat', 'Pistachio')}
    """
    if sentence.rstrip().endswith("?"):
        return {}
    found: dict[str, Any] = {}
    if match := CITY_PATTERN.search(sentence):
        found["city"] = match.group(1)
    if match := PET_PATTERN.search(sentence):
        found["pet"] = (match.group(1).lower(), match.group(2))
    if match := FOOD_PATTERN.search(sentence):
        found["food"] = match.group(1).strip()
    if match := JOB_PATTERN.search(sentence):
        found["job"] = match.group(1).strip()
    return found


def read_facts(texts: Sequence[str]) -> Facts:
    """Collect the name (the last one stated), likes and questions, in order,
    and the last city, pet, favourite food and job stated."""
    facts = Facts()
    for text in texts:
        for sentence in sentences(text):
            facts.name = stated_name(sentence) or facts.name
            for key, value in stated_personal_facts(sentence).items():
                setattr(facts, key, value)
            thing = stated_like(sentence)
            if thing and thing.lower() not in {like.lower() for like in facts.likes}:
                facts.likes.append(thing)
            question = ASKED_PREFIX.sub("", sentence)
            if question.endswith("?") and question not in facts.questions:
                facts.questions.append(question)
    return facts


def teams_in(text: str) -> list[Team]:
    """The teams of :data:`TEAMS` named in a text."""
    return [team for key, team in TEAMS.items() if re.search(rf"\b{re.escape(key)}\b", text, re.I)]


def pretty(thing: str) -> str:
    """Capitalise known team names ("the celtics" -> "the Celtics")."""
    for key, team in TEAMS.items():
        thing = re.sub(rf"\b{re.escape(key)}\b", team.name, thing, flags=re.I)
    return thing


def join_words(items: Sequence[str]) -> str:
    """["a"] -> "a"; ["a", "b", "c"] -> "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
