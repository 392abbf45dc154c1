"""The kinds of answer every exercise uses: a number, a letter,
and conversations generated inside a check (seeded, so the feedback is the same on every run).

Multiple-choice questions with reasons are :class:`~course_utils.checks.questions.ChoiceQuestion`. What the
exercise modules share is public here (no module imports another's
underscore names):

- :func:`grade_number`, :func:`letter_of`: a number answer, a letter answer;
- reasons are picked from statements and the learner's own words go to the
  teacher: see :mod:`course_utils.checks.questions`;
- :func:`random_conversation`, :func:`random_costs`: seeded test inputs;
- :func:`snapshot`, :func:`same_messages`, :func:`learner_message_list`,
  :func:`counts_of`: comparing and describing lists of messages.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from course_utils.checks.machinery import CheckResult, Question, describe, ltr
from course_utils.core.i18n import _, ngettext


def grade_number(q: Question, value: Any, name: str, expected: int, known: Mapping[int, str], general: str,
                  praise: str) -> CheckResult:
    """A number answer: correct, a known mistake with its hint, or a general nudge.

    The texts are translated when shown (``_(praise)``): an exercise module may pass them wrapped or not.
    """
    value = q.as_int(value, name)
    if value == expected:
        return q.correct(_(praise))
    if value in known:
        return q.wrong(_("{value} is not it: {known}").format(value=value, known=_(known[value])))
    return q.wrong(_("{value} is not it. {general}").format(value=value, general=_(general)))


def letter_of(value: Any) -> str | None:
    """The letter of a multiple-choice answer ("c", "(c)", " C. "), lower case, or None."""
    if isinstance(value, str):
        match = re.fullmatch(r"\s*\(?([A-Za-z])[).]?\s*", value)
        if match:
            return match.group(1).lower()
    return None


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


def snapshot(messages: Sequence[BaseMessage]) -> list[tuple]:
    """What a list of messages holds (ids, types, contents, tool calls): compare two to see if a function changed it."""
    return [(m.id, m.type, repr(m.content), getattr(m, "tool_calls", None)) for m in messages]


def same_messages(got: Sequence[BaseMessage], expected: Sequence[BaseMessage]) -> bool:
    """True when ``got`` is the same messages as ``expected`` (id, type, content), in the same order."""
    return len(got) == len(expected) and all(
        isinstance(g, BaseMessage) and g.id == e.id and g.type == e.type and g.content == e.content
        for g, e in zip(got, expected)
    )


def learner_message_list(q: Question, value: Any, name: str) -> list[BaseMessage]:
    """``value`` as a list of messages, or stop with "not quite" saying what the learner's ``name`` returned."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        q.stop(q.wrong(_("`{name}` should return a list of messages, but it returned {value}.").format(
            name=name, value=describe(value))))
    for i, item in enumerate(value):
        if not isinstance(item, BaseMessage):
            q.stop(q.wrong(_("`{name}` should return a list of messages, but item [{i}] is {value}.").format(
                name=name, i=i, value=describe(item))))
    return list(value)


def counts_of(messages: Sequence[BaseMessage]) -> str:
    """A short description of a list of messages: "8 messages (3 human, 3 ai, 2 tool)".

    The types are LangChain's names (``message.type``): they stay Latin, left
    to right in a right-to-left language (:func:`~course_utils.checks.machinery.ltr`).
    """
    kinds = Counter(m.type for m in messages)  # in order of first appearance
    listed = ltr(", ".join(f"{v} {k}" for k, v in kinds.items()))
    return ngettext("{count} message ({kinds})", "{count} messages ({kinds})", len(messages)).format(
        count=len(messages), kinds=listed)
