"""The "why" judge: reads what a written reason *claims*, not which words it uses.

A reason question ("say why", in English, Persian or Chinese) is judged
against a :class:`Claim`: the relations a correct reason asserts, the
reversed relations a wrong one asserts, and the conditions they hold under.
The judge is small, documented and deterministic: word lists per language,
clauses, and nearest pairing; no model, no network.

How a reason is read
--------------------

1. **Language.** Persian letters, Chinese characters or English words decide
   the language of the reason, and so of the feedback (:func:`language_of`).
   A reason in none of the three is left for the teacher ("needs review").
2. **A sentence, not a bag of words.** A sentence has function words ("the",
   "so", "که", "的" ...) and does not repeat itself; "banana newest oldest
   dropped" and "first first first latest" are lists, and fail.
3. **Clauses.** The text is cut into clauses at full stops, semicolons and
   connectives ("so", "but", "because", "ولی", "所以" ...). A clause may set a
   condition (:attr:`Claim.conditions`, e.g. "without a cap"), which later
   clauses inherit until another is named.
4. **Terms and pairs.** In a clause, every occurrence of a :class:`Term` is
   found. A term is a *predicate* ("keeps", "drops", "is big") or a *thing*
   ("the newest messages", "the state"). Each predicate pairs with the
   nearest thing in its clause (or, in a clause naming no thing, the last
   thing of the clause before: "clearing *them*"). A negation near a
   predicate ("never dropped", "حذف نمی‌شود", "没有丢掉") turns it into its
   opposite (:attr:`Term.opposite`): "is never dropped" is read as "is kept".
5. **Relations.** A :class:`Relation` holds when one of its alternatives is
   found: a (predicate, thing) pair, or a single term, in a clause under an
   allowed condition.

The verdict (:func:`judge`) is

- **correct** when every required relation holds and no reversed one does;
- **wrong** for a bag of words, a reversed relation (with what it reversed),
  or a missing relation (with a nudge that does not give the answer away);
- **needs review** when the judge cannot be confident: a language it does
  not read; a reason that asserts both the right relation and its reverse;
  or one that names the thing each missing relation is about ("the test
  results") but with no predicate the judge knows. A teacher reads those;
  they are never "correct".

Every message is in the reason's language.

>>> claim = Claim(
...     "03 q4",
...     relations=(Relation("lost", ((DROP, NEWEST),), {"en": "say which messages it loses",
...                 "fa": "بگویید کدام پیام‌ها از دست می‌روند", "zh": "说出它丢掉了哪些消息"}),),
...     reversed=(Reversal(((KEEP, NEWEST),), {"en": "that it keeps the newest messages",
...               "fa": "که جدیدترین پیام‌ها را نگه می‌دارد", "zh": "它保留最新的消息"}),),
... )
>>> judge(claim, "It drops the newest messages, so the latest question is lost.").status
'correct'
>>> judge(claim, "It keeps the newest messages, so the latest question is never dropped.").status
'wrong'
>>> judge(claim, "banana newest oldest dropped latest question purple").bag_of_words
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

LANGUAGES = ("en", "fa", "zh")

# --- terms -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """A concept, recognised by words in English (``en``), Persian (``fa``) and Chinese (``zh``).

    English words match at the start of a word ("drop" matches "drops" and
    "dropped", not "raindrop"); a word written ``"=u"`` matches the whole word
    only. Persian and Chinese words match anywhere (Chinese has no spaces,
    Persian joins suffixes). ``predicate`` says whether the term is said *of*
    something ("keeps", "is big") or is a thing ("the state"). ``opposite``
    names the term a negation turns it into.

    >>> Term("drop", en=("drop", "lose"), zh=("丢",)).spans("the newest messages are dropped", "en")
    [(24, 31)]
    """

    name: str
    en: tuple[str, ...] = ()
    fa: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()
    predicate: bool = False
    opposite: str | None = None
    #: A predicate said of the thing before it ("the files *are big*", "tool results *stay with their calls*").
    after_thing: bool = False

    def __post_init__(self):
        if not re.fullmatch(r"[a-z_]+", self.name):
            raise ValueError(f"name must be lower-case letters and _, got {self.name!r}")
        for lang in LANGUAGES:
            words = getattr(self, lang)
            if isinstance(words, str) or not all(isinstance(w, str) and w.strip() and w == w.lower() for w in words):
                raise ValueError(f"{lang} must be a tuple of non-empty lower-case strings, got {words!r}")

    def spans(self, text: str, lang: str) -> list[tuple[int, int]]:
        """Where the term occurs in ``text`` (normalised, see :func:`normalise`), as (start, end) pairs."""
        found = []
        for word in getattr(self, lang):
            if lang == "en":
                exact = word.startswith("=")
                core = re.escape(word.lstrip("="))
                pattern = r"(?<![a-z0-9_])" + core + (r"(?![a-z0-9_])" if exact else r"[a-z']*")
                found += [m.span() for m in re.finditer(pattern, text)]
            else:
                found += [m.span() for m in re.finditer(re.escape(normalise(word)), text)]
        return sorted(set(found))


# The verbs most claims are made of: what a step keeps, and what it loses.
KEEP = Term("keep", predicate=True, opposite="drop",
            en=("keep", "kept", "retain", "preserve", "hold", "still has", "still have", "still in", "still there",
                "contain", "=sees", "=see", "=saw", "receive", "=gets", "=get", "=got", "stays", "stay", "survive",
                "remain"),
            fa=("نگه", "حفظ", "می مان", "باقی", "دارد", "می بیند", "دریافت", "هنوز در"),
            zh=("保留", "保存", "留下", "保持", "看到", "收到", "包含", "含有", "还有", "还在", "仍在", "留着", "看得到"))
DROP = Term("drop", predicate=True, opposite="keep",
            en=("drop", "lose", "lost", "cut", "discard", "remove", "delete", "omit", "left out", "leave out",
                "leaves out", "throw", "thrown", "miss", "forget", "forgot", "gone", "erase"),
            fa=("حذف", "دور ریخت", "از دست", "پاک", "کنار گذاشت", "کنار می", "جا می‌افت", "فراموش", "نمی‌بیند",
                "نمی بیند", "نمی‌رسد"),
            zh=("丢", "删", "去掉", "移除", "丢弃", "舍弃", "失去", "看不到", "忘", "截掉", "砍掉", "扔"))
NEWEST = Term("newest",
              en=("newest", "latest", "most recent", "recent", "new question", "new message", "last message",
                  "last question", "current question", "end of the conversation", "last messages", "new ones",
                  "newer", "last turn", "latest turn", "user's question", "user's latest", "question the user"),
              fa=("جدید", "آخرین", "اخیر", "تازه", "سوال کاربر", "پرسش کاربر", "انتهای گفتگو", "پایان گفتگو"),
              zh=("最新", "最近", "最后", "新的", "当前问题", "用户的问题", "结尾"))
OLDEST = Term("oldest",
              en=("oldest", "older", "earliest", "old message", "old ones", "beginning", "start of the conversation",
                  "first messages", "the start", "first turns", "first few"),
              fa=("قدیمی", "اولین", "ابتدای", "اول گفتگو", "آغاز", "شروع گفتگو"),
              zh=("最早", "最旧", "旧的", "开头", "前面的", "最开始", "早期"))

# --- reading a text ----------------------------------------------------------------------------

_FA = re.compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]")
_ZH = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def normalise(text: str) -> str:
    """Lower case, one space between words, straight quotes, Persian yeh/kaf and no zero-width joiners.

    >>> normalise("It  KEEPS the “newest”")
    'it keeps the "newest"'
    """
    text = text.lower().replace("\u200c", " ").replace("\u200f", "").replace("\u200e", "")
    text = text.replace("ي", "ی").replace("ك", "ک").replace("’", "'").replace("‘", "'")
    text = text.replace("“", '"').replace("”", '"')
    return " ".join(text.split())


def language_of(text: str) -> str | None:
    """"en", "fa" or "zh" for the script most of a reason is written in, or None (another language).

    >>> language_of("它只保留最早的消息"), language_of("آخرین پیام حذف می‌شود"), language_of("It drops them")
    ('zh', 'fa', 'en')
    >>> language_of("Il garde les messages les plus anciens") is None
    True
    """
    fa, zh = len(_FA.findall(text)), len(_ZH.findall(text))
    if max(fa, zh) >= 3:
        return "fa" if fa > zh else "zh"
    words = set(re.findall(r"[a-z']+", text.lower()))
    if not words or (words & _FOREIGN_WORDS and not words & _FUNCTION_WORDS["en"]):
        return None
    return "en"


#: Common short words of other languages written in Latin letters (French, Spanish, German, Italian, Dutch, ...):
#: a reason made of these and no English one is not read by the judge.
_FOREIGN_WORDS = frozenset("le la les des est et une du au der die das und ist nicht el los las es y que una "
                           "il lo gli che non het een van zijn".split())

_FUNCTION_WORDS = {
    "en": frozenset("""the a an it its is are was were be been so because of to and in on each every with without
        only not no that this these those their they them which what when once than then by for from at as can
        cannot does do did has have had will would into still but or all any more less after before if while
        there also we i you one just how why who""".split()),
    "fa": frozenset("و که را به از در است هر با بدون اگر چون پس این آن ولی اما تا هم فقط نه یک شود کند هست "
                    "نیست دارد بود برای همه".split()),
    "zh": frozenset("的 了 是 在 会 把 被 所以 因为 就 和 但 不 每 只 都 也 而 它 这 那 要 能 让 给 对 从 还 着 过 如果 没有".split()),
}

# Where a clause ends: full stops, semicolons, and connectives that start a new claim.
_CLAUSE_BREAK = {
    "en": re.compile(r"[.;!?]+(?=\s|$)|,\s+and\b|\s*[:(),]?\s*\b(?:so|but|while|whereas|because|since|which|"
                     r"although|though|unlike|however|therefore|hence|thus|meaning|whereas)\b"),
    "fa": re.compile(r"[.;!?؛؟]+|\s(?:ولی|اما|چون|زیرا|پس|بنابراین|در حالی که|درحالی‌که|که)\s"),
    "zh": re.compile(r"[。；！？;!?]+|[，,]?\s*(?:所以|但是|但|而且|而|因为|因此|然而|不过|因而|于是)"),
}

_NEGATION = {
    "en": re.compile(r"(?<![a-z])(?:not|never|no longer|no|n't|cannot|nothing|neither|nor|without|avoids?|"
                     r"avoiding|prevents?|preventing)(?![a-z])|n't(?![a-z])"),
    "fa": re.compile(r"(?:^|\s)(?:نمی|نه|نیست|ندارد|نشد|نشده|نخواهد|هرگز|هیچ|جلوگیری|ن(?=[\u0600-\u06ff]{2,}د(?:\s|$)))"),
    "zh": re.compile(r"不|没|未|别|无法|从不|避免|防止"),
}
#: Characters before (English, Chinese) or around (Persian, whose verbs end the clause) a predicate searched for
#: a negation.
_NEGATION_WINDOW = {"en": (36, 0), "fa": (10, 16), "zh": (8, 0)}


def clauses(text: str, lang: str) -> list[str]:
    """The clauses of a normalised text, in order (empty ones left out).

    >>> clauses("it keeps the oldest, so the newest are dropped; start_on fixes it", "en")
    ['it keeps the oldest', 'the newest are dropped', 'start_on fixes it']
    """
    return [c.strip(" ,،，") for c in _CLAUSE_BREAK[lang].split(text) if c and c.strip(" ,،，")]


def bag_of_words(text: str, lang: str) -> bool:
    """True when a text is a list of words rather than a sentence: no function word, or words said again and again.

    >>> bag_of_words("banana newest oldest dropped latest question purple", "en")
    True
    >>> bag_of_words("first first first latest latest", "en"), bag_of_words("it drops the newest", "en")
    (True, False)
    """
    if lang == "zh":  # no spaces between words: a list is short pieces split by spaces or commas
        pieces = [p for p in re.split(r"[\s,，、;；]+", text) if p]
        short = len(pieces) >= 3 and all(len(p) <= 4 for p in pieces)
        return (short and not any(w in text for w in _FUNCTION_WORDS["zh"])) or len(set(pieces)) < len(pieces) / 2
    words = re.findall(r"[a-z']+", text) if lang == "en" else re.findall(r"[\u0600-\u06ff]+", text)
    if not words:
        return True
    function = _FUNCTION_WORDS[lang]
    has_function = any(w in function for w in words) or (lang == "fa" and any(w.startswith("می") for w in words))
    content = [w for w in words if w not in function]
    repeated = bool(content) and any(content.count(w) >= 3 and content.count(w) >= len(words) / 4 for w in content)
    few_kinds = len(words) >= 4 and len(set(words)) / len(words) <= 0.5
    return not has_function or repeated or few_kinds


# --- claims ------------------------------------------------------------------------------------

#: One way a relation shows: a (predicate, thing) pair, or a single term.
Alternative = tuple[Term, ...]


@dataclass(frozen=True)
class Relation:
    """What a correct reason asserts, in one of several ways (``alternatives``), under ``conditions``.

    ``nudge`` says, in each language, what to address when it is missing,
    without giving the answer away. ``conditions`` are names of
    :attr:`Claim.conditions` a clause may be under for the relation to count
    (``None`` in it: a clause under no condition counts too); empty: any.
    """

    name: str
    alternatives: tuple[Alternative, ...]
    nudge: Mapping[str, str]
    conditions: tuple[str | None, ...] = ()

    def __post_init__(self):
        if not self.alternatives or not all(1 <= len(a) <= 2 for a in self.alternatives):
            raise ValueError(f"alternatives must be terms or (predicate, thing) pairs, got {self.alternatives!r}")
        for alternative in self.alternatives:
            if len(alternative) == 2 and not (alternative[0].predicate and not alternative[1].predicate):
                raise ValueError(f"a pair is (predicate, thing), got {[t.name for t in alternative]}")
        if set(self.nudge) != set(LANGUAGES):
            raise ValueError(f"nudge needs a text for each of {LANGUAGES}, got {sorted(self.nudge)}")


@dataclass(frozen=True)
class Reversal:
    """A relation a wrong reason asserts (the truth reversed), and how to say, per language, what it asserted."""

    alternatives: tuple[Alternative, ...]
    says: Mapping[str, str]
    conditions: tuple[str | None, ...] = ()

    def __post_init__(self):
        Relation("reversal", self.alternatives, self.says, self.conditions)  # the same rules


@dataclass(frozen=True)
class Claim:
    """What the reason of one question must assert (``relations``) and must not (``reversed``).

    ``conditions`` are terms that put a clause under a condition ("without a
    cap", "with a cap"), tried in order; ``ignore`` are terms naming
    something else (the other strategy): what follows them is not judged
    until ``subject`` (the thing the question is about) is named again.
    """

    question: str
    relations: tuple[Relation, ...]
    reversed: tuple[Reversal, ...] = ()
    conditions: tuple[Term, ...] = ()
    ignore: tuple[Term, ...] = ()
    subject: Term | None = None

    @property
    def terms(self) -> tuple[Term, ...]:
        seen: dict[str, Term] = {}
        for rule in (*self.relations, *self.reversed):
            for alternative in rule.alternatives:
                for term in alternative:
                    seen.setdefault(term.name, term)
        return tuple(seen.values())


@dataclass(frozen=True)
class Found:
    """One term (or pair) read in a clause, after negations: ``("drop", "newest")`` or ``("quadratic",)``."""

    names: tuple[str, ...]
    condition: str | None
    clause: int


@dataclass(frozen=True)
class Verdict:
    """What the judge read in a reason, and what it says about it (in ``lang``)."""

    status: str  #: "correct", "wrong" or "needs review"
    lang: str  #: the language of the reason, and of ``message``
    message: str
    found: tuple[Found, ...] = ()
    missing: tuple[str, ...] = ()  #: names of the relations not found
    reversed: tuple[str, ...] = ()  #: what the reason asserts that is reversed, in ``lang``
    bag_of_words: bool = False
    details: Mapping[str, str] = field(default_factory=dict, compare=False)


# --- reading a reason --------------------------------------------------------------------------


def _negated(text: str, start: int, end: int, lang: str, taken: list[tuple[int, int]],
             predicates: list[tuple[int, int]] = ()) -> bool:
    """Whether a negation word stands near the predicate at ``start:end`` (and no other predicate in between)."""
    before, after = _NEGATION_WINDOW[lang]
    lo, hi = max(0, start - before), min(len(text), end + after)
    lo = max([lo, *(e for s, e in predicates if e <= start)])  # "loses nothing, and the tests stay": not "stay"
    hi = min([hi, *(s for s, e in predicates if s >= end)])
    window = list(text)
    for s, e in taken:  # words that belong to a term ("stops growing", "不再增长") are not negations
        for i in range(max(s, lo), min(e, hi)):
            window[i] = " "
    if lang == "fa":
        return bool(_NEGATION["fa"].search("".join(window[lo:start]) + " " + "".join(window[end:hi])))
    return bool(_NEGATION[lang].search("".join(window[lo:start])))


def _condition_spans(claim: Claim, clause: str, lang: str) -> list[tuple[int, str]]:
    """Where each condition is named in a clause, as (start, name), in order.

    Conditions are tried in order: a later one named within a few characters
    of an earlier one is part of it ("without a *cap*", "不*裁剪*") and left out.
    """
    spans: list[tuple[int, int, str]] = []
    for term in claim.conditions:
        for s, e in term.spans(clause, lang):
            if not any(s0 - 2 <= s <= e0 + 12 for s0, e0, _ in spans):
                spans.append((s, e, term.name))
    return sorted((s, name) for s, _, name in spans)


def _outermost(spans: list) -> list:
    """Spans not inside a longer span of another term of the same kind ("help" inside "cannot help")."""
    return [(s, e, t) for s, e, t in spans
            if not any(s0 <= s and e <= e0 and (e0 - s0) > (e - s) and t0 is not t and t0.predicate == t.predicate
                       for s0, e0, t0 in spans)]


def _thing_of(start: int, end: int, things: list, last_thing: str | None, lang: str,
              after: bool = False) -> str | None:
    """The thing a predicate at ``start:end`` is said of: the nearest thing in its clause.

    Persian puts the verb last (subject, object, verb), so there it is the
    nearest thing *before* the predicate, or else the last thing of the
    clause before ("... فایل‌ها را پاک کن چون بزرگ‌اند"); so is it for a
    predicate said of what comes before it (:attr:`Term.after_thing`). In a
    clause that names no thing, it is the last thing of the clause before
    ("clearing *them*").
    """
    if lang == "fa" or after:
        before = [x for x in things if x[0] < start]
        if before:
            return max(before, key=lambda x: x[0])[2].name
        if last_thing:
            return last_thing
    if not things:
        return last_thing
    return min(things, key=lambda x: (min(abs(x[0] - end), abs(start - x[1])), -x[0]))[2].name


def read(claim: Claim, text: str, lang: str) -> list[Found]:
    """Every term and (predicate, thing) pair in ``text``, clause by clause, with the condition it is under."""
    terms = {t.name: t for t in claim.terms}
    found: list[Found] = []
    condition: str | None = None
    last_thing: str | None = None
    ignoring = False
    for index, clause in enumerate(clauses(normalise(text), lang)):
        conditions = _condition_spans(claim, clause, lang)

        def under(position: int, inherited=condition) -> str | None:
            named = [name for start, name in conditions if start <= position]
            return named[-1] if named else inherited

        if conditions:
            condition = conditions[-1][1]
        spans = _outermost([(s, e, t) for t in terms.values() for s, e in t.spans(clause, lang)])
        events = sorted([(s, False) for term in claim.ignore for s, _ in term.spans(clause, lang)]
                        + ([(s, True) for s, _ in claim.subject.spans(clause, lang)] if claim.subject else []))
        taken = [(s, e) for s, e, _ in spans] + [span for term in claim.conditions for span in term.spans(clause, lang)]
        def ignored(position: int, was=ignoring) -> bool:
            said = [subject for start, subject in events if start <= position]
            return not said[-1] if said else was

        spans = [(s, e, t) for s, e, t in spans if not ignored(s)]
        ignoring = ignored(len(clause))
        things = [(s, e, t) for s, e, t in spans if not t.predicate]
        predicates = [(s, e) for s, e, t in spans if t.predicate]
        for s, e, term in spans:
            name = term.name
            if term.predicate and term.opposite and _negated(clause, s, e, lang, taken,
                                                             [p for p in predicates if p != (s, e)]):
                name = term.opposite
            found.append(Found((name,), under(s), index))
            if term.predicate:
                thing = _thing_of(s, e, things, last_thing, lang, term.after_thing)
                if thing:
                    found.append(Found((name, thing), under(s), index))
        if things:
            last_thing = max(things, key=lambda x: x[0])[2].name
    return found


def _holds(rule: Relation | Reversal, found: Sequence[Found]) -> bool:
    for alternative in rule.alternatives:
        names = tuple(t.name for t in alternative)
        for f in found:
            if f.names == names and (not rule.conditions or f.condition in rule.conditions):
                return True
    return False


# --- messages, in the learner's language ------------------------------------------------------

MESSAGES = {
    "en": {
        "missing": "your reason does not say why yet: {nudges}. Write it in your own words (English, Persian or "
                   "Chinese) and check again.",
        "bag": "your reason reads as a list of words, not a sentence. Write a sentence that links the ideas: "
               "{nudges}.",
        "reversed": "your reason says {says}, and that is the other way round. Read the question again: {nudges}.",
        "review": "a teacher will read this: the check cannot judge your reason with confidence ({why}). It is "
                  "kept for your teacher; you can also compare it with `solution()`.",
        "both": "it says the right thing and also {says}",
        "language": "it is not in English, Persian or Chinese",
        "unsure": "it names what the question is about, but not in a way the check can read",
        "join": "; ",
    },
    "fa": {
        "missing": "دلیل شما هنوز نمی‌گوید چرا: {nudges}. آن را با کلمات خودتان (فارسی، انگلیسی یا چینی) بنویسید و "
                   "دوباره بررسی کنید.",
        "bag": "دلیل شما فهرستی از کلمات است، نه یک جمله. جمله‌ای بنویسید که ایده‌ها را به هم ربط دهد: {nudges}.",
        "reversed": "دلیل شما می‌گوید {says}، و این برعکس است. سؤال را دوباره بخوانید: {nudges}.",
        "review": "معلم این را می‌خواند: بررسی خودکار نمی‌تواند با اطمینان درباره دلیل شما داوری کند ({why}). پاسخ "
                  "شما برای معلم نگه داشته می‌شود؛ می‌توانید آن را با `solution()` هم مقایسه کنید.",
        "both": "هم حرف درست را می‌گوید و هم {says}",
        "language": "به انگلیسی، فارسی یا چینی نیست",
        "unsure": "از موضوع سؤال نام می‌برد، ولی به شکلی که بررسی خودکار نمی‌تواند بخواند",
        "join": "؛ ",
    },
    "zh": {
        "missing": "你的理由还没有说明原因：{nudges}。请用自己的话（中文、英文或波斯语）写出来，然后再检查一次。",
        "bag": "你的理由像是一串词语，而不是一个句子。请写一句话把这些想法联系起来：{nudges}。",
        "reversed": "你的理由说{says}，这恰好说反了。请再读一遍题目：{nudges}。",
        "review": "老师会阅读这个答案：检查无法有把握地判断你的理由（{why}）。你的答案会留给老师；你也可以用 "
                  "`solution()` 对照一下。",
        "both": "它既说了正确的关系，又说{says}",
        "language": "它不是用英文、波斯语或中文写的",
        "unsure": "它提到了题目所问的内容，但检查无法读懂它是怎么说的",
        "join": "；",
    },
}


def _message(key: str, lang: str, **parts: str) -> str:
    return MESSAGES[lang][key].format(**parts)


def judge(claim: Claim, text: str) -> Verdict:
    """Judge a written reason against ``claim``; see the module's docstring for the rules.

    ``text`` should already be a reason of a few words (:func:`course_utils.checks.kinds.is_reason`).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    lang = language_of(text)
    if lang is None:
        why = MESSAGES["en"]["language"]
        return Verdict("needs review", "en", _message("review", "en", why=why), details={"why": why})
    join = MESSAGES[lang]["join"]
    every_nudge = join.join(r.nudge[lang] for r in claim.relations)
    if bag_of_words(normalise(text), lang):
        return Verdict("wrong", lang, _message("bag", lang, nudges=every_nudge), bag_of_words=True)
    found = read(claim, text, lang)
    reversed_ = tuple(r.says[lang] for r in claim.reversed if _holds(r, found))
    missing = tuple(r for r in claim.relations if not _holds(r, found))
    if reversed_ and not missing:
        why = _message("both", lang, says=join.join(reversed_))
        return Verdict("needs review", lang, _message("review", lang, why=why), tuple(found), (), reversed_,
                       details={"why": why})
    if reversed_:
        return Verdict("wrong", lang, _message("reversed", lang, says=join.join(reversed_), nudges=every_nudge),
                       tuple(found), tuple(r.name for r in missing), reversed_)
    named = {f.names[0] for f in found if len(f.names) == 1}
    unsure = [r for r in missing if any(len(a) == 2 and a[1].name in named for a in r.alternatives)]
    if missing and len(unsure) == len(missing):
        why = _message("unsure", lang)
        return Verdict("needs review", lang, _message("review", lang, why=why), tuple(found),
                       tuple(r.name for r in missing), details={"why": why})
    if missing:
        nudges = join.join(r.nudge[lang] for r in missing)
        return Verdict("wrong", lang, _message("missing", lang, nudges=nudges), tuple(found),
                       tuple(r.name for r in missing))
    return Verdict("correct", lang, "", tuple(found))
