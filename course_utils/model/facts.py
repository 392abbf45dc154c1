"""The facts a user tells the offline chat model, read from plain text.

:class:`~course_utils.model.chat.OfflineChatModel` remembers nothing between calls:
it reads what the user has said from the messages it is sent. This module is
that reading: a name ("I'm bob"), things liked ("i like the celtics!"), a
city, a pet, a favourite food, a job and the questions asked, as the user
states them and as a summary restates them ("The user's name is Bob.", or in
a summary requested in Persian "اسم کاربر باب است."), so a summary the model
wrote can be read back by a later call (the summary's sentence forms are
:mod:`course_utils.model.summary_sentences`).

It also reads the forms people state facts in, in English, Chinese and
Persian (a summary restates each in the language it was requested in,
English or Persian, with the user's own words for the value):

=============================  ===========================  ===============================
English                        Chinese                      Persian
=============================  ===========================  ===============================
my X is Y (Y: 1-3 words)       我的X是Y / 我最喜欢的X是Y       X من Y است
I'm Y / my name is Y (a name)  我叫Y / 我是Y / 我的名字是Y      من Y هستم / اسم من Y است
I'm a Y / I'm vegetarian       我是学生 (a few roles)          من دانشجو هستم (a few roles)
I like Y / I don't like Y      我喜欢Y / 我不喜欢Y             من Y را دوست دارم / ... ندارم
I'm allergic to Y              我对Y过敏                      من به Y حساسیت دارم
I live in Y / I'm from Y       我住在Y / 我来自Y               من در Y زندگی می‌کنم / من اهل Y هستم
=============================  ===========================  ===============================

"I'm Y" states a name unless Y is one of :data:`TRAITS` or starts with
"a"/"an". "my X is Y" about someone else ("my sister's birthday is ...") or
with a longer Y ("... is a bit of a mess") is a remark, not a fact to keep.

>>> read_facts(["hi! I'm bob", "i like the celtics!"]).name
'Bob'
>>> read_facts(["My favourite colour is green.", "I'm allergic to peanuts."]).attributes
{'favourite colour': 'green'}
>>> read_facts(["سلام! من باب هستم"]).name
'باب'
>>> read_facts(["اسم کاربر باب است. کاربر در تهران زندگی می\u200cکند."]).city
'تهران'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from course_utils.model.summary_sentences import FA_PET_KIND_NAMES, FA_READ
from course_utils.model.tool_calling import without_message_tags

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

#: A word of any script ("Bob", "باب", "小明").
LETTERS = r"[^\W\d_]+"
#: Where a name is stated: by the user, or in a summary the model wrote.
NAME_PATTERNS = (
    re.compile(r"\bmy name is ([a-z]+)", re.I),
    re.compile(r"\bcall me ([a-z]+)", re.I),
    re.compile(r"\bi(?:'m| am) ([a-z]+)\s*(?:[,.!?]|$)", re.I),
    re.compile(rf"\bthe user's name is ({LETTERS})", re.I),
    re.compile(r"(?:我叫|我的名字是|我的名字叫|我是)([\u4e00-\u9fff]{1,4}?|[A-Za-z]+)(?:[，。！？,.!?\s]|$)"),
    re.compile(rf"(?:^|\s)من ({LETTERS}) (?:هستم|ام)(?:[\s.!؟?،]|$)"),
    re.compile(rf"(?:اسم|نام) (?:من|‌?ام) ({LETTERS}) (?:است|هست)"),
    re.compile(rf"(?:اسمم|نامم) ({LETTERS}) (?:است|هست)"),
    FA_READ["name"],  # a Persian summary's "اسم کاربر باب است."
)
#: "I'm vegetarian" states a trait, not a name (with "I'm a nurse", see stated_traits).
TRAITS = frozenset(
    "vegetarian vegan pescatarian married single divorced retired pregnant diabetic left-handed right-handed "
    "colourblind colorblind deaf blind lactose-intolerant coeliac celiac introverted extroverted shy "
    "学生 老师 医生 护士 工程师 素食者 程序员 دانشجو معلم پزشک پرستار مهندس گیاهخوار برنامه‌نویس".split()
)
#: "I'm fine" states a mood, not a name.
NOT_NAMES = frozenset(
    "a an the fine good great ok okay here back sorry happy glad sure tired bored "
    "hungry ready done new lost confused well excited busy interested not".split()
) | TRAITS | frozenset("谁 什么 哪里 خوب خسته".split())

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

#: "my X is Y", "The user's X is Y.", "我的X是Y", "X من Y است": an attribute X with value Y (rule above).
ATTRIBUTE_PATTERNS = (
    re.compile(r"\b(?:my|the user's) ((?:[a-z'-]+ ){0,2}[a-z'-]+) (?:is|are) ([^.!?,;]+?)\s*(?:[.!?,;]|\band (?=my\b|i\b)|$)", re.I),
    re.compile(rf"\bthe user's ((?:{LETTERS} ){{0,3}}{LETTERS}) is ([^.!?]+?)\s*(?:[.!?]|$)", re.I),
    re.compile(r"我(?:的)?((?:最喜欢的)?[\u4e00-\u9fff]{1,4}?)(?:是|叫)([^，。！？,.!?]+)"),
    re.compile(rf"((?:{LETTERS} ){{0,3}}{LETTERS}) من ((?:{LETTERS} ){{0,2}}{LETTERS}) (?:است|هست)"),
    FA_READ["attribute"],
)
#: Attributes with a field of their own (kept there, not among the attributes).
OWN_FIELDS = {"name": "name", "favourite food": "food", "job": "job", "occupation": "job", "profession": "job",
              "名字": "name", "اسم": "name", "نام": "name"}
#: What a value must not start with: "my cat is called Pistachio" names a pet; Chinese/Persian question words ask.
NOT_VALUES = re.compile(r"^(?:called|named|什么|谁|哪|چی|چه|کی|کجا)", re.I)
ALLERGY_PATTERNS = (
    re.compile(r"\b(?:i(?:'m| am)|the user is) allergic to ([^.!?,;]+)", re.I),
    re.compile(r"我对(.+?)过敏"),
    re.compile(rf"من به ((?:{LETTERS} ){{0,3}}?{LETTERS}) حساسیت دارم"),
    FA_READ["allergy"],
)
DISLIKE_PATTERNS = (
    re.compile(r"\b(?:i (?:don't|do not|really don't) (?:like|love)|i (?:dislike|hate)|the user (?:doesn't|does not) like) ([^.!?,;]+)", re.I),
    re.compile(r"我不(?:太)?喜欢([^，。！？,.!?]+)"),
    re.compile(rf"من ((?:{LETTERS} ){{0,3}}?{LETTERS}) را دوست ندارم"),
    FA_READ["dislike"],
)
OTHER_LIKE_PATTERNS = (
    re.compile(r"(?<!不)(?<!不太)我(?:很|非常|也)?喜欢([^，。！？,.!?]+)"),
    re.compile(rf"من ((?:{LETTERS} ){{0,3}}?{LETTERS}) را دوست دارم"),
    FA_READ["like"],
)
ORIGIN_PATTERNS = (
    re.compile(r"\b(?:i(?:'m| am)|the user is) from ((?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*))*)", re.I),
    re.compile(r"我来自([^，。！？,.!?]+)"),
    re.compile(rf"من اهل ({LETTERS}) (?:هستم|ام)"),
    re.compile(r"\bthe user is from ([^\x00-\x7f][^.!?]*)", re.I),
    FA_READ["origin"],
)
AGE_PATTERN = re.compile(r"\b(?:i(?:'m| am)|the user is) (\d{1,3})(?: years old)?\s*(?:[,.!?]|$)", re.I)
AGE_PATTERNS = (AGE_PATTERN, FA_READ["age"])
TRAIT_PATTERNS = (
    re.compile(r"\b(?:i(?:'m| am)|the user is) (an? [a-z-]+(?: [a-z-]+)?)\s*(?:[,.!?]|$)", re.I),
    re.compile(r"\b(?:i(?:'m| am)|the user is) ([a-z-]+)\s*(?:[,.!?]|$)", re.I),
    re.compile(r"我是([\u4e00-\u9fff]{2,4})(?:[，。！？,.!?]|$)"),
    re.compile(rf"(?:^|\s)من ({LETTERS}) (?:هستم|ام)"),
    FA_READ["trait"],
)
#: Chinese and Persian places, as stated and as a summary restates them ("The user lives in 上海.").
OTHER_CITY_PATTERNS = (re.compile(r"我住在([^，。！？,.!?]+)"), re.compile(rf"من در ({LETTERS}) زندگی می"),
                       re.compile(r"\bthe user lives in ([^\x00-\x7f][^.!?]*)", re.I), FA_READ["city"])

#: A question recorded in a summary ("The user asked: what's my name?", "کاربر پرسید: اسم من چیست؟").
ASKED_PREFIX = re.compile(r"^(?:the user asked|کاربر پرسید):\s*", re.I)


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
    attributes: dict[str, str] = field(default_factory=dict)  #: "favourite colour" -> "green"
    dislikes: list[str] = field(default_factory=list)
    allergies: list[str] = field(default_factory=list)
    traits: list[str] = field(default_factory=list)  #: "vegetarian", "a teacher"
    origin: str | None = None
    age: str | None = None


def readable_text(message: BaseMessage) -> str:
    """The text the rules read in a message: its ``.text``, typographic apostrophes made plain.

    (Not :func:`course_utils.window.tokens.message_text`, which is what a tokenizer
    reads: content blocks and tool calls too.)
    """
    # Summary requests from SummarizationMiddleware wrap each message in XML tags (lesson 06).
    return without_message_tags(message.text).replace("\u2019", "'")


def sentences(text: str) -> list[str]:
    """Split text after . ! or ? (and Chinese 。！？, Persian ؟) ("hi! I'm bob" -> ["hi!", "I'm bob"])."""
    return [s for s in re.split(r"(?<=[.!?؟])\s+|(?<=[。！？])\s*", text.strip()) if s]


def is_question(sentence: str) -> bool:
    """A sentence ending in ?, ؟ or ？."""
    return sentence.rstrip().endswith(("?", "؟", "？"))


def stated_name(sentence: str) -> str | None:
    """The name a sentence states, if any ("I'm bob" -> "Bob", "我叫小明" -> "小明")."""
    if is_question(sentence):
        return None
    for pattern in NAME_PATTERNS:
        match = pattern.search(sentence)
        if match and match.group(1).lower() not in NOT_NAMES:
            word = match.group(1)
            return word[0].upper() + word[1:]
    return None


def attribute_key(words: str) -> str:
    """An attribute's name as stored: lower case, British spelling ("Favorite Color" -> "favourite colour")."""
    key = " ".join(words.lower().split())
    return re.sub(r"\bcolor\b", "colour", re.sub(r"\bfavorite\b", "favourite", key))


def _first(patterns, sentence: str) -> str | None:
    for pattern in patterns:
        if match := pattern.search(sentence):
            return match.group(1).strip().rstrip(".!?؟。！？ ")
    return None


def stated_attributes(sentence: str) -> dict[str, str]:
    """The "my X is Y" facts of a (non-question) sentence, without those with a field of their own.

    >>> stated_attributes("My favorite color is green, I think.")
    {'favourite colour': 'green'}
    >>> stated_attributes("My sister's birthday is coming up.")
    {}
    """
    if is_question(sentence):
        return {}
    found = {}
    for pattern in ATTRIBUTE_PATTERNS:
        for match in pattern.finditer(sentence):
            key, value = attribute_key(match.group(1)), match.group(2).strip()
            if "'s" in key or NOT_VALUES.match(value) or len(value.split()) > 3 or key.split()[0] in ("name", "user"):
                continue
            if key.startswith("的"):
                key = key[1:]
            found[key] = value
    return found


def stated_trait(sentence: str) -> str | None:
    """What "I'm Y" says the user is, when it is not a name ("vegetarian", "a nurse", "学生")."""
    if is_question(sentence):
        return None
    for pattern in TRAIT_PATTERNS:
        if match := pattern.search(sentence):
            trait = match.group(1)
            words = trait.lower().split()
            if words[0] in ("a", "an") and words[-1] not in NOT_NAMES or trait.lower() in TRAITS:
                return trait
    return None


def stated_like(sentence: str) -> str | None:
    """The thing a (non-question) sentence says is liked ("the celtics")."""
    if is_question(sentence):
        return None
    match = LIKE_PATTERN.search(sentence)
    if not match:
        return _first(OTHER_LIKE_PATTERNS, sentence) if not _first(DISLIKE_PATTERNS, sentence) else None
    thing = match.group(1).strip().rstrip(".!? ")
    if not thing or thing.split()[0].lower() in NOT_THINGS:
        return None
    return thing


def _stated_fields(sentence: str) -> dict[str, Any]:
    """The city, pet, favourite food and job a sentence states in its own words (English, else a Persian summary's)."""
    found: dict[str, Any] = {}
    if match := CITY_PATTERN.search(sentence):
        found["city"] = match.group(1)
    elif city := _first(OTHER_CITY_PATTERNS, sentence):
        found["city"] = city
    if match := PET_PATTERN.search(sentence):
        found["pet"] = (match.group(1).lower(), match.group(2))
    elif match := FA_READ["pet"].search(sentence):  # a Persian summary's "گربهٔ کاربر Pistachio نام دارد."
        found["pet"] = (FA_PET_KIND_NAMES[match.group(1)], match.group(2))
    if match := FOOD_PATTERN.search(sentence):
        found["food"] = match.group(1).strip()
    elif food := _first([FA_READ["food"]], sentence):
        found["food"] = food
    if match := JOB_PATTERN.search(sentence):
        found["job"] = match.group(1).strip()
    elif job := _first([FA_READ["job"]], sentence):
        found["job"] = job
    return found


def _stated_listed(sentence: str) -> dict[str, str]:
    """The allergy, dislike, origin and age a sentence states, those it states, in that order."""
    found = {}
    for key, patterns in (("allergy", ALLERGY_PATTERNS), ("dislike", DISLIKE_PATTERNS), ("origin", ORIGIN_PATTERNS),
                          ("age", AGE_PATTERNS)):
        if value := _first(patterns, sentence):
            found[key] = value
    return found


def stated_personal_facts(sentence: str) -> dict[str, Any]:
    """City, pet, favourite food and job a (non-question) sentence states.

    >>> stated_personal_facts("I also share my flat with a cat called Pistachio.")
    {'pet': ('cat', 'Pistachio')}
    """
    if is_question(sentence):
        return {}
    found = _stated_fields(sentence)
    for key, value in stated_attributes(sentence).items():
        if key in OWN_FIELDS:
            found.setdefault(OWN_FIELDS[key], value)
        else:
            found.setdefault("attributes", {})[key] = value
    found.update(_stated_listed(sentence))
    if (trait := stated_trait(sentence)) and trait != stated_name(sentence):
        found["trait"] = trait
    found.pop("name", None)  # a name is stated_name's
    return found


def read_facts(texts: Sequence[str]) -> Facts:
    """Collect the name (the last one stated), likes and questions, in order,
    and the last city, pet, favourite food and job stated."""
    facts = Facts()
    for text in texts:
        for sentence in sentences(text):
            facts.name = stated_name(sentence) or facts.name
            for key, value in stated_personal_facts(sentence).items():
                if key == "attributes":
                    facts.attributes.update(value)
                elif key in ("allergy", "dislike", "trait"):
                    _add(getattr(facts, {"allergy": "allergies", "dislike": "dislikes", "trait": "traits"}[key]), value)
                else:
                    setattr(facts, key, value)
            thing = stated_like(sentence)
            if thing:
                _add(facts.likes, thing)
            question = ASKED_PREFIX.sub("", sentence)
            if is_question(question) and question not in facts.questions:
                facts.questions.append(question)
    return facts


def _add(items: list[str], value: str) -> None:
    """Append a value once (case-insensitively)."""
    if value.lower() not in {item.lower() for item in items}:
        items.append(value)


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
