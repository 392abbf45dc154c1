"""How the offline model answers questions about what the user told it, in English, Chinese and Persian.

:mod:`course_utils.model.facts` reads the facts from the messages a call was sent;
this module turns a question into an answer from them. The model knows a fact
only while a message stating it (or a summary restating it) is among the
messages it was sent: once trimmed or summarised away, the answer says so
truthfully ("I don't know your favourite colour: it is not in what I was
sent."), in the question's language.

The questions it understands (beside the name, team, likes, city, pet,
favourite food and job rules of :mod:`course_utils.model.chat`):

===================================  =======================  ==============================
English                              Chinese                  Persian
===================================  =======================  ==============================
What's my X? / Do you know my X?     我的X是什么？              X من چیست؟
What's my name?                      我叫什么名字？             اسم من چیست؟
What am I allergic to? / Am I        我对什么过敏？             من به چه چیزی حساسیت دارم؟
allergic to Y?
What don't I like? / Do I like Y?    我不喜欢什么？ 我喜欢什么？   من چه چیزی را دوست (ن)دارم؟
Where am I from? / How old am I?     我来自哪里？ 我住在哪里？     من اهل کجا هستم؟ من کجا زندگی می‌کنم؟
Am I vegetarian? / Who am I?         我是谁？
===================================  =======================  ==============================

Statements get a short acknowledgement in their language, an introduction a
greeting by name ("سلام باب! ..."), and anything else in Persian or Chinese
a fixed, honest echo (:data:`FALLBACKS`), as the English rules do.

>>> from course_utils.model.facts import read_facts
>>> fact_reply("اسم من چیست؟", read_facts(["سلام! من باب هستم"]))
'اسم شما باب است.'
>>> fact_reply("اسم من چیست؟", read_facts([]))
'اسم شما را نمی\u200cدانم: در پیام\u200cهایی که برایم فرستاده شد نیست.'
>>> fact_reply("What's my favourite colour?", read_facts([]))
"I don't know your favourite colour: it is not in what I was sent."
"""

from __future__ import annotations

import re

from course_utils.model.facts import (
    LETTERS,
    OWN_FIELDS,
    PET_KINDS,
    Facts,
    attribute_key,
    is_question,
    join_words,
    read_facts,
    sentences,
)
from course_utils.model.tool_calling import language_of

#: Why a fact is not known, by language: the truth, whether it was never said or trimmed away.
NOT_SENT = {
    "en": "I don't know {what}: it is not in what I was sent.",
    "zh": "我不知道{what}：我收到的消息里没有。",
    "fa": "{what} را نمی‌دانم: در پیام‌هایی که برایم فرستاده شد نیست.",
}
#: What the model says to anything else in Persian or Chinese (as the English fallback does).
FALLBACKS = {
    "zh": ("你问：“{echo}” 我是一个小型离线模型：只知道你告诉过我的事。", "你说：“{echo}” 请多告诉我一些！"),
    "fa": ("پرسیدید: «{echo}» من یک مدل آفلاین کوچک هستم: فقط چیزهایی را می‌دانم که به من گفته‌اید.",
           "گفتید: «{echo}» بیشتر بگویید!"),
}
FALLBACK_ECHO_CHARS = 60

# --- English questions ------------------------------------------------------------------

ASKS_ATTRIBUTE = re.compile(
    r"\b(?:what|when|where|who|which)(?:'s| is| are| was) my ((?:[a-z'-]+ ){0,2}[a-z'-]+)\s*\?*\s*$"
    r"|\bdo you (?:know|remember) my ((?:[a-z'-]+ ){0,2}[a-z'-]+)\s*\?*\s*$",
    re.I,
)
ASKS_ALLERGIES = re.compile(r"\bwhat (?:am i|i'm) allergic to\b|\bwhat are my allergies\b", re.I)
ASKS_IF_ALLERGIC = re.compile(r"\bam i allergic to ([^?]+)", re.I)
ASKS_DISLIKES = re.compile(r"\bwhat (?:don't|do not) i (?:like|love)\b|\bwhat do i (?:dislike|hate)\b", re.I)
ASKS_IF_LIKED = re.compile(r"\bdo i (?:like|love) ([^?]+)", re.I)
ASKS_ORIGIN = re.compile(r"\bwhere (?:am i|do i come) from\b", re.I)
ASKS_AGE = re.compile(r"\bhow old am i\b|\bwhat(?:'s| is) my age\b", re.I)
ASKS_WHO = re.compile(r"^\s*(?:who|what) am i\s*\?", re.I)
ASKS_IF_TRAIT = re.compile(r"\bam i (an? [a-z-]+|[a-z-]+)\s*\?", re.I)


def _you(items: list[str]) -> str:
    return join_words(items)


def _english_allergies(text: str, facts: Facts) -> str | None:
    """"Am I allergic to X?", "What am I allergic to?"; None for another question."""
    if match := ASKS_IF_ALLERGIC.search(text):
        thing = match.group(1).strip()
        if any(thing.lower() in a.lower() or a.lower() in thing.lower() for a in facts.allergies):
            return f"Yes: you told me you're allergic to {thing}."
        if facts.allergies:
            return f"You've only told me you're allergic to {_you(facts.allergies)}."
        return NOT_SENT["en"].format(what=f"whether you're allergic to {thing}")
    if ASKS_ALLERGIES.search(text):
        if facts.allergies:
            return f"You're allergic to {_you(facts.allergies)}."
        return NOT_SENT["en"].format(what="what you're allergic to")
    return None


def _english_likes(text: str, facts: Facts) -> str | None:
    """"What don't I like?", "Do I like X?"; None for another question."""
    if ASKS_DISLIKES.search(text):
        if facts.dislikes:
            return f"You don't like {_you(facts.dislikes)}."
        return NOT_SENT["en"].format(what="what you don't like")
    if match := ASKS_IF_LIKED.search(text):
        thing = match.group(1).strip()
        if any(thing.lower() == d.lower() for d in facts.dislikes):
            return f"No: you told me you don't like {thing}."
        if any(thing.lower() == like.lower() for like in facts.likes):
            return f"Yes: you told me you like {thing}."
        return NOT_SENT["en"].format(what=f"whether you like {thing}")
    return None


def _english_person(text: str, facts: Facts) -> str | None:
    """Where the user is from, their age, who they are, "Am I a nurse?"; None for another question."""
    if ASKS_ORIGIN.search(text):
        return f"You're from {facts.origin}." if facts.origin else NOT_SENT["en"].format(what="where you're from")
    if ASKS_AGE.search(text):
        return f"You're {facts.age}." if facts.age else NOT_SENT["en"].format(what="how old you are")
    if ASKS_WHO.search(text):
        known = ([f"your name is {facts.name}"] if facts.name else []) + [f"you're {t}" for t in facts.traits]
        return f"You told me {join_words(known)}." if known else NOT_SENT["en"].format(what="who you are")
    if (match := ASKS_IF_TRAIT.search(text)) and not ASKS_IF_ALLERGIC.search(text):
        trait = match.group(1)
        if any(trait.lower() == t.lower() for t in facts.traits):
            return f"Yes: you told me you're {trait}."
        return NOT_SENT["en"].format(what=f"whether you're {trait}")
    return None


def _english_attribute(text: str, facts: Facts) -> str | None:
    """"What's my X?" for an attribute stated as "my X is Y"; None for a field of its own, a pet's or someone's."""
    if match := ASKS_ATTRIBUTE.search(text):
        key = attribute_key(match.group(1) or match.group(2))
        if key in OWN_FIELDS or any(kind in key for kind in PET_KINDS) or "'s" in key:
            return None
        if key in facts.attributes:
            return f"Your {key} is {facts.attributes[key]}."
        return NOT_SENT["en"].format(what=f"your {key}")
    return None


def _english(text: str, facts: Facts) -> str | None:
    """The answer to an English question about the user from the facts, or None; the first kind that matches answers."""
    for reply in (_english_allergies, _english_likes, _english_person, _english_attribute):
        answer = reply(text, facts)
        if answer is not None:
            return answer
    return None


def _english_statement(text: str) -> str | None:
    """A short acknowledgement of a fact stated in a form only this module's rules read."""
    stated = read_facts([text])
    said = [f"your {key} is {value}" for key, value in stated.attributes.items()]
    said += [f"you're allergic to {a}" for a in stated.allergies] + [f"you don't like {d}" for d in stated.dislikes]
    said += [f"you're from {stated.origin}"] if stated.origin else []
    said += [f"you're {stated.age}"] if stated.age else []
    said += [f"you're {t}" for t in stated.traits]
    return f"Got it: {join_words(said)}." if said else None


# --- Chinese ------------------------------------------------------------------------------

ZH_ASKS_NAME = re.compile(r"我叫什么|我的名字(?:是|叫)什么|我是谁")
ZH_ASKS_ATTRIBUTE = re.compile(r"我(?:的)?((?:最喜欢的)?[\u4e00-\u9fff]{1,4}?)(?:是|叫)什么")
ZH_ASKS = {
    "city": re.compile(r"我住在哪"),
    "dislikes": re.compile(r"我不喜欢什么"),
    "likes": re.compile(r"(?<!不)我喜欢什么"),
    "allergies": re.compile(r"我对什么过敏"),
    "origin": re.compile(r"我(?:来自|是)哪"),
}


def _chinese(text: str, facts: Facts) -> str | None:
    if ZH_ASKS_NAME.search(text):
        return f"你叫{facts.name}。" if facts.name else NOT_SENT["zh"].format(what="你的名字")
    if ZH_ASKS["city"].search(text):
        return f"你住在{facts.city}。" if facts.city else NOT_SENT["zh"].format(what="你住在哪里")
    for field_, ask, answer, what in (
        ("dislikes", ZH_ASKS["dislikes"], "你不喜欢{}。", "你不喜欢什么"),
        ("likes", ZH_ASKS["likes"], "你喜欢{}。", "你喜欢什么"),
        ("allergies", ZH_ASKS["allergies"], "你对{}过敏。", "你对什么过敏"),
    ):
        if ask.search(text):
            items = getattr(facts, field_)
            return answer.format("、".join(items)) if items else NOT_SENT["zh"].format(what=what)
    if ZH_ASKS["origin"].search(text):
        return f"你来自{facts.origin}。" if facts.origin else NOT_SENT["zh"].format(what="你来自哪里")
    if match := ZH_ASKS_ATTRIBUTE.search(text):
        key = match.group(1).removeprefix("的")
        you = "你" if key.startswith("最") else "你的"
        if key in facts.attributes:
            return f"{you}{key}是{facts.attributes[key]}。"
        return NOT_SENT["zh"].format(what=f"{you}{key}")
    return None


# --- Persian -------------------------------------------------------------------------------

WHAT_FA = r"(?:چیست|چیه|چه است|چی است|چه بود)"
FA_ASKS_NAME = re.compile(rf"(?:اسم|نام) من {WHAT_FA}|(?:اسمم|نامم) {WHAT_FA}|من (?:کی|چه کسی) هستم")
FA_ASKS_ATTRIBUTE = re.compile(rf"((?:{LETTERS} ){{0,3}}{LETTERS}) من {WHAT_FA}")
FA_ASKS = {
    "city": re.compile(r"من کجا زندگی می"),
    "dislikes": re.compile(r"چه (?:چیزی|چیزهایی)(?: را)? دوست ندارم"),
    "likes": re.compile(r"چه (?:چیزی|چیزهایی)(?: را)? دوست دارم"),
    "allergies": re.compile(r"به چه (?:چیزی|چیزهایی)? ?حساسیت دارم"),
    "origin": re.compile(r"من اهل کجا"),
}


def _persian(text: str, facts: Facts) -> str | None:
    if FA_ASKS_NAME.search(text):
        return f"اسم شما {facts.name} است." if facts.name else NOT_SENT["fa"].format(what="اسم شما")
    if FA_ASKS["city"].search(text):
        return f"شما در {facts.city} زندگی می‌کنید." if facts.city else NOT_SENT["fa"].format(what="محل زندگی شما")
    for field_, answer, what in (
        ("dislikes", "شما {} را دوست ندارید.", "چیزهایی که دوست ندارید"),
        ("likes", "شما {} را دوست دارید.", "چیزهایی که دوست دارید"),
        ("allergies", "شما به {} حساسیت دارید.", "حساسیت‌های شما"),
    ):
        if FA_ASKS[field_].search(text):
            items = getattr(facts, field_)
            return answer.format(" و ".join(items)) if items else NOT_SENT["fa"].format(what=what)
    if FA_ASKS["origin"].search(text):
        return f"شما اهل {facts.origin} هستید." if facts.origin else NOT_SENT["fa"].format(what="این که اهل کجا هستید")
    if match := FA_ASKS_ATTRIBUTE.search(text):
        key = match.group(1)
        if key in facts.attributes:
            return f"{key} شما {facts.attributes[key]} است."
        return NOT_SENT["fa"].format(what=f"{key} شما")
    return None


# --- statements, greetings and the fallback in Chinese and Persian ---------------------------

GREETINGS = {"zh": re.compile(r"^\s*(?:你好|您好|嗨)"), "fa": re.compile(r"^\s*(?:سلام|درود)")}
INTRODUCTIONS = {"zh": "你好，{name}！很高兴认识你。有什么可以帮你的？", "fa": "سلام {name}! از آشنایی با شما خوشحالم. چه کمکی از من برمی‌آید؟"}
GREETING_REPLIES = {"zh": "你好！有什么可以帮你的？", "fa": "سلام! چه کمکی از من برمی‌آید؟"}
NOTED = {"zh": "好的，我知道了。", "fa": "باشه، متوجه شدم."}


def _other_statement(text: str, language: str) -> str | None:
    stated = read_facts([text])
    if stated.name:
        return INTRODUCTIONS[language].format(name=stated.name)
    if any((stated.attributes, stated.likes, stated.dislikes, stated.allergies, stated.city, stated.origin, stated.traits)):
        return NOTED[language]
    if GREETINGS[language].search(text):
        return GREETING_REPLIES[language]
    return None


def other_fallback(text: str, language: str) -> str:
    """The fixed, honest reply to a Persian or Chinese message no rule answers."""
    echo = text if len(text) <= FALLBACK_ECHO_CHARS else text[: FALLBACK_ECHO_CHARS - 3].rstrip() + "..."
    asked, said = FALLBACKS[language]
    return (asked if is_question(text) else said).format(echo=echo)


def fact_reply(text: str, facts: Facts) -> str | None:
    """The answer to a question about a stated fact, or an acknowledgement of one, or None.

    English questions and statements first go through the chat rules (name,
    likes, city, ...); a Persian or Chinese text is answered here entirely
    (questions in every sentence, then statements), in its own language.
    """
    language = language_of(text)
    if language == "en":
        return _english(text, facts) or (None if is_question(text) else _english_statement(text))
    ask = _persian if language == "fa" else _chinese
    for sentence in reversed(sentences(text)):
        if reply := ask(sentence, facts):
            return reply
    return _other_statement(text, language)
