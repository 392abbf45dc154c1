"""The sentences a summary states facts in, in English and Persian, and how the Persian ones are read back.

The offline model's summary (:mod:`course_utils.model.summaries`) states one
fact per short sentence, in the language of the request: a request in
Persian ("گفتگوی بالا را خلاصه کن:") gets Persian sentences. Each kind of fact
has one sentence form per language; values keep the user's own words (a
Persian summary of an English chat says «کاربر در Valencia زندگی می‌کند.», as an
English summary of a Persian chat says "The user lives in تهران."), and
digits stay Latin (notebooks/fa/GLOSSARY.md).

=========  ===================================  =================================
kind       English                              Persian
=========  ===================================  =================================
name       The user's name is Bob.              اسم کاربر باب است.
city       The user lives in Valencia.          کاربر در تهران زندگی می‌کند.
pet        The user's cat is called Pistachio.  گربهٔ کاربر Pistachio نام دارد.
food       The user's favourite food is X.      X غذای مورد علاقهٔ کاربر است.
job        The user works as a nurse.           کاربر به‌عنوان nurse کار می‌کند.
attribute  The user's favourite colour is Y.    رنگ مورد علاقه کاربر سبز است.
allergy    The user is allergic to peanuts.     کاربر به بادام زمینی حساسیت دارد.
dislike    The user doesn't like olives.        کاربر زیتون را دوست ندارد.
origin     The user is from Spain.              کاربر اهل شیراز است.
age        The user is 34 years old.            کاربر 34 سال دارد.
trait      The user is vegetarian.              کاربر دانشجو است.
like       The user likes the Celtics.          کاربر قهوه را دوست دارد.
asked      The user asked: what's my name?      کاربر پرسید: اسم من چیست؟
=========  ===================================  =================================

The model must read back what it wrote: a later call sent only the summary
still knows the facts it kept. The English forms are read by the patterns of
:mod:`course_utils.model.facts` that also read the user's own words; the
Persian forms are read by :data:`FA_READ`, made from the same templates, so a
form and its pattern cannot drift apart. No two Persian forms match each
other's sentences (the food form puts the value first for that reason: "X
کاربر Y است" is the attribute form).

>>> summary_sentence("name", "fa", name="باب")
'اسم کاربر باب است.'
>>> summary_sentence("pet", "fa", animal="cat", pet="Pistachio")
'گربهٔ کاربر Pistachio نام دارد.'
>>> FA_READ["city"].search("کاربر در تهران زندگی می‌کند.").group(1)
'تهران'
"""

from __future__ import annotations

import re

#: The languages a summary is written in.
SUMMARY_LANGUAGES = ("en", "fa")

#: One sentence form per kind of fact and language (the table above).
SUMMARY_SENTENCES = {
    "en": {
        "name": "The user's name is {name}.",
        "city": "The user lives in {city}.",
        "pet": "The user's {animal} is called {pet}.",
        "food": "The user's favourite food is {food}.",
        "job": "The user works as a {job}.",
        "attribute": "The user's {key} is {value}.",
        "allergy": "The user is allergic to {allergy}.",
        "dislike": "The user doesn't like {thing}.",
        "origin": "The user is from {origin}.",
        "age": "The user is {age} years old.",
        "trait": "The user is {trait}.",
        "like": "The user likes {thing}.",
        "asked": "The user asked: {question}",
    },
    "fa": {
        "name": "اسم کاربر {name} است.",
        "city": "کاربر در {city} زندگی می\u200cکند.",
        "pet": "{animal} کاربر {pet} نام دارد.",
        "food": "{food} غذای مورد علاقهٔ کاربر است.",
        "job": "کاربر به\u200cعنوان {job} کار می\u200cکند.",
        "attribute": "{key} کاربر {value} است.",
        "allergy": "کاربر به {allergy} حساسیت دارد.",
        "dislike": "کاربر {thing} را دوست ندارد.",
        "origin": "کاربر اهل {origin} است.",
        "age": "کاربر {age} سال دارد.",
        "trait": "کاربر {trait} است.",
        "like": "کاربر {thing} را دوست دارد.",
        "asked": "کاربر پرسید: {question}",
    },
}

#: What a summary says when the user has stated nothing, by language.
NO_FACTS = {
    "en": "The user has not shared their name, likes or questions yet.",
    "fa": "کاربر هنوز اسم و علاقه\u200cهایش را نگفته و پرسشی نپرسیده است.",
}

#: The pets of facts.PET_KINDS in Persian, as they stand before "کاربر" (with the ezafe: گربهٔ).
FA_PET_KINDS = {
    "cat": "گربهٔ", "dog": "سگ", "rabbit": "خرگوش", "parrot": "طوطی", "hamster": "همستر",
    "tortoise": "لاک\u200cپشت", "horse": "اسب",
}  # fmt: skip
#: Back from Persian to the English kind the facts keep ("گربهٔ" -> "cat").
FA_PET_KIND_NAMES = {persian: english for english, persian in FA_PET_KINDS.items()}

#: What each field of a Persian form matches when it is read back.
_FIELD_PATTERNS = {
    "name": r"[^\W\d_]+",
    "animal": "|".join(map(re.escape, FA_PET_KINDS.values())),
    "pet": r"[^\s.!?؟]+",
    "food": r"[^.!?؟:]+?",
    "key": r"(?:[^\s.!?؟:،]+ ){0,3}[^\s.!?؟:،]+",
    "value": r"(?:[^\s.!?؟،]+ ){0,3}[^\s.!?؟،]+",  # an attribute's value has at most 3 words (facts.py)
    "age": r"\d{1,3}",
    "trait": r"(?:an? )?[^\s.!?؟]+(?: [^\s.!?؟]+)?",
    "question": r"[^?؟？\n]*[?؟？]",
}
_VALUE = r"[^.!?؟]+?"


def _read_pattern(template: str) -> re.Pattern[str]:
    """The pattern that reads a Persian form back: each {field} a group, in order."""
    pattern = r"(?:^|(?<=[\s:،]))"
    for literal, field in re.findall(r"([^{]*)(?:\{(\w+)\})?", template):
        if literal.endswith("."):
            pattern += re.escape(literal[:-1]) + r"\s*(?:[.!]|$)"
        else:
            pattern += re.escape(literal)
        if field:
            pattern += f"({_FIELD_PATTERNS.get(field, _VALUE)})"
    return re.compile(pattern)


#: The Persian forms as patterns, by kind: group 1 (and 2 for pet and attribute) holds the values.
FA_READ = {kind: _read_pattern(template) for kind, template in SUMMARY_SENTENCES["fa"].items()}


def summary_sentence(kind: str, language: str = "en", /, **fields: str) -> str:
    """The sentence that states one fact of ``kind`` in ``language`` ("en" or "fa").

    ``kind`` is a row of the table above; ``fields`` fill its form (a pet's
    ``animal`` is the English word, "cat", in both languages).

    >>> summary_sentence("like", "en", thing="the Celtics")
    'The user likes the Celtics.'
    >>> summary_sentence("like", "fa", thing="قهوه")
    'کاربر قهوه را دوست دارد.'
    """
    if language not in SUMMARY_SENTENCES:
        raise ValueError(f"language must be one of {SUMMARY_LANGUAGES}, got {language!r}")
    forms = SUMMARY_SENTENCES[language]
    if kind not in forms:
        raise ValueError(f"kind must be one of {tuple(forms)}, got {kind!r}")
    if language == "fa" and kind == "pet":
        fields = {**fields, "animal": FA_PET_KINDS[fields["animal"]]}
    return forms[kind].format(**fields)


__all__ = [
    "FA_PET_KINDS",
    "FA_PET_KIND_NAMES",
    "FA_READ",
    "NO_FACTS",
    "SUMMARY_LANGUAGES",
    "SUMMARY_SENTENCES",
    "summary_sentence",
]
