"""The kinds of question every exercise uses: a number, a choice with a reason, a written reason,
and conversations generated inside a check (seeded, so the feedback is the same on every run).

A multiple-choice question is one call of :func:`choice_question`.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.checks.machinery import CheckResult, Exercise, Question, describe


def _grade_number(q: Question, value: Any, name: str, expected: int, known: Mapping[int, str], general: str,
                  praise: str) -> CheckResult:
    """A number answer: correct, a known mistake with its hint, or a general nudge."""
    value = q.as_int(value, name)
    if value == expected:
        return q.correct(praise)
    if value in known:
        return q.wrong(f"{value} is not it: {known[value]}")
    return q.wrong(f"{value} is not it. {general}")


def _letter(value: Any) -> str | None:
    if isinstance(value, str):
        match = re.fullmatch(r"\s*\(?([A-Za-z])[).]?\s*", value)
        if match:
            return match.group(1).lower()
    return None


#: A written reason ("why") needs at least this many words ...
REASON_WORDS = 3
#: ... or, in a script written without spaces between words (Chinese, Japanese, Thai, ...), this many characters.
REASON_UNSPACED_CHARS = 6
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def is_reason(why: Any) -> bool:
    """True when ``why`` is a sentence, not a word: the one rule for every "say why" answer.

    >>> is_reason("because"), is_reason("because it grows"), is_reason("截断保留最新的消息")
    (False, True, True)
    """
    if not isinstance(why, str):
        return False
    return len(why.split()) >= REASON_WORDS or len(_UNSPACED.findall(why)) >= REASON_UNSPACED_CHARS


@dataclass(frozen=True)
class KeyIdea:
    """An idea a written reason must name, recognised by any one of its ``words``.

    ``words`` hold the idea in each of the course's languages (English,
    Persian, Chinese), lower case. A word in Latin letters matches at the
    start of a word ("newest" matches "newest" and "newest," but not
    "renewest"); any other word matches anywhere, since Chinese writes no
    spaces. ``nudge`` says what the reason should address, without giving
    the answer away.

    >>> idea = KeyIdea("say which messages it drops", ("newest", "latest", "最新", "جدید"))
    >>> idea.named_in("It drops the newest question"), idea.named_in("它丢掉了最新的问题"), idea.named_in("it is slow")
    (True, True, False)
    """

    nudge: str
    words: tuple[str, ...]

    def __post_init__(self):
        if not isinstance(self.nudge, str) or not self.nudge.strip():
            raise ValueError(f"nudge must be a non-empty string, got {self.nudge!r}")
        if (isinstance(self.words, str) or not self.words
                or not all(isinstance(w, str) and w.strip() and w == w.lower() for w in self.words)):
            raise ValueError(f"words must be a non-empty tuple of lower-case strings, got {self.words!r}")

    def named_in(self, text: str) -> bool:
        lowered = " ".join(text.lower().split())
        for word in self.words:
            if re.match(r"[a-z0-9]", word):
                if re.search(r"(?<![a-z0-9_])" + re.escape(word), lowered):
                    return True
            elif word in lowered:
                return True
        return False


def _need_reason(q: Question, why: Any, name: str = "why", ideas: Sequence[KeyIdea] = ()) -> str:
    """Stop unless ``why`` is a written reason (see :func:`is_reason`) that names each of ``ideas``.

    The text is noted for the grader's record (``answer_text``) whatever the
    outcome, so a teacher can read it.
    """
    q.need(why, name)
    if not isinstance(why, str):
        q.stop(q.wrong(f"`{name}` should be your reason as a string (a sentence in quotes), got {describe(why)}."))
    q.note_answer_text(why)
    if not is_reason(why):
        short = f"{describe(why.strip())} is too short: " if why.strip() else ""
        q.stop(q.not_attempted(f"{short}write your reason in `{name}` as a sentence of at least {REASON_WORDS} "
                               f"words, then check again."))
    missing = missing_ideas(why, ideas)
    if missing:
        q.stop(q.wrong(f"your reason in `{name}` does not say why yet: {missing}"))
    return why


def missing_ideas(why: str, ideas: Sequence[KeyIdea]) -> str:
    """The nudges for the ``ideas`` that ``why`` does not name, as one sentence ending the feedback ("" if none)."""
    missing = [idea for idea in ideas if not idea.named_in(why)]
    if not missing:
        return ""
    return (f"{'; '.join(i.nudge for i in missing)}. Write it in your own words (English, Persian or Chinese) "
            f"and check again.")


def _grade_choice(q: Question, choice: Any, why: Any, options: Mapping[str, str], answer: str,
                  feedback: Mapping[str, str], keywords: Sequence[str], praise: str,
                  ideas: Sequence[KeyIdea] = ()) -> CheckResult:
    """Multiple choice with a one-sentence justification (in any language) that names the key ideas."""
    q.need(choice, "choice")
    letter = _letter(choice)
    if letter not in options:
        return q.wrong(f"`choice` should be one of the letters {', '.join(repr(k) for k in options)}, "
                       f"got {describe(choice)}.")
    _need_reason(q, why)
    if letter != answer:
        return q.wrong(f"({letter}) is not it: {feedback[letter]}")
    missing = missing_ideas(why, ideas)
    if missing:
        return q.wrong(f"({letter}) is the right choice, but your reason does not say why yet: {missing}")
    lowered = why.lower()
    if keywords and not any(k in lowered for k in keywords):
        praise += (" Your reason does not use the words this lesson would (" + ", ".join(keywords[:3])
                   + "): compare it with `solution()`.")
    return q.correct(praise)


def choice_question(exercise: Exercise, title: str, usage: str, *, hints: Sequence[str], solution: str,
                    options: Mapping[str, str], answer: str, feedback: Mapping[str, str], keywords: Sequence[str],
                    praise: str, explanation: str = "", ideas: Sequence[KeyIdea] = ()) -> Question:
    """Register a multiple-choice question with a written reason as the next question of ``exercise``.

    The learner calls ``qN.check(choice, why)``. ``feedback`` has one message
    per wrong letter; ``praise`` is shown for the right answer. ``ideas``
    (:class:`KeyIdea`) are what the reason must name: with the right letter
    and a reason that names none of an idea's words, the result is "not
    quite" with the idea's nudge. ``keywords`` (older, softer) are words a
    good reason tends to use: a reason without any of them is still correct,
    with a nudge to compare it with the solution.
    """
    missing = sorted(set(options) - {answer} - set(feedback))
    if answer not in options or missing:
        raise ValueError(f"answer {answer!r} must be one of the options {sorted(options)}, and every other option "
                         f"needs feedback (missing: {missing})")
    ideas = tuple(ideas)
    if not all(isinstance(idea, KeyIdea) for idea in ideas):
        raise TypeError(f"ideas must be KeyIdea objects, got {ideas!r:.120}")

    def checker(q, choice, why):
        return _grade_choice(q, choice, why, options, answer, feedback, keywords, praise, ideas)

    return exercise.question(title, usage, hints=hints, solution=solution, explanation=explanation)(checker)


# --- conversations generated inside the checks ------------------------------------------------

WORDS = (
    "trip plan weather budget museum train ticket hotel river market lunch dinner garden book music "
    "bike run swim coffee morning evening city map photo friend family recipe rice tea bread walk "
    "question answer note detail price time route station beach park kitchen window cat dog song"
).split()
TOOL_NAMES = ("get_weather", "web_search", "currency_convert")


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def random_conversation(seed: int, turns: int = 6, *, system: bool = True, tools: bool = True,
                        end_with_ai: bool = True) -> list[BaseMessage]:
    """A seeded conversation with unique ids: system, human, AI (some calling tools), tool answers.

    With ``end_with_ai=False`` the last message is a human question, as the
    state is when a chatbot node runs.
    """
    rng = random.Random(seed)
    messages: list[BaseMessage] = []
    n = 0

    def next_id(kind: str) -> str:
        nonlocal n
        n += 1
        return f"r{seed}-{n:02d}-{kind}"

    if system:
        messages.append(SystemMessage(_text(rng, 6, 25), id=next_id("system")))
    for turn in range(turns):
        messages.append(HumanMessage(_text(rng, 3, 30), id=next_id("human")))
        if not end_with_ai and turn == turns - 1:
            break
        if tools and rng.random() < 0.45:
            calls = [
                {"name": rng.choice(TOOL_NAMES), "args": {"query": rng.choice(WORDS)}, "id": f"call-{seed}-{n}-{k}",
                 "type": "tool_call"}
                for k in range(rng.choice((1, 1, 2)))
            ]
            messages.append(AIMessage(rng.choice(("", "Let me look that up.")), tool_calls=calls, id=next_id("ai")))
            for call in calls:
                messages.append(ToolMessage(_text(rng, 10, 60), tool_call_id=call["id"], id=next_id("tool")))
        messages.append(AIMessage(_text(rng, 4, 50), id=next_id("ai")))
    return messages


def random_costs(messages: Sequence[BaseMessage], seed: int, low: int = 5, high: int = 90) -> dict[str, int]:
    rng = random.Random(seed)
    return {m.id: rng.randint(low, high) for m in messages}


def _snapshot(messages: Sequence[BaseMessage]) -> list[tuple]:
    return [(m.id, m.type, repr(m.content), getattr(m, "tool_calls", None)) for m in messages]


def _same_messages(got: Sequence[BaseMessage], expected: Sequence[BaseMessage]) -> bool:
    return len(got) == len(expected) and all(
        isinstance(g, BaseMessage) and g.id == e.id and g.type == e.type and g.content == e.content
        for g, e in zip(got, expected)
    )


def _learner_message_list(q: Question, value: Any, name: str) -> list[BaseMessage]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        q.stop(q.wrong(f"`{name}` should return a list of messages, but it returned {describe(value)}."))
    for i, item in enumerate(value):
        if not isinstance(item, BaseMessage):
            q.stop(q.wrong(f"`{name}` should return a list of messages, but item [{i}] is {describe(item)}."))
    return list(value)


def _counts_of(messages: Sequence[BaseMessage]) -> str:
    kinds = Counter(m.type for m in messages)  # in order of first appearance
    return f"{len(messages)} messages (" + ", ".join(f"{v} {k}" for k, v in kinds.items()) + ")"
